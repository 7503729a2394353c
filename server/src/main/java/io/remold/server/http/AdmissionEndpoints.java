package io.remold.server.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.remold.api.AdmissionOperation;
import io.remold.api.InvalidFieldException;
import io.remold.api.ModRule;
import io.remold.api.ModRuleException;
import io.remold.api.ModRules;
import io.remold.api.Provider;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.engine.RuleCompilation;
import io.remold.engine.RuleFamily;
import io.remold.engine.RuleOutcome;
import io.remold.engine.StageObserver;
import io.remold.json.JsonTree;
import io.remold.scripting.ScriptRule;
import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import io.remold.server.log.Logs;
import io.remold.server.rules.RuleStore;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParsingException;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The webhook endpoints. Each request body is parsed once into a compact jakarta.json tree; nothing is logged
 * unless the decision changed or rejected something. An exception while evaluating rules answers 500 with the
 * reason, so that the webhook configuration's {@code failurePolicy} decides (Fail: the API server refuses the
 * request; Ignore: it admits it unchanged).
 */
final class AdmissionEndpoints {
    /** Remold's node-name annotation, then KubeMod's: the key its README documents and the one its code uses. */
    static final List<String> NODE_NAME_ANNOTATIONS = List.of("ref.remold.io/nodename", "ref.kubemod.io/node",
            "ref.kubemod.io/nodename");
    private static final Logger DECISIONS = Logger.getLogger("io.remold.server.decision");
    private static final Logger LOG = Logger.getLogger(AdmissionEndpoints.class.getName());
    /** Most rules never read an UPDATE's previous object: it is parsed when first read. */
    private static final Set<String> DEFERRED = Set.of("oldObject");
    /** The codes of problems found before a request's body was read. */
    private static final Set<Integer> UNREAD = Set.of(413, 415, 503);
    private static final byte[] NOOP_RESPONSE = AdmissionReview.Response.allow("noop").toJson();

    private final RuleStore store;
    private final ClusterRefs refs;
    private final BindingListener bindings;
    private final Metrics metrics;
    private final Tracing tracing;
    private final RequestBodies bodies;
    /** How long deciding one /mutate or /validate may take: its rules of every family share it. */
    private final Duration requestBudget;

    /** The response and how it counts in the metrics. */
    private record Result(AdmissionReview.Response response, Metrics.Outcome outcome) {
    }

    AdmissionEndpoints(RuleStore store, ClusterRefs refs, BindingListener bindings, Metrics metrics, Tracing tracing,
                       RequestBodies bodies, Duration requestBudget) {
        this.tracing = tracing;
        this.store = store;
        this.requestBudget = requestBudget;
        this.refs = refs;
        this.bindings = bindings;
        this.metrics = metrics;
        this.bodies = bodies;
    }

    void register(HttpRules rules) {
        rules.post("/mutate", (req, res) -> handle(Metrics.Endpoint.mutate, req, res, this::mutate))
                .post("/validate", (req, res) -> handle(Metrics.Endpoint.validate, req, res, this::validate))
                .post("/validate-modrule", (req, res) -> handle(Metrics.Endpoint.validate_modrule, req, res,
                        (review, stages) -> validateModRule(review)))
                .post("/mutate-rule", (req, res) -> handle(Metrics.Endpoint.mutate_rule, req, res,
                        (review, stages) -> mutateRule(review)))
                .post("/noop", this::noop);
    }

    /** Benchmark aid: reads the body as the endpoints do and answers a fixed allow, the ceiling for /mutate. */
    private void noop(ServerRequest req, ServerResponse res) {
        long start = System.nanoTime();
        try (BodyBudget.Lease lease = bodies.lease()) {
            bodies.read(req, lease);
            send(res, 200, NOOP_RESPONSE);
        } catch (HttpProblem e) {
            refuse(res, e);
        }
        metrics.request(Metrics.Endpoint.noop, Metrics.Outcome.allowed, System.nanoTime() - start);
    }

