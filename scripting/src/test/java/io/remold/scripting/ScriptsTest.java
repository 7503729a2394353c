package io.remold.scripting;

import io.remold.api.AdmissionOperation;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.StageContext;
import io.remold.templating.ExternalData;
import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The function contract of js-admissions-controller, through the engine as the server runs it. */
class ScriptsTest {
    /** Limits that a loaded build machine never reaches: these tests are about the contract, not the bounds. */
    static final ScriptLimits GENEROUS = new ScriptLimits(java.time.Duration.ofSeconds(30),
            java.time.Duration.ofSeconds(60), 10_000_000L, 1L << 30, 2);
    static final ScriptHost HOST = Scripts.host(GENEROUS);

    @AfterAll
    static void close() {
        HOST.close();
    }

    static JsonObject json(String text) {
        return (JsonObject) JsonTree.parse(text.replace('\'', '"').getBytes(StandardCharsets.UTF_8));
    }

    static ScriptRule rule(String kind, String namespace, String name, String kinds, String js) {
        var spec = jakarta.json.Json.createObjectBuilder().add("js", js);
        if (kinds != null) {
            spec.add("kinds", jakarta.json.Json.createArrayBuilder(List.of(kinds.split(","))));
        }
        var metadata = jakarta.json.Json.createObjectBuilder().add("name", name);
        if (namespace != null) {
            metadata.add("namespace", namespace);
        }
        return Scripts.parse(jakarta.json.Json.createObjectBuilder().add("apiVersion", "momiji.com/v1")
                .add("kind", kind).add("metadata", metadata).add("spec", spec).build());
    }

    static Engine engine(ScriptHost host, ScriptRule... rules) {
        ScriptStage stage = host.stage(List.of(rules));
        return Engine.builder().stage(stage).build();
    }

    static final JsonObject POD = json("{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','namespace':"
            + "'default','uid':'u1'},'spec':{'containers':[{'name':'c','image':'nginx','resources':{'limits':"
            + "{'cpu':1.0}}}]}}");

    static AdmissionRequest create(JsonObject object) {
        return new AdmissionRequest(AdmissionOperation.CREATE, "default", object, null, null, null, false);
    }

    @Test
    void readmeAnnotationExampleRunsUnchanged() {
        ScriptRule rule = rule("ClusterJsAdmission", null, "sample-add-annotations", "pods", """
                function jsa_mutate(op, obj, sync, state) {
                  if (op != "CREATE") return;
                  if (obj.metadata.annotations == null)
                    obj.metadata.annotations = {}
                  obj.metadata.annotations["jsadmissions/sample-add-annotation"] = new Date().toISOString()
                  return { Allowed: true, Result: obj }
                }
                """);
        Decision d = engine(HOST, rule).mutate(create(POD));
        assertThat(d.patch(), hasSize(1));
        assertThat(d.patch().getJsonObject(0).getString("path"), is("/metadata/annotations"));
        assertThat(d.patch().getJsonObject(0).getJsonObject("value")
                        .getString("jsadmissions/sample-add-annotation"),
                matchesPattern("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"));
        assertThat(d.outcomes().getFirst().rule(), is("ClusterJsAdmission/sample-add-annotations"));
        // UPDATE: the script returns undefined, nothing changes.
        var update = new AdmissionRequest(AdmissionOperation.UPDATE, "default", POD, POD, null, null, false);
        assertThat(engine(HOST, rule).mutate(update).patch(), is(empty()));
    }

    @Test
    void examplesDateAnnotationOnlyForPods() {
        ScriptRule rule = rule("ClusterJsAdmission", null, "date", null, """
                function jsa_mutate(op, obj) {
                  if (op != "CREATE" || obj.kind !== "Pod") return;
                  if (obj.metadata.annotations == null)
                    obj.metadata.annotations = {};
                  obj.metadata.annotations["jsadmissions/date"] = new Date().toISOString();
                  return { Allowed: true, Result: obj };
                }
                """);
        Engine engine = engine(HOST, rule);
        assertThat(engine.mutate(create(POD)).patch().getJsonObject(0).getJsonObject("value")
                .containsKey("jsadmissions/date"), is(true));
        JsonObject cm = json("{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'c'}}");
        assertThat(engine.mutate(create(cm)).patch(), is(empty()));
    }

