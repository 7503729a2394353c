package io.remold.server;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.ModRuleException;
import io.remold.api.ModRules;
import io.remold.api.Provider;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.RuleCompilation;
import io.remold.engine.RuleOutcome;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.gatekeeper.mutators.InvalidMutatorException;
import io.remold.scripting.InvalidScriptException;
import io.remold.scripting.Scripts;
import io.remold.json.JsonTree;
import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParsingException;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
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
    private static final byte[] NOOP_RESPONSE = AdmissionReview.Response.allow("noop").toJson();

    private final RuleStore store;
    private final ClusterRefs refs;
    private final BindingListener bindings;
    private final Metrics metrics;
    private final long maxBodyBytes;

    /** An answer other than an AdmissionReview: status code and reason. */
    private static final class Problem extends RuntimeException {
        final int code;

        Problem(int code, String reason) {
            super(reason);
            this.code = code;
        }
    }

    /** The response and how it counts in the metrics. */
    private record Result(AdmissionReview.Response response, Metrics.Outcome outcome) {
    }

    AdmissionEndpoints(RuleStore store, ClusterRefs refs, BindingListener bindings, Metrics metrics,
                       long maxBodyBytes) {
        this.store = store;
        this.refs = refs;
        this.bindings = bindings;
        this.metrics = metrics;
        this.maxBodyBytes = maxBodyBytes;
    }

    void register(HttpRules rules) {
        rules.post("/mutate", (req, res) -> handle(Metrics.Endpoint.mutate, req, res, this::mutate))
                .post("/validate", (req, res) -> handle(Metrics.Endpoint.validate, req, res, this::validate))
                .post("/validate-modrule",
                        (req, res) -> handle(Metrics.Endpoint.validate_modrule, req, res, this::validateModRule))
                .post("/noop", this::noop);
    }

    /** Benchmark aid: reads the body and answers a fixed allow, the ceiling for /mutate's throughput. */
    private void noop(ServerRequest req, ServerResponse res) throws IOException {
        long start = System.nanoTime();
        try (InputStream in = req.content().inputStream()) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        send(res, 200, NOOP_RESPONSE);
        metrics.request(Metrics.Endpoint.noop, Metrics.Outcome.allowed, System.nanoTime() - start);
    }

    private void handle(Metrics.Endpoint endpoint, ServerRequest req, ServerResponse res,
                        Function<AdmissionReview, Result> decide) {
        long start = System.nanoTime();
        Metrics.Outcome outcome;
        try {
            AdmissionReview review = AdmissionReview.parse(readBody(req));
            Result result;
            try {
                result = decide.apply(review);
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, endpoint.path() + ": evaluation of request " + review.uid() + " failed", e);
                throw new Problem(500, "evaluation failed: " + e);
            }
            send(res, 200, result.response().toJson());
            outcome = result.outcome();
        } catch (AdmissionReview.Invalid e) {
            sendReason(res, 400, e.getMessage());
            outcome = Metrics.Outcome.bad_request;
        } catch (Problem e) {
            sendReason(res, e.code, e.getMessage());
            outcome = e.code >= 500 ? Metrics.Outcome.error : Metrics.Outcome.bad_request;
        }
        metrics.request(endpoint, outcome, System.nanoTime() - start);
    }

    private JsonValue readBody(ServerRequest req) {
        String contentType = req.headers().first(HeaderNames.CONTENT_TYPE).orElse("");
        if (!contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            throw new Problem(415, "Content-Type must be application/json, got \"" + contentType + "\"");
        }
        OptionalLong length = req.headers().contentLength();
        if (length.isPresent() && length.getAsLong() > maxBodyBytes) {
            throw new Problem(413, "body of " + length.getAsLong() + " bytes exceeds the limit of " + maxBodyBytes);
        }
        byte[] body;
        try (InputStream in = req.content().inputStream()) {
            body = length.isPresent() ? readExactly(in, (int) length.getAsLong())
                    : in.readNBytes((int) maxBodyBytes + 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (body.length > maxBodyBytes) {
            throw new Problem(413, "body exceeds the limit of " + maxBodyBytes + " bytes");
        }
        try {
            return JsonTree.parse(body, DEFERRED);
        } catch (JsonParsingException e) {
            throw new Problem(400, "malformed JSON: " + e.getMessage());
        }
    }

    /**
     * A body of known length straight into an array of its size: {@code readNBytes(limit)} went through 16 KB chunks
     * and a final copy, 3-4% of /mutate's CPU. A body shorter than announced is refused with 400 (Helidon closes an
     * HTTP/1.1 connection that ends early itself; the check keeps a zero-filled tail from reaching the parser).
     */
    static byte[] readExactly(InputStream in, int length) throws IOException {
        byte[] body = new byte[length];
        int read = in.readNBytes(body, 0, length);
        if (read < length) {
            throw new Problem(400, "body ended after " + read + " of the " + length + " bytes in Content-Length");
        }
        return body;
    }

    private Result mutate(AdmissionReview review) {
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
        Decision decision = engine.mutate(request(review));
        var patchedBy = new ArrayList<String>();
        var mutatedBy = new ArrayList<String>();
        var scriptedBy = new ArrayList<String>();
        var warnings = new ArrayList<String>();
        for (RuleOutcome outcome : decision.outcomes()) {
            if (!outcome.matched()) {
                continue;
            }
            metrics.rule(outcome.rule(), Metrics.RuleEvent.match);
            boolean mutator = Gatekeeper.isStageOutcome(outcome.rule());
            boolean script = Scripts.isStageOutcome(outcome.rule());
            if (outcome.error() != null) {
                metrics.rule(outcome.rule(), Metrics.RuleEvent.error);
                warnings.add((mutator ? "Gatekeeper mutation " : script ? "script " : "ModRule ") + outcome.rule()
                        + " failed: " + outcome.error());
            } else if (script) {
                if (!outcome.applied().isEmpty()) {
                    metrics.rule(outcome.rule(), Metrics.RuleEvent.patch);
                    scriptedBy.add(outcome.rule());
                }
            } else if (mutator) {
                metrics.rule(outcome.rule(), Metrics.RuleEvent.patch);
                mutatedBy.add(outcome.rule());
            } else if (!outcome.applied().isEmpty()) {
                metrics.rule(outcome.rule(), Metrics.RuleEvent.patch);
                patchedBy.add(outcome.rule());
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
        if (!scriptedBy.isEmpty()) {
            warnings.addFirst("mutated by script(s): " + String.join(", ", scriptedBy));
            audit.put("scripted-by", String.join(",", scriptedBy));
        }
        if (!mutatedBy.isEmpty()) {
            warnings.addFirst("mutated by Gatekeeper mutator(s): " + String.join(", ", mutatedBy));
            audit.put("mutated-by", String.join(",", mutatedBy));
        }
        if (!patchedBy.isEmpty()) {
            warnings.addFirst("patched by ModRule(s): " + String.join(", ", patchedBy));
            audit.put("patched-by", String.join(",", patchedBy));
        }
        patchedBy.addAll(mutatedBy);
        patchedBy.addAll(scriptedBy);
        logDecision(review, decision.patch().isEmpty() ? "rule failed" : "patched", patchedBy, start);
        var response = new AdmissionReview.Response(review.uid(),
                decision.patch().isEmpty() ? null : decision.patch(), warnings, audit, null);
        return new Result(response, decision.patch().isEmpty() ? Metrics.Outcome.allowed : Metrics.Outcome.patched);
    }

    private Result validate(AdmissionReview review) {
        Engine engine = store.engine();
        if (engine.ruleCount() + engine.validationStageRuleCount() == 0 || refs.ignored(review.namespace())) {
            return allowed(review);
        }
        long start = System.nanoTime();
        Decision decision = engine.validate(request(review));
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
     * Admission of ModRules, Gatekeeper mutators, script rules and external data Providers: refuses one that does not
     * read or does not compile.
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
        if (Scripts.isScript(object)) {
            try {
                Scripts.parse(object);
                problem = null;
            } catch (InvalidScriptException e) {
                problem = object.getString("kind", "script") + " " + id + " is invalid: " + e.getMessage();
            }
        } else if (Gatekeeper.isMutator(object)) {
            try {
                Gatekeeper.parse(object);
                problem = null;
            } catch (InvalidMutatorException e) {
                problem = object.getString("kind", "mutator") + " " + id + " is invalid: " + e.getMessage();
            }
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
                RuleCompilation compilation = store.compile(rule);
                problem = compilation.ok() ? null : "ModRule " + id + " is invalid: " + compilation.errors().stream()
                        .map(RuleCompilation.Problem::toString).reduce((a, b) -> a + "; " + b).orElseThrow();
            } catch (ModRuleException e) {
                problem = e.getMessage();
            }
        }
        if (problem == null) {
            return allowed(review);
        }
        var response = new AdmissionReview.Response(review.uid(), null, List.of(), Map.of(),
                new AdmissionReview.Response.Denial(422, problem));
        return new Result(response, Metrics.Outcome.rejected);
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

    private static void sendReason(ServerResponse res, int code, String reason) {
        var out = new StringWriter();
        try (var g = AdmissionReview.JSON.createGenerator(out)) {
            g.writeStartObject().write("code", code).write("reason", reason).writeEnd();
        }
        send(res, code, out.toString().getBytes(StandardCharsets.UTF_8));
    }
}
