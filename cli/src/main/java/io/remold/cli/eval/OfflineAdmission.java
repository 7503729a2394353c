package io.remold.cli.eval;

import io.remold.api.AdmissionOperation;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.FieldChange;
import io.remold.engine.Provenance;
import io.remold.engine.RuleOutcome;
import io.remold.rules.Snapshot;
import io.remold.rules.impact.AdmissionVerdicts;
import io.remold.rules.impact.RuleVerdict;
import io.remold.templating.ExternalData;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;

/**
 * One admission request decided offline as the server decides it: the mutating webhook's rules, then the validating
 * webhook's on what they made; Warn rules' refusals warn, Shadow rules are evaluated apart and change nothing. The
 * decision {@code eval} prints and {@code test} compares.
 */
public final class OfflineAdmission {
    private OfflineAdmission() {
    }

    /**
     * What the API server would send: for DELETE, {@code resource} is the object being deleted (sent as the old
     * object). {@code old}, {@code namespaceRef} and {@code nodeRef} may be null; {@code userName} may be empty.
     */
    public record Request(AdmissionOperation operation, String namespace, JsonObject resource, JsonObject old,
                          JsonObject namespaceRef, JsonObject nodeRef, String userName, boolean explain) {
    }

    /**
     * The decisions as the engine made them ({@code mutation}, {@code validation}: what {@code --explain} shows),
     * the same with Warn rules' refusals taken out ({@code enforcedMutation}, {@code enforcedValidation}), and the
     * Shadow rules' verdicts.
     */
    public record Answer(Decision mutation, Decision validation, Decision enforcedMutation,
                         Decision enforcedValidation, List<RuleVerdict> shadowMutate,
                         List<RuleVerdict> shadowValidate, List<String> warned) {
        /** Whether the request is admitted: neither webhook refuses it. */
        public boolean allowed() {
            return enforcedMutation.allowed() && enforcedValidation.allowed();
        }

        /** The refusal's message, as the API server would show it; null when allowed. */
        public String rejection() {
            return !enforcedMutation.allowed() ? enforcedMutation.rejectionMessage()
                    : !enforcedValidation.allowed() ? enforcedValidation.rejectionMessage() : null;
        }

        /** The object after admission (the request's, for a DELETE). */
        public JsonValue result() {
            return enforcedMutation.result();
        }

        /**
         * Who changed each field, and why (the reasons when the request was explained): the first
         * {@code maxFields} fields of the engine's patch, each with the rules that wrote it in order.
         */
        public List<FieldChange> fields(int maxFields, Provenance.Generations generations) {
            return Provenance.fields(mutation, maxFields, generations);
        }

        /** The outcomes of the mutating rules that failed, in the order they ran. */
        public List<RuleOutcome> failures() {
            return enforcedMutation.outcomes().stream().filter(o -> o.error() != null).toList();
        }

        /**
         * The warnings the webhooks would return, without their "changed by" lines: each failed mutating rule
         * ({@code FAMILY RULE failed: ERROR}), then the refusals of Warn rules.
         */
        public List<String> warnings() {
            var warnings = new ArrayList<String>();
            failures().forEach(o -> warnings.add(o.family().name() + " " + o.rule() + " failed: " + o.error()));
            warnings.addAll(warned);
            return List.copyOf(warnings);
        }
    }

    /** Decides {@code request} with the rules of {@code snapshot}. */
    public static Answer decide(Snapshot snapshot, Request request) {
        return decide(snapshot, request, false);
    }

    /**
     * Decides {@code request} with the rules of {@code snapshot}; with {@code annotate}, the object after admission
     * carries {@link Provenance#ANNOTATION} as the server's option {@code provenance-annotation} sets it
     * ({@code mutation} stays the engine's decision, without it).
     */
    public static Answer decide(Snapshot snapshot, Request request, boolean annotate) {
        boolean delete = request.operation() == AdmissionOperation.DELETE;
        // A DELETE carries the object being deleted as the old object, as the API server sends it.
        var mutationRequest = new AdmissionRequest(request.operation(), request.namespace(),
                delete ? null : request.resource(), delete ? request.resource() : request.old(),
                request.namespaceRef(), request.nodeRef(), request.explain(), request.userName());
        Decision mutation = snapshot.engine().mutate(mutationRequest);
        Decision admitted = annotate ? Provenance.annotated(mutation, mutationRequest.object()) : mutation;
        AdmissionRequest validationRequest = mutationRequest.withObject(delete ? null : admitted.result());
        Decision validation = snapshot.engine().validate(validationRequest);
        long deadline = System.nanoTime() + ExternalData.REQUEST_BUDGET.toNanos();
        List<RuleVerdict> shadowMutate = AdmissionVerdicts.mutate(snapshot, mutationRequest, mutation, deadline);
        List<RuleVerdict> shadowValidate = AdmissionVerdicts.validate(snapshot, validationRequest, deadline);
        var warned = new ArrayList<>(snapshot.warned(mutation));
        warned.addAll(snapshot.warned(validation));
        return new Answer(mutation, validation, snapshot.enforced(admitted), snapshot.enforced(validation),
                shadowMutate, shadowValidate, List.copyOf(warned));
    }
}