    @Test
    void parametersByNameInAnyOrder() {
        ScriptRule rule = rule("ClusterJsAdmission", null, "order", null, """
                function jsa_validate(obj, op) {
                  return { Allowed: op === "CREATE" && obj.kind === "ConfigMap", Message: op + " " + obj.kind };
                }
                """);
        Decision d = engine(HOST, rule).validate(create(POD));
        assertThat(d.rejectionMessage(), containsString("ClusterJsAdmission/order: \"CREATE Pod\""));
    }

    @Test
    void allowedMustBeExactlyFalseToRefuse() {
        for (String answer : List.of("undefined", "null", "{}", "{Allowed: 0}", "{Allowed: 'false'}", "{Allowed: true}",
                "true", "'no'")) {
            ScriptRule rule = rule("ClusterJsAdmission", null, "a", null,
                    "function jsa_validate(obj) { return " + answer + "; }");
            assertThat(answer, engine(HOST, rule).validate(create(POD)).allowed(), is(true));
        }
        ScriptRule refuse = rule("ClusterJsAdmission", null, "a", null,
                "function jsa_validate(obj) { return {Allowed: false}; }");
        Decision d = engine(HOST, refuse).validate(create(POD));
        assertThat(d.allowed(), is(false));
        assertThat(d.rejections().getFirst().message(), nullValue());
    }

    @Test
    void mutationRefusalDeniesTheRequest() {
        ScriptRule rule = rule("ClusterJsAdmission", null, "m", null, """
                function jsa_mutate(obj) { return { Allowed: false, Message: "no", Result: {} }; }
                """);
        Decision d = engine(HOST, rule).mutate(create(POD));
        assertThat(d.allowed(), is(false));
        assertThat(d.patch(), is(empty()));
        assertThat(d.rejectionMessage(), containsString("ClusterJsAdmission/m: \"no\""));
    }

    @Test
    void resultWithoutAllowedStillPatchesAndUnchangedNumbersMakeNoOperation() {
        ScriptRule rule = rule("ClusterJsAdmission", null, "r", null, """
                function jsa_mutate(obj) { obj.metadata.labels = {a: "b"}; return { Result: obj }; }
                """);
        Decision d = engine(HOST, rule).mutate(create(POD));
        // cpu: 1.0 comes back from JavaScript as 1: equal, so only the label is patched.
        assertThat(d.patch().toString(), is("[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"a\":\"b\"}}]"));
    }

    @Test
    void jsAdmissionAppliesToItsNamespaceOnly() {
        ScriptRule rule = rule("JsAdmission", "team-a", "ns", null,
                "function jsa_validate(obj) { return {Allowed: false, Message: 'team-a only'}; }");
        Engine engine = engine(HOST, rule);
        assertThat(engine.validate(create(POD)).allowed(), is(true));
        var inTeamA = new AdmissionRequest(AdmissionOperation.CREATE, "team-a", POD, null, null, null, false);
        assertThat(engine.validate(inTeamA).rejectionMessage(), containsString("JsAdmission/team-a/ns: \"team-a only\""));
    }

    @Test
    void kindsLimitTheObjectsAScriptSees() {
        ScriptRule rule = rule("ClusterJsAdmission", null, "k", "deployments",
                "function jsa_validate(obj) { return {Allowed: false}; }");
        assertThat(engine(HOST, rule).validate(create(POD)).allowed(), is(true));
        ScriptRule pods = rule("ClusterJsAdmission", null, "k", "pods",
                "function jsa_validate(obj) { return {Allowed: false}; }");
        assertThat(engine(HOST, pods).validate(create(POD)).allowed(), is(false));
        assertThat(ScriptStage.resource("Ingress"), is("ingresses"));
        assertThat(ScriptStage.resource("NetworkPolicy"), is("networkpolicies"));
    }

    @Test
    void namespacedRulesRunBeforeClusterRulesInNameOrder() {
        ScriptRule clusterA = rule("ClusterJsAdmission", null, "a",
                null, "function jsa_mutate(obj) { obj.metadata.labels = Object.assign(obj.metadata.labels || {}, {order: (obj.metadata.labels||{}).order + ',ca'}); return {Result: obj}; }");
        ScriptRule nsB = rule("JsAdmission", "default", "b",
                null, "function jsa_mutate(obj) { obj.metadata.labels = {order: 'nb'}; return {Result: obj}; }");
        ScriptRule nsC = rule("JsAdmission", "default", "c",
                null, "function jsa_mutate(obj) { obj.metadata.labels.order += ',nc'; return {Result: obj}; }");
        Decision d = engine(HOST, clusterA, nsC, nsB).mutate(create(POD));
        assertThat(((JsonObject) d.result()).getJsonObject("metadata").getJsonObject("labels").getString("order"),
                is("nb,nc,ca"));
    }

