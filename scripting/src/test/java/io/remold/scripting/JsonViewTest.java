package io.remold.scripting;

import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Value;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static io.remold.scripting.ScriptsTest.create;
import static io.remold.scripting.ScriptsTest.engine;
import static io.remold.scripting.ScriptsTest.json;
import static io.remold.scripting.ScriptsTest.rule;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

/**
 * Scripts get the object as views over the request's tree (JsonView): each script here runs through the engine and,
 * as the reference, on a plain object from {@code JSON.parse} of the object's text with its result read back from
 * {@code JSON.stringify} (the crossing the views replace). Both must give the same patch, or the same error, and a
 * script's observations of the object must be the same.
 */
class JsonViewTest {
    private static final JsonObject OBJECT = json("{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'d',"
            + "'namespace':'default','uid':'u1','labels':{'app':'web','7':'seven','10':'ten'}},'spec':{'replicas':3,"
            + "'ratio':0.5,'zero':-0,'big':12345678901234567890,'containers':[{'name':'a','image':'nginx',"
            + "'resources':{'limits':{'cpu':1.0}}},{'name':'b','image':'redis','args':['x','y']}],'empty':{},"
            + "'list':[]}}");
    private static final Context REFERENCE = Context.newBuilder("js").option("engine.WarnInterpreterOnly", "false")
            .build();

    private static final ScriptHost HOST = Scripts.host(ScriptsTest.GENEROUS);

    @AfterAll
    static void close() {
        REFERENCE.close();
        HOST.close();
    }

    /** The function's {@code Result} (or error) on the reference: a parsed copy, its result as text. */
    private static Object reference(String js, String function) {
        try {
            Value fn = REFERENCE.eval("js", "(function () {" + js + "\nreturn " + function + ";})()");
            Value text = REFERENCE.eval("js", "(f, op, t) => JSON.stringify(f(op, JSON.parse(t)))")
                    .execute(fn, "CREATE", OBJECT.toString());
            return text.isNull() ? JsonValue.NULL
                    : JsonTree.parse(text.asString().getBytes(StandardCharsets.UTF_8));
        } catch (PolyglotException e) {
            return e.getMessage();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "obj.metadata.labels = obj.metadata.labels || {}; obj.metadata.labels.team = 'a';",
        "obj.metadata.annotations = obj.metadata.annotations || {}; obj.metadata.annotations['x/y'] = 'z';",
        "obj.spec.containers.push({name: 'side', image: 'busybox'});",
        "obj.spec.containers.unshift({name: 'first'}); obj.spec.containers[1].image = 'nginx:2';",
        "obj.spec.containers.splice(0, 1);",
        "obj.spec.containers.pop(); obj.spec.containers.reverse();",
        "obj.spec.containers = obj.spec.containers.map(c => ({...c, image: 'registry.local/' + c.image}));",
        "for (const c of obj.spec.containers) c.image = 'registry.local/' + c.image;",
        "obj.spec.containers[1].args[5] = 'z';",
        "obj.spec = {...obj.spec, hostNetwork: true}; delete obj.spec.ratio;",
        "delete obj.metadata.uid; delete obj.spec.containers[0].resources.limits.cpu;",
        "obj.spec.initContainers = obj.spec.containers; obj.spec.containers[0].name = 'renamed';",
        "const l = obj.metadata.labels; obj.metadata = {name: 'n'}; l.gone = 'yes'; obj.metadata.kept = l;",
        "obj.spec.containers[0].resources.limits.cpu = obj.spec.containers[0].resources.limits.cpu * 1; obj.a = 1;",
        "obj.spec.containers[0].resources.limits.cpu = 2.5; obj.spec.replicas = 1e21; obj.spec.n = 0.1 + 0.2;",
        "obj.spec.nan = NaN; obj.spec.neg = -0; obj.spec.inf = -Infinity; obj.spec.big = obj.spec.big;",
        "obj.metadata.u = undefined; obj.metadata.f = function () {}; obj.spec.list.push(undefined, null);",
        "obj.metadata.name = 'lone \\ud800'; obj.metadata.emoji = '\\ud83d\\ude00'; obj.metadata.ctl = '\\u0001\"';",
        "obj.metadata.labels['3'] = 'three'; obj.metadata.labels.b = true; obj.spec.empty.k = [1, {a: 2}];",
        "obj.metadata.self = obj;",
        "obj.spec.containers[0].resources.mine = obj.spec.containers[0];",
        "obj.spec.date = new Date(0); obj.spec.wrapped = {toJSON() { return 'json'; }};",
        "obj.spec.containers[0] = obj.spec.containers[1]; obj.spec.containers[1].name = 'both';",
        "Object.assign(obj.metadata, {a: 1, b: [2]}); obj.kind = obj.kind.toLowerCase();",
    })
    void aMutationGivesThePatchOfTheTextCrossing(String body) {
        String js = "function jsa_mutate(op, obj) { " + body + " return {Allowed: true, Result: obj}; }";
        Object expected = reference(js, "jsa_mutate");
        Decision d = engine(HOST, rule("ClusterJsAdmission", null, "view", null, js)).mutate(create(OBJECT));
        var outcome = d.outcomes().getFirst();
        if (expected instanceof String error) {
            assertThat("the reference failed: " + error, outcome.error(), containsString(error.replaceAll(".*: ", "")));
            return;
        }
        assertThat(outcome.error(), nullValue());
        JsonValue result = ((JsonObject) expected).get("Result");
        assertThat(d.patch(), equalTo(Engine.diff(OBJECT, Reconcile.keep(OBJECT, result))));
        assertThat("every case changes something", d.patch(), not(hasSize(0)));
    }

