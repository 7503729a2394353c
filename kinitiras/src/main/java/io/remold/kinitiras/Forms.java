package io.remold.kinitiras;

import io.remold.cue.CueEvaluator;
import io.remold.cue.CueException;
import io.remold.cue.CueLimits;
import io.remold.cue.CueWorkers;
import io.remold.kinitiras.cue.CueOverrider;
import io.remold.kinitiras.cue.CueSettings;
import io.remold.kinitiras.cue.CueValidator;
import io.remold.kinitiras.template.OverrideTemplate;
import io.remold.kinitiras.template.ValidateTemplate;
import jakarta.json.JsonObject;

import java.time.Duration;

/**
 * How a rule's {@code template} and {@code cue} become forms: templates natively ({@code
 * io.remold.kinitiras.template}, with the result of kinitiras's rendered CUE), hand-written CUE by cuelang.org/go in
 * a worker ({@code io.remold.kinitiras.cue}), compiled when the policy is read so that a broken one is refused with
 * CUE's message and position.
 */
record Forms(CueSettings cue) {
    /** The longest one CUE evaluation may take, within the request's own budget. */
    static final Duration CUE_TIMEOUT = Duration.ofSeconds(1);

    /**
     * The process's forms: one pool of CUE workers for every reader of policies (the rule store, the policy webhook,
     * {@code eval}), as compiled policies are cached in it; no worker starts until a policy has CUE.
     */
    static Forms shared() {
        return Shared.FORMS;
    }

    private static final class Shared {
        static final Forms FORMS = new Forms(new CueSettings(new CueWorkers(CueLimits.DEFAULT), CUE_TIMEOUT,
                CueEvaluator.Owner.ADMINISTRATOR));
    }

    /**
     * The forms of a policy of {@code namespace} (null: a cluster-wide one): its CUE's worker time is charged to that
     * namespace's tenant, or to the administrator, so that a tenant gets no more than its share of the workers.
     */
    Forms of(String namespace) {
        return new Forms(cue.chargedTo(CueEvaluator.Owner.of(namespace)));
    }

    /** An override rule's {@code template} (kinitiras runs it as its {@code renderedCue}). */
    Overrider overrideTemplate(JsonObject template, String field) {
        return OverrideTemplate.parse(template, field);
    }

    /** An override rule's hand-written {@code cue}. */
    Overrider overrideCue(String text, String field) {
        return compiled(CueOverrider::cue, text, field);
    }

    /** A validate rule's {@code template} (kinitiras runs it as its {@code renderedCue}). */
    Validator validateTemplate(JsonObject template, String field) {
        return ValidateTemplate.parse(template, field);
    }

    /** A validate rule's hand-written {@code cue}. */
    Validator validateCue(String text, String field) {
        return compiled(CueValidator::cue, text, field);
    }

    /** How a CUE form is compiled from its text. */
    @FunctionalInterface
    private interface CueForm<F> {
        F compile(CueSettings cue, String text) throws CueException;
    }

    /** The form, or the policy refused at {@code field} with CUE's message and position. */
    private <F> F compiled(CueForm<F> form, String text, String field) {
        try {
            return form.compile(cue, text);
        } catch (CueException e) {
            throw new InvalidPolicyException(field, e.getMessage());
        }
    }
}