    @Test
    void stateIsReadOnlyWithoutSync() {
        ScriptRule rule = rule("ClusterJsAdmission", null, "ro", null, """
                function jsa_init(state) { state.n = 1; }
                function jsa_validate(obj, state) { state.n = 99; return {Allowed: false, Message: "n=" + state.n}; }
                """);
        ScriptHost host = Scripts.host(GENEROUS);
        try (host) {
            Engine engine = engine(host, rule);
            assertThat(engine.validate(create(POD)).rejections().getFirst().message(), is("n=1"));
            assertThat(host.state(rule.id()), is("{\"n\":1}"));
        }
    }

    @Test
    void loggingFunctionsAreThere() {
        ScriptRule rule = rule("ClusterJsAdmission", null, "log", null, """
                function jsa_validate(obj) {
                  jsa_log("pod", obj.metadata.name, {a: 1}); jsa_logf("%s has %d containers", obj.metadata.name, 1);
                  jsa_debug("x"); jsa_debugf("%v", 2);
                  return {Allowed: false, Message: typeof jsa_logf};
                }
                """);
        assertThat(engine(HOST, rule).validate(create(POD)).rejections().getFirst().message(), is("function"));
    }

    @Test
    void invalidManifestsNameTheField() {
        var e = assertThrows(InvalidScriptException.class, () -> rule("ClusterJsAdmission", null, "x", null,
                "function jsa_mutate(op, objekt) { return; }"));
        assertThat(e.field(), is("spec.js"));
        assertThat(e.reason(), containsString("unknown parameter objekt"));
        e = assertThrows(InvalidScriptException.class, () -> rule("ClusterJsAdmission", null, "x", null,
                "function jsa_mutate(op, obj) {\n  return {;\n}"));
        assertThat(e.reason(), containsString("syntax error at line 2"));
        e = assertThrows(InvalidScriptException.class, () -> rule("ClusterJsAdmission", null, "x", null,
                "function helper() {}"));
        assertThat(e.reason(), containsString("declares none"));
        e = assertThrows(InvalidScriptException.class, () -> rule("Other", null, "x", null, "function jsa_init(){}"));
        assertThat(e.field(), is("kind"));
    }

    @Test
    void aMutationThatThrowsFailsOpenWithTheReason() {
        ScriptRule bad = rule("ClusterJsAdmission", null, "bad", null,
                "function jsa_mutate(obj) { throw new Error('boom'); }");
        ScriptRule good = rule("ClusterJsAdmission", null, "good", null,
                "function jsa_mutate(obj) { obj.metadata.labels = {ok: 'yes'}; return {Result: obj}; }");
        Decision d = engine(HOST, bad, good).mutate(create(POD));
        assertThat(d.allowed(), is(true));
        assertThat(d.patch(), hasSize(1));
        assertThat(d.outcomes().getFirst().error(), containsString("boom"));
        assertThat(d.outcomes().get(1).error(), nullValue());
    }

    @Test
    void aValidationThatThrowsFailsClosedWithTheReason() {
        ScriptRule bad = rule("ClusterJsAdmission", null, "bad", null,
                "function jsa_validate(obj) { return obj.spec.nothing.here; }");
        Decision d = engine(HOST, bad).validate(create(POD));
        assertThat(d.allowed(), is(false));
        assertThat(d.rejectionMessage(), containsString("ClusterJsAdmission/bad: \"jsa_validate"));
        assertThat(d.rejections().getFirst().message(), containsString("TypeError"));
    }