    /**
     * A view kept in a global does not keep the request's tree: the sandbox never allocated it, so its life's bound
     * would not see a script hoarding one tree per call. The next call's use of it fails, naming why.
     */
    @Test
    void anObjectKeptInAGlobalIsReleasedWhenItsCallEnds() {
        ScriptRule rule = rule("ClusterJsAdmission", null, "hoard", null, """
                var kept = null;
                function jsa_validate(op, obj) {
                  const before = kept;
                  kept = obj.spec;
                  return {Allowed: before === null, Message: before === null ? '' : String(before.replicas)};
                }""");
        Engine engine = engine(HOST, rule);
        assertThat(engine.validate(create(OBJECT)).rejections(), hasSize(0));
        Decision second = engine.validate(create(OBJECT));
        assertThat(second.rejections(), hasSize(1));
        assertThat(second.rejections().getFirst().message(),
                containsString("the object of an earlier call is not kept after it"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "typeof obj", "typeof obj.spec.containers", "Array.isArray(obj.spec.containers)", "Array.isArray(obj)",
        "Object.keys(obj.metadata.labels)", "JSON.stringify(obj)", "JSON.stringify(obj.spec, null, 2)",
        "obj.metadata === obj.metadata", "obj.spec.containers[0] === obj.spec.containers[0]",
        "'uid' in obj.metadata", "'nope' in obj.metadata", "obj.metadata.hasOwnProperty('name')",
        "obj.spec.containers.length", "obj.spec.containers[5] === undefined", "obj.nothing === undefined",
        "(() => { const k = []; for (const x in obj.metadata.labels) k.push(x); return k; })()",
        "obj.spec.containers.map(c => c.name)", "[...obj.spec.containers[1].args]", "Object.entries(obj.spec)",
        "obj.spec.containers[0].resources.limits.cpu", "Object.is(obj.spec.zero, -0)", "obj.spec.big",
        "obj.spec.ratio + obj.spec.replicas", "({...obj.metadata})", "obj instanceof Object",
        "obj.spec.containers.indexOf(obj.spec.containers[1])", "obj.spec.containers.filter(c => c.args).length",
        "obj.spec.containers.slice(-1)[0].name", "obj.spec.containers.some(c => c.image === 'redis')",
        "obj.metadata.labels == null", "obj.metadata.annotations == null", "String(obj.spec.list)",
        "Object.keys(obj).length", "obj.spec.containers.join !== undefined", "obj.spec.containers.includes('x')",
    })
    void aScriptObservesTheObjectAsAParsedOne(String expression) {
        String js = "function jsa_validate(op, obj) { return {Allowed: false, Message: JSON.stringify(" + expression
                + ")}; }";
        Object expected = reference(js, "jsa_validate");
        Decision d = engine(HOST, rule("ClusterJsAdmission", null, "observe", null, js)).validate(create(OBJECT));
        assertThat(d.rejections(), hasSize(1));
        assertThat(expression, d.rejections().getFirst().message(),
                equalTo(((JsonObject) expected).getString("Message")));
    }
}