    private void handle(Metrics.Endpoint endpoint, ServerRequest req, ServerResponse res,
                        BiFunction<AdmissionReview, StageObserver, Result> decide) {
        long start = System.nanoTime();
        Tracing.RequestSpan span = tracing.start(endpoint.path(),
                name -> req.headers().first(HeaderNames.create(name)));
        Metrics.Outcome outcome;
        // The body's bytes count against the in-flight budget until the answer is sent.
        try (BodyBudget.Lease lease = bodies.lease()) {
            AdmissionReview review = AdmissionReview.parse(parse(bodies.read(req, lease)));
            span.review(review);
            Result result;
            try {
                result = decide.apply(review, span.stages());
            } catch (AdmissionReview.Invalid e) {
                throw e; // a field the decision needed is malformed (a Binding without its target): 400, no trace
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, endpoint.path() + ": evaluation of request " + review.uid() + " failed", e);
                throw new HttpProblem(500, "evaluation failed: " + e);
            }
            send(res, 200, result.response().toJson());
            outcome = result.outcome();
        } catch (AdmissionReview.Invalid e) {
            sendReason(res, 400, e.getMessage());
            outcome = Metrics.Outcome.bad_request;
        } catch (HttpProblem e) {
            refuse(res, e);
            outcome = e.code >= 500 ? Metrics.Outcome.error : Metrics.Outcome.bad_request;
        } catch (RequestBodies.BodyNotReceived e) {
            LOG.fine(() -> endpoint.path() + ": " + e.getMessage() + "; connection closed");
            metrics.request(endpoint, Metrics.Outcome.unread, System.nanoTime() - start);
            span.end(Metrics.Outcome.unread);
            throw e;
        }
        metrics.request(endpoint, outcome, System.nanoTime() - start);
        span.end(outcome);
    }

    private static JsonValue parse(byte[] body) {
        try {
            return JsonTree.parse(body, DEFERRED);
        } catch (JsonParsingException e) {
            throw new HttpProblem(400, "malformed JSON: " + e.getMessage());
        }
    }

    private Result mutate(AdmissionReview review, StageObserver stages) {
        if (isBinding(review)) {
            if (!review.dryRun()) {
                bindings.bound(review.namespace(), review.name(), bindingTarget(review.object()));
            }
            return allowed(review);
        }
        Engine engine = store.engine();
        if (engine.ruleCount() + engine.stageRuleCount() == 0 || refs.ignored(review.namespace())) {
            return allowed(review);
        }
        long start = System.nanoTime();
        Decision decision = engine.mutate(request(review), deadline(start), stages);
        // The rules that changed the object, by family in the order the engine ran them (ModRules first).
        var changedBy = new LinkedHashMap<RuleFamily, List<String>>();
        var warnings = new ArrayList<String>();
        for (RuleOutcome outcome : decision.outcomes()) {
            if (!outcome.matched()) {
                continue;
            }
            metrics.rule(outcome.rule(), Metrics.RuleEvent.match);
            if (outcome.error() != null) {
                metrics.rule(outcome.rule(), Metrics.RuleEvent.error);
                warnings.add(outcome.family().name() + " " + outcome.rule() + " failed: " + outcome.error());
            } else if (!outcome.applied().isEmpty()) {
                metrics.rule(outcome.rule(), Metrics.RuleEvent.patch);
                changedBy.computeIfAbsent(outcome.family(), family -> new ArrayList<>()).add(outcome.rule());
            }
        }
        if (!decision.allowed()) {
            // A script's jsa_mutate answered Allowed: false: the request is refused, as js-admissions-controller does.
            logDecision(review, "rejected", decision.rejections().stream().map(Object::toString).toList(), start);
            var denial = new AdmissionReview.Response(review.uid(), null, warnings, Map.of(),
                    new AdmissionReview.Response.Denial(403, decision.rejectionMessage()));
            return new Result(denial, Metrics.Outcome.rejected);
        }
        if (decision.patch().isEmpty() && warnings.isEmpty()) {
            return allowed(review);
        }
        var audit = new LinkedHashMap<String, String>();
        var changes = new ArrayList<String>();
        changedBy.forEach((family, rules) -> {
            changes.add(family.changedBy() + ": " + String.join(", ", rules));
            audit.put(family.auditKey(), String.join(",", rules));
        });
        warnings.addAll(0, changes);
        var patchedBy = changedBy.values().stream().flatMap(List::stream).toList();
        logDecision(review, decision.patch().isEmpty() ? "rule failed" : "patched", patchedBy, start);
        var response = new AdmissionReview.Response(review.uid(),
                decision.patch().isEmpty() ? null : decision.patch(), warnings, audit, null);
        return new Result(response, decision.patch().isEmpty() ? Metrics.Outcome.allowed : Metrics.Outcome.patched);
    }

    private Result validate(AdmissionReview review, StageObserver stages) {
        Engine engine = store.engine();
        if (engine.ruleCount() + engine.validationStageRuleCount() == 0 || refs.ignored(review.namespace())) {
            return allowed(review);
        }
        long start = System.nanoTime();
        Decision decision = engine.validate(request(review), deadline(start), stages);
        // Rules are named as in the outcomes (and in /mutate's metrics), not as the message names them: a rule
        // without a namespace appears there under the object's namespace.
        var rejectedBy = new ArrayList<String>();
        for (RuleOutcome outcome : decision.outcomes()) {
            if (outcome.matched()) {
                metrics.rule(outcome.rule(), Metrics.RuleEvent.match);
                metrics.rule(outcome.rule(), Metrics.RuleEvent.reject);
                rejectedBy.add(outcome.rule());
                if (outcome.error() != null) {
                    metrics.rule(outcome.rule(), Metrics.RuleEvent.error);
                }
            }
        }
        if (decision.allowed()) {
            return allowed(review);
        }
        logDecision(review, "rejected", rejectedBy, start);
        var response = new AdmissionReview.Response(review.uid(), null, List.of(),
                Map.of("rejected-by", String.join(",", rejectedBy)),
                new AdmissionReview.Response.Denial(403, decision.rejectionMessage()));
        return new Result(response, Metrics.Outcome.rejected);
    }

    /**
     * Why a rule of {@code family} is refused at admission: it does not read, or (a script rule) the tenant-scripts
     * option does not let its namespace run it; null when it is admitted.
     */
    private <R> String familyProblem(Family<R> family, JsonObject object, String id, AdmissionReview review) {
        R rule;
        try {
            rule = family.parse(object);
        } catch (InvalidFieldException e) {
            return invalid(family, object, id, e);
        }
        if (rule instanceof ScriptRule script) {
            // The API server puts a namespaced rule whose manifest names no namespace in the request's.
            String namespace = script.namespace() != null ? script.namespace() : review.namespace();
            return store.scriptRefusal(script, namespace).orElse(null);
        }
        String namespace = object.get("metadata") instanceof JsonObject metadata
                && metadata.get("namespace") instanceof JsonString s && !s.getString().isEmpty()
                ? s.getString() : review.namespace();
        return store.unreadableReference(family, rule, namespace, review.requester())
                .map(why -> rule(family, object, id) + " is invalid: " + why).orElse(null);
    }

    /**
     * Admission of ModRules, the other families' rules and external data Providers: refuses one that does not read or
     * does not compile.
     */
    private Result validateModRule(AdmissionReview review) {
        if (review.operation() == AdmissionOperation.DELETE || review.operation() == AdmissionOperation.CONNECT) {
            return allowed(review);
        }
        if (!(review.object() instanceof JsonObject object)) {
            throw new AdmissionReview.Invalid("request.object: missing or not an object");
        }
        String id = ruleId(object, review);
        String problem;
        Optional<Family<?>> family = store.families().stream().filter(f -> f.owns(object)).findFirst();
        if (family.isPresent()) {
            problem = familyProblem(family.get(), object, id, review);
        } else if (Provider.isProvider(object)) {
            try {
                Provider.fromJson(object, "Provider " + id);
                problem = null;
            } catch (ModRuleException e) {
                problem = e.getMessage();
            }
        } else {
            try {
                ModRule rule = ModRules.fromJson(object, "ModRule " + id);
                if (rule.namespace() == null && !review.namespace().isEmpty()) {
                    // The API server puts a ModRule in the request's namespace when its manifest names none.
                    rule = new ModRule(rule.apiVersion(), review.namespace(), rule.name(), rule.spec());
                }
                RuleCompilation compilation = store.compile(rule, review.requester());
                problem = compilation.ok() ? null : "ModRule " + id + " is invalid: " + compilation.errors().stream()
                        .map(RuleCompilation.Problem::toString).reduce((a, b) -> a + "; " + b).orElseThrow();
            } catch (ModRuleException e) {
                problem = e.getMessage();
            }
        }
        return problem == null ? allowed(review) : refused(review, problem);
    }

    /** A rule refused at admission (422) with why. */
    private static Result refused(AdmissionReview review, String problem) {
        var response = new AdmissionReview.Response(review.uid(), null, List.of(), Map.of(),
                new AdmissionReview.Response.Denial(422, problem));
        return new Result(response, Metrics.Outcome.rejected);
    }

    private static String invalid(Family<?> family, JsonObject rule, String id, InvalidFieldException e) {
        return rule(family, rule, id) + " is invalid: " + e.getMessage();
    }

    /** How a refusal names a family's rule: its kind and id. */
    private static String rule(Family<?> family, JsonObject rule, String id) {
        return rule.getString("kind", family.family().name()) + " " + id;
    }

    /**
     * Admission of a family's rule that its own webhook completes (kinitiras's policies get each template's
     * {@code renderedCue}): the family's patch; a rule the family cannot complete is refused with the field.
     */
    private Result mutateRule(AdmissionReview review) {
        if (review.operation() != AdmissionOperation.CREATE && review.operation() != AdmissionOperation.UPDATE) {
            return allowed(review);
        }
        if (!(review.object() instanceof JsonObject object)) {
            throw new AdmissionReview.Invalid("request.object: missing or not an object");
        }
        Optional<Family<?>> family = store.families().stream().filter(f -> f.owns(object)).findFirst();
        if (family.isEmpty()) {
            return allowed(review);
        }
        List<JsonObject> patch;
        try {
            patch = family.get().admissionPatch(object, review.operation() == AdmissionOperation.UPDATE
                    && review.oldObject() instanceof JsonObject old ? old : null);
        } catch (InvalidFieldException e) {
            return refused(review, invalid(family.get(), object, ruleId(object, review), e));
        }
        if (patch.isEmpty()) {
            return allowed(review);
        }
        var response = new AdmissionReview.Response(review.uid(), AdmissionReview.JSON.createArrayBuilder(patch)
                .build(), List.of(), Map.of(), null);
        return new Result(response, Metrics.Outcome.patched);
    }

    /** When a request that reached its rules at {@code startNanos} must have been decided. */
    private long deadline(long startNanos) {
        return startNanos + requestBudget.toNanos();
    }

    /** {@code namespace/name} from the rule's metadata, else from the request (a generateName CREATE has none). */
    private static String ruleId(JsonObject rule, AdmissionReview review) {
        String namespace = review.namespace();
        String name = review.name();
        if (rule.get("metadata") instanceof JsonObject metadata) {
            if (metadata.get("namespace") instanceof JsonString s && !s.getString().isEmpty()) {
                namespace = s.getString();
            }
            if (metadata.get("name") instanceof JsonString s && !s.getString().isEmpty()) {
                name = s.getString();
            }
        }
        return namespace.isEmpty() ? name : namespace + "/" + name;
    }

    private static boolean isBinding(AdmissionReview review) {
        return review.operation() == AdmissionOperation.CREATE && "pods".equals(review.resource())
                && "binding".equals(review.subResource());
    }

    private static String bindingTarget(JsonValue binding) {
        if (binding instanceof JsonObject o && o.get("target") instanceof JsonObject target
                && target.get("name") instanceof JsonString name) {
            return name.getString();
        }
        throw new AdmissionReview.Invalid("request.object.target.name: missing in the Binding");
    }

    private AdmissionRequest request(AdmissionReview review) {
        // The API server gives a Namespace's own name as the namespace of its request; to rules a Namespace is
        // cluster-scoped, as it is to Kubernetes (found by the kind e2e: KubeMod's sample rule for a namespace).
        String namespace = "Namespace".equals(review.kind()) && review.group().isEmpty() ? "" : review.namespace();
        JsonValue namespaceRef = namespace.isEmpty() ? null : refs.namespace(namespace).orElse(null);
        JsonValue nodeRef = null;
        if ("Pod".equals(review.kind()) && review.group().isEmpty()) {
            String node = nodeName(review.object() != null ? review.object() : review.oldObject());
            nodeRef = node == null ? null : refs.node(node).orElse(null);
        }
        return new AdmissionRequest(review.operation(), namespace, review.object(), review.oldObject(),
                namespaceRef, nodeRef, false, review.userName());
    }

    /** {@code spec.nodeName}, else a node annotation the cluster mode writes after binding (Remold's or KubeMod's). */
    private static String nodeName(JsonValue pod) {
        if (!(pod instanceof JsonObject o)) {
            return null;
        }
        if (o.get("spec") instanceof JsonObject spec && spec.get("nodeName") instanceof JsonString name
                && !name.getString().isEmpty()) {
            return name.getString();
        }
        if (o.get("metadata") instanceof JsonObject metadata
                && metadata.get("annotations") instanceof JsonObject annotations) {
            for (String annotation : NODE_NAME_ANNOTATIONS) {
                if (annotations.get(annotation) instanceof JsonString name && !name.getString().isEmpty()) {
                    return name.getString();
                }
            }
        }
        return null;
    }

    private static Result allowed(AdmissionReview review) {
        return new Result(AdmissionReview.Response.allow(review.uid()), Metrics.Outcome.allowed);
    }

    private static void logDecision(AdmissionReview review, String what, List<String> rules, long startNanos) {
        if (!DECISIONS.isLoggable(Level.INFO)) {
            return; // decision lines turned off: skip gathering the fields
        }
        var fields = new LinkedHashMap<String, Object>();
        fields.put("rules", rules);
        fields.put("operation", review.operation().name());
        fields.put("kind", review.kind());
        fields.put("namespace", review.namespace());
        fields.put("name", review.name());
        fields.put("uid", review.uid());
        fields.put("dryRun", review.dryRun());
        fields.put("durationMs", (System.nanoTime() - startNanos) / 1e6);
        Logs.event(DECISIONS, Level.INFO, what, fields);
    }

    private static void send(ServerResponse res, int code, byte[] body) {
        res.status(Status.create(code));
        res.header(HeaderNames.CONTENT_TYPE, "application/json");
        res.send(body);
    }

    /**
     * Answers a problem. After a body refused before it was read (413, 415, 503) Helidon reads and drops the rest of
     * the body, and a header-only client never sends it: the request's read deadline stays armed through that.
     */
    private void refuse(ServerResponse res, HttpProblem problem) {
        if (UNREAD.contains(problem.code)) {
            bodies.deadlines().keepThroughDrain();
        }
        sendReason(res, problem.code, problem.getMessage());
    }

    private static void sendReason(ServerResponse res, int code, String reason) {
        var out = new StringWriter();
        try (var g = AdmissionReview.JSON.createGenerator(out)) {
            g.writeStartObject().write("code", code).write("reason", reason).writeEnd();
        }
        send(res, code, out.toString().getBytes(StandardCharsets.UTF_8));
    }
}