    @Test
    void aRemoldModRuleOfTypeScriptIsTheSameRuleScopedToItsNamespace() {
        JsonObject manifest = json("{'apiVersion':'remold.io/v1beta1','kind':'ModRule','metadata':{'name':'label',"
                + "'namespace':'default'},'spec':{'type':'Script','kinds':['pods'],'js':'function jsa_mutate(obj) {"
                + " obj.metadata.labels = {by: \\'script\\'}; return {Result: obj}; }'}}");
        assertThat(Scripts.isScript(manifest), is(true));
        ScriptRule rule = Scripts.parse(manifest);
        assertThat(rule.id(), equalTo("ModRule/default/label"));
        Engine engine = engine(HOST, rule);
        var decision = engine.mutate(create(POD));
        assertThat(decision.patch(), hasSize(1));
        assertThat(decision.outcomes().getFirst().family(), is(Scripts.FAMILY));
        var elsewhere = new AdmissionRequest(AdmissionOperation.CREATE, "other", POD, null, null, null, false);
        assertThat(engine.mutate(elsewhere).patch(), empty());

        var e = assertThrows(InvalidScriptException.class, () -> Scripts.parse(json("{'apiVersion':'remold.io/v1beta1',"
                + "'kind':'ModRule','metadata':{'name':'x'},'spec':{'type':'Script','js':'function jsa_init(){}',"
                + "'match':[{'select':'$'}]}}")));
        assertThat(e.field(), is("spec.match"));
        // as the API server stores it: the CRD's defaults filled in
        assertThat(Scripts.parse(json("{'apiVersion':'remold.io/v1beta1','kind':'ModRule','metadata':{'name':'x'},"
                + "'spec':{'type':'Script','js':'function jsa_init(){}','admissionOperations':['CREATE','UPDATE'],"
                + "'executionTier':0}}")).id(), equalTo("ModRule/x"));
        e = assertThrows(InvalidScriptException.class, () -> Scripts.parse(json("{'apiVersion':'remold.io/v1beta1',"
                + "'kind':'ModRule','metadata':{'name':'x'},'spec':{'type':'Script','js':'function jsa_init(){}',"
                + "'executionTier':3}}")));
        assertThat(e.field(), is("spec.executionTier"));
        assertThat(Scripts.isScript(json("{'apiVersion':'remold.io/v1beta1','kind':'ModRule','spec':{'type':'Patch'}}")),
                is(false));
    }

    /** What a caller's script calls cost besides its own thread (the shadow worker's CPU budget charges it). */
    @Test
    void theHostCountsTheCpuTimeItsCallsTookOnItsThreads() {
        try (ScriptHost host = Scripts.host(GENEROUS)) {
            assertThat(host.cpuNanos(), is(0L));
            ScriptRule rule = rule("ClusterJsAdmission", null, "spin", null, """
                    function jsa_validate(obj) {
                      let n = 0;
                      for (let i = 0; i < 100000; i++) { n += i % 7; }
                      return {Allowed: n >= 0};
                    }
                    """);
            Engine engine = engine(host, rule);
            assertThat(engine.validate(create(POD)).allowed(), is(true));
            long first = host.cpuNanos();
            assertThat(first > 0, is(true));
            assertThat(engine.validate(create(POD)).allowed(), is(true));
            assertThat(host.cpuNanos() > first, is(true));
        }
    }

    @Test
    void aNamespacedRuleHearsOnlyOfItsNamespacesObjects() {
        try (ScriptHost host = Scripts.host(GENEROUS)) {
            ScriptRule tenant = rule("JsAdmission", "default", "count", "pods", "function jsa_init(state) {"
                    + " state.n = 0; } function jsa_created(obj, sync, state) { state.n++; }");
            host.stage(List.of(tenant));
            host.created("pods", POD);
            host.created("pods", json("{'kind':'Pod','metadata':{'name':'q','namespace':'kube-system','uid':'u2'}}"));
            assertThat(host.state(tenant.id()), equalTo("{\"n\":1}"));
        }
    }

    @Test
    void anUnknownParameterIsReportedWithTheParametersOfItsFunctionInOrder() {
        var e = assertThrows(InvalidScriptException.class, () -> rule("ClusterJsAdmission", null, "x", null,
                "function jsa_init(state, obj) {}"));
        assertThat(e.reason(), containsString("unknown parameter obj (expected some of state, sync, in any order)"));
        e = assertThrows(InvalidScriptException.class, () -> rule("ClusterJsAdmission", null, "x", null,
                "function jsa_updated(obj, op) {}"));
        assertThat(e.reason(), containsString("(expected some of obj, old, sync, state, in any order)"));
        assertThat(rule("ClusterJsAdmission", null, "x", null, "function jsa_init(sync, state) {}")
                .functions().get("jsa_init"), equalTo(List.of("sync", "state")));
    }

