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
import io.remold.api.RuleControls;
import io.remold.api.RuleMode;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.engine.Provenance;
import io.remold.engine.RuleCompilation;
import io.remold.engine.RuleFamily;
import io.remold.engine.RuleOutcome;
import io.remold.engine.StageObserver;
import io.remold.json.JsonTree;
import io.remold.rules.Snapshot;
import io.remold.rules.impact.ImpactSink;
import io.remold.rules.impact.ObjectRef;
import io.remold.rules.impact.RuleVerdict;
import io.remold.rules.impact.AdmissionVerdicts;
import io.remold.scripting.ScriptHost;
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
import java.util.function.ToIntFunction;
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
    /** The audit annotation naming the Warn rules that would have refused the request. */
    static final String WARNED_BY = "warned-by";
    private static final byte[] NOOP_RESPONSE = AdmissionReview.Response.allow("noop").toJson();

    private final RuleStore store;
    private final ClusterRefs refs;
    private final BindingListener bindings;
    private final Metrics metrics;
    /** Where the Shadow rules' evaluation and the Warn rules' verdicts go, after the answer. */
    private final ShadowWorker shadow;
    private final Tracing tracing;
    private final RequestBodies bodies;
    /** How long deciding one /mutate or /validate may take: its rules of every family share it. */
    private final Duration requestBudget;
    /** Whether a patched object carries {@link Provenance#ANNOTATION} (option provenance-annotation). */
    private final boolean provenanceAnnotation;

    /** The response and how it counts in the metrics. */
    private record Result(AdmissionReview.Response response, Metrics.Outcome outcome) {
    }

    AdmissionEndpoints(RuleStore store, ClusterRefs refs, BindingListener bindings, Metrics metrics, Tracing tracing,
                       RequestBodies bodies, Duration requestBudget, ShadowWorker shadow, boolean provenanceAnnotation) {
        this.tracing = tracing;
        this.provenanceAnnotation = provenanceAnnotation;
        this.store = store;
        this.shadow = shadow;
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
                        (review, bodyBytes, stages) -> validateModRule(review)))
                .post("/mutate-rule", (req, res) -> handle(Metrics.Endpoint.mutate_rule, req, res,
                        (review, bodyBytes, stages) -> mutateRule(review)))
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

    /** An endpoint's decision of a review whose body had {@code bodyBytes} bytes, its stages told to {@code stages}. */
    private interface Decider {
        Result decide(AdmissionReview review, int bodyBytes, StageObserver stages);
    }

    private void handle(Metrics.Endpoint endpoint, ServerRequest req, ServerResponse res, Decider decider) {
        long start = System.nanoTime();
        Tracing.RequestSpan span = tracing.start(endpoint.path(),
                name -> req.headers().first(HeaderNames.create(name)));
        Metrics.Outcome outcome;
        // The body's bytes count against the in-flight budget until the answer is sent.
        try (BodyBudget.Lease lease = bodies.lease()) {
            byte[] body = bodies.read(req, lease);
            AdmissionReview review = AdmissionReview.parse(parse(body));
            span.review(review);
            Result result;
            try {
                result = decider.decide(review, body.length, span.stages());
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

    private Result mutate(AdmissionReview review, int bodyBytes, StageObserver stages) {
        if (isBinding(review)) {
            if (!review.dryRun()) {
                bindings.bound(review.namespace(), review.name(), bindingTarget(review.object()));
            }
            return allowed(review);
        }
        Snapshot snapshot = store.snapshot();
        long start = System.nanoTime();
        Decision decision = decide(review, bodyBytes, snapshot, Endpoint.MUTATE, start, stages);
        if (decision == null) {
            return allowed(review);
        }
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
        // A Warn script's jsa_mutate that answered Allowed: false admits, with a warning.
        Decision enforced = snapshot.enforced(decision);
        warnings.addAll(snapshot.warned(decision));
        var audit = new LinkedHashMap<String, String>();
        warnedBy(snapshot, decision, audit);
        if (!enforced.allowed()) {
            // A script's jsa_mutate answered Allowed: false: the request is refused, as js-admissions-controller does.
            logDecision(review, "rejected", enforced.rejections().stream().map(Object::toString).toList(), start);
            var denial = new AdmissionReview.Response(review.uid(), null, warnings, audit,
                    new AdmissionReview.Response.Denial(403, enforced.rejectionMessage()));
            return new Result(denial, Metrics.Outcome.rejected);
        }
        if (decision.patch().isEmpty() && warnings.isEmpty()) {
            return allowed(review);
        }
        var changes = new ArrayList<String>();
        changedBy.forEach((family, rules) -> {
            changes.add(family.changedBy() + ": " + String.join(", ", rules));
            audit.put(family.auditKey(), String.join(",", rules));
        });
        warnings.addAll(0, changes);
        var patchedBy = changedBy.values().stream().flatMap(List::stream).toList();
        // Who changed which field: made once for the annotation and the log line, when either wants it (16 passes
        // over the rules' operations at most, whatever the object brought).
        String fieldsBy = decision.patch().isEmpty() || !(provenanceAnnotation || DECISIONS.isLoggable(Level.INFO))
                ? null : Provenance.changedBy(decision);
        Decision sent = provenanceAnnotation && fieldsBy != null
                ? Provenance.annotated(decision, review.object(), fieldsBy) : decision;
        logDecision(review, decision.patch().isEmpty() ? "rule failed" : "patched", patchedBy, start, fieldsBy);
        var response = new AdmissionReview.Response(review.uid(),
                sent.patch().isEmpty() ? null : sent.patch(), warnings, audit, null);
        return new Result(response, decision.patch().isEmpty() ? Metrics.Outcome.allowed : Metrics.Outcome.patched);
    }

    private Result validate(AdmissionReview review, int bodyBytes, StageObserver stages) {
        Snapshot snapshot = store.snapshot();
        long start = System.nanoTime();
        Decision decision = decide(review, bodyBytes, snapshot, Endpoint.VALIDATE, start, stages);
        if (decision == null) {
            return allowed(review);
        }
        // Rules are named as in the outcomes (and in /mutate's metrics), not as the message names them: a rule
        // without a namespace appears there under the object's namespace. A Warn rule's refusal only warns.
        var rejectedBy = new ArrayList<String>();
        for (RuleOutcome outcome : decision.outcomes()) {
            if (outcome.matched()) {
                metrics.rule(outcome.rule(), Metrics.RuleEvent.match);
                if (outcome.error() != null) {
                    metrics.rule(outcome.rule(), Metrics.RuleEvent.error);
                }
                if (snapshot.mode(outcome.rule()) != RuleMode.WARN) {
                    metrics.rule(outcome.rule(), Metrics.RuleEvent.reject);
                    rejectedBy.add(outcome.rule());
                }
            }
        }
        Decision enforced = snapshot.enforced(decision);
        List<String> warnings = snapshot.warned(decision);
        var audit = new LinkedHashMap<String, String>();
        warnedBy(snapshot, decision, audit);
        if (enforced.allowed()) {
            return warnings.isEmpty() ? allowed(review) : new Result(new AdmissionReview.Response(review.uid(), null,
                    warnings, audit, null), Metrics.Outcome.allowed);
        }
        logDecision(review, "rejected", rejectedBy, start);
        audit.put("rejected-by", String.join(",", rejectedBy));
        var response = new AdmissionReview.Response(review.uid(), null, warnings, audit,
                new AdmissionReview.Response.Denial(403, enforced.rejectionMessage()));
        return new Result(response, Metrics.Outcome.rejected);
    }

    /** The audit annotation naming the Warn rules that would have refused, if any. */
    private static void warnedBy(Snapshot snapshot, Decision decision, Map<String, String> audit) {
        List<String> warned = snapshot.warnedRules(decision);
        if (!warned.isEmpty()) {
            audit.put(WARNED_BY, String.join(",", warned));
        }
    }

    /** The two webhooks that decide requests: the rules each runs (ModRules in both), and how its engine decides. */
    private enum Endpoint {
        MUTATE(engine -> engine.ruleCount() + engine.stageRuleCount(), Engine::mutate),
        VALIDATE(engine -> engine.ruleCount() + engine.validationStageRuleCount(), Engine::validate);

        /** How an engine decides a request by a deadline, telling {@code stages} of its stages. */
        private interface Deciding {
            Decision decide(Engine engine, AdmissionRequest request, long deadlineNanos, StageObserver stages);
        }

        final ToIntFunction<Engine> ruleCount;
        final Deciding deciding;

        Endpoint(ToIntFunction<Engine> ruleCount, Deciding deciding) {
            this.ruleCount = ruleCount;
            this.deciding = deciding;
        }
    }

    /**
     * The enforced rules' decision of a request, its Shadow and Warn work handed on; null when no enforced rule can
     * apply (none in the snapshot, or the namespace is ignored).
     */
    private Decision decide(AdmissionReview review, int bodyBytes, Snapshot snapshot, Endpoint endpoint,
                            long startNanos, StageObserver stages) {
        boolean enforcing = endpoint.ruleCount.applyAsInt(snapshot.engine()) > 0;
        if (!enforcing && snapshot.shadow().isEmpty() || refs.ignored(review.namespace())) {
            return null;
        }
        AdmissionRequest request = request(review);
        Decision decision = enforcing ? endpoint.deciding.decide(snapshot.engine(), request,
                deadline(startNanos), stages) : null;
        afterAnswer(review, bodyBytes, snapshot, request, decision, endpoint);
        return decision;
    }

    /**
     * Hands what the request's answer does not wait for to the shadow worker: the verdicts of its Warn rules (from
     * {@code decision}, null when no rule is enforced) and the Shadow rules' evaluation, of /mutate's request on the
     * object the enforced rules made (what would be stored), of /validate's on the request's; it holds the request
     * ({@code bodyBytes}) until then. A dry run stores nothing and is not recorded. The Shadow evaluation is a sample
     * under load: the worker skips it while its CPU budget is spent.
     */
    private void afterAnswer(AdmissionReview review, int bodyBytes, Snapshot snapshot, AdmissionRequest request,
                             Decision decision, Endpoint endpoint) {
        boolean warns = decision != null && snapshot.modes().containsValue(RuleMode.WARN);
        if (review.dryRun() || !warns && snapshot.shadow().isEmpty()) {
            return;
        }
        ImpactSink sink = shadow.sink();
        Runnable warned = warns
                ? () -> record(sink, AdmissionVerdicts.warned(snapshot, request, decision), RuleMode.WARN, request)
                : null;
        Optional<Snapshot> shadowRules = snapshot.shadow();
        ShadowWorker.Evaluation evaluation = shadowRules.isEmpty() ? null : new ShadowWorker.Evaluation(() -> {
            long deadline = deadline(System.nanoTime());
            record(sink, endpoint == Endpoint.MUTATE ? AdmissionVerdicts.mutate(snapshot, request, decision, deadline)
                    : AdmissionVerdicts.validate(snapshot, request, deadline), RuleMode.SHADOW, request);
        }, () -> scriptCpuNanos(shadowRules.get()));
        shadow.submit(bodyBytes, warned, evaluation);
    }

    /** The running total of the CPU time the Shadow rules' script calls took on their host's threads; 0 if none. */
    private static long scriptCpuNanos(Snapshot shadowRules) {
        return shadowRules.runtime(ScriptHost.class).map(ScriptHost::cpuNanos).orElse(0L);
    }

    private static void record(ImpactSink sink, List<RuleVerdict> verdicts, RuleMode mode,
                               AdmissionRequest request) {
        // The object as the request names it (a rule's changes do not rename it), in the request's namespace when
        // its manifest names none.
        ObjectRef named = ObjectRef.of(request.object() instanceof JsonObject o ? o
                : request.oldObject() instanceof JsonObject old ? old : JsonValue.EMPTY_JSON_OBJECT);
        ObjectRef object = named.namespace().isEmpty() ? new ObjectRef(named.apiVersion(), named.kind(),
                request.namespace(), named.name()) : named;
        verdicts.forEach(v -> sink.record(v.family(), v.rule(), mode, ImpactSink.Source.ADMISSION, object,
                v.verdict()));
    }

    /**
     * Why a rule of {@code family} is refused at admission: it does not read, or (a script rule) the tenant-scripts
     * option does not let its namespace run it; null when it is admitted.
     */
    private <R> String familyProblem(Family<R> family, JsonObject object, String id, AdmissionReview review) {
        R rule;
        try {
            rule = family.parse(object);
            RuleControls.read(object, family.canRefuse(rule));
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
        logDecision(review, what, rules, startNanos, null);
    }

    /** The decision's log line; {@code changedBy}, when not null, is its {@code changedBy} field (rule to paths). */
    private static void logDecision(AdmissionReview review, String what, List<String> rules, long startNanos,
                                    String changedBy) {
        if (!DECISIONS.isLoggable(Level.INFO)) {
            return; // decision lines turned off: skip gathering the fields
        }
        var fields = new LinkedHashMap<String, Object>();
        fields.put("rules", rules);
        if (changedBy != null) {
            fields.put("changedBy", changedBy);
        }
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