    @Test
    void aClusterRuleOrOneReadWithoutANamespaceIsClusterWide() {
        String js = "function jsa_init() {}";
        assertThat(rule("ClusterJsAdmission", null, "c", null, js).clusterWide(), is(true));
        assertThat(rule("JsAdmission", "team-a", "n", null, js).clusterWide(), is(false));
        assertThat(rule("JsAdmission", null, "n", null, js).clusterWide(), is(true));
        var cluster = new ScriptRule(Scripts.CLUSTER, "team-a", "c", List.of(), js, java.util.Map.of());
        assertThat("the kind decides, whatever the namespace", cluster.clusterWide(), is(true));
    }

    /** Counts how often the object is serialised; every other method is the object's own. */
    static JsonObject counting(JsonObject object, java.util.concurrent.atomic.AtomicInteger serialised) {
        return (JsonObject) java.lang.reflect.Proxy.newProxyInstance(JsonObject.class.getClassLoader(),
                new Class<?>[] {JsonObject.class}, (proxy, method, args) -> {
                    if (method.getName().equals("toString") && method.getParameterCount() == 0) {
                        serialised.incrementAndGet();
                    }
                    try {
                        return method.invoke(object, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void scriptsReadTheObjectThroughViewsWithoutSerialisingIt() {
        ScriptRule byOp = rule("ClusterJsAdmission", null, "op", null,
                "function jsa_validate(op) { return {Allowed: op === 'CREATE'}; }");
        ScriptRule byObj1 = rule("ClusterJsAdmission", null, "obj1", null,
                "function jsa_validate(obj) { return {Allowed: obj.kind === 'Pod'}; }");
        ScriptRule byObj2 = rule("ClusterJsAdmission", null, "obj2", null,
                "function jsa_validate(op, obj) { return {Allowed: obj.metadata.name === 'p'}; }");
        var serialised = new java.util.concurrent.atomic.AtomicInteger();
        JsonObject pod = counting(POD, serialised);
        var rejections = new java.util.ArrayList<io.remold.engine.Rejection>();
        var context = new StageContext(create(pod), ExternalData.NONE, io.remold.engine.ReferenceResolver.NONE,
                System.nanoTime() + ExternalData.REQUEST_BUDGET.toNanos(), new java.util.ArrayList<>(), rejections);
        HOST.stage(List.of(byOp)).validate(pod, context);
        assertThat(serialised.get(), is(0));
        HOST.stage(List.of(byOp, byObj1, byObj2)).validate(pod, context);
        assertThat("the scripts read obj.kind and obj.metadata.name through views", serialised.get(), is(0));
        assertThat(rejections, is(empty()));
    }

    @Test
    void aCallThatEndsAfterItsRuleLeftTheRuleSetClosesItsSandboxInsteadOfPoolingIt() throws Exception {
        ScriptRule rule = rule("ClusterJsAdmission", null, "gone", null,
                "function jsa_validate(obj) { return {Allowed: false, Message: obj.kind}; }");
        try (var calls = new Calls(GENEROUS)) {
            var runtime = new RuleRuntime(rule, calls, GENEROUS);
            var pod = POD;
            long deadline = System.nanoTime() + GENEROUS.callDeadline().toNanos();
            runtime.call("jsa_validate", "CREATE", pod, null, deadline);
            assertThat(runtime.idleSandboxes(), is(1));
            runtime.close();
            assertThat(runtime.idleSandboxes(), is(0));
            // as a call of the previous stage still serving a request: answered, its sandbox not kept
            var returned = runtime.call("jsa_validate", "CREATE", pod, null, deadline);
            assertThat(returned.value().toString(), is("{\"Allowed\":false,\"Message\":\"Pod\"}"));
            assertThat(runtime.idleSandboxes(), is(0));
        }
    }

    @Test
    void theWatchdogTicksOnlyWhileCallsRun() throws Exception {
        try (var calls = new Calls(GENEROUS)) {
            assertThat(calls.idle(), is(true));
            var ranWhileWatched = calls.run(null, System.nanoTime() + GENEROUS.callDeadline().toNanos(),
                    call -> !calls.idle());
            assertThat(ranWhileWatched, is(true));
            ScriptIsolationTest.await(calls::idle); // at the next tick
        }
    }

    @Test
    void ruleIdsNameKindNamespaceAndName() {
        assertThat(rule("JsAdmission", "ns", "n", null, "function jsa_init(){}").id(), equalTo("JsAdmission/ns/n"));
    }
}
