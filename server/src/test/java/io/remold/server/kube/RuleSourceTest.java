package io.remold.server.kube;

import io.remold.server.existing.RuleEvents;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static io.remold.server.kube.Objects.PATCH_SPEC;
import static io.remold.server.kube.Objects.modRule;
import static io.remold.server.kube.Objects.object;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

class RuleSourceTest {
    private static final String KEY = "remold.io/v1beta1/modrules/team-a/r";
    private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

    record Write(RuleRef rule, ReadyCondition condition, String since) {
    }

    private final RecordingSink sink = new RecordingSink();
    /** Written to from script start threads too. */
    private final List<Write> writes = new java.util.concurrent.CopyOnWriteArrayList<>();
    private boolean leader = true;
    private final RuleSource source = new RuleSource("remold.io", "v1beta1", "modrules", RuleLoader.modRules(sink.families()), sink,
            (rule, condition, since) -> writes.add(new Write(rule, condition, since)), () -> leader,
            Clock.fixed(NOW, ZoneOffset.UTC), RuleEvents.NONE);

    @Test
    void addedRuleReachesTheSinkAndIsReportedReady() {
        source.onAdd(object(modRule("r", 1, PATCH_SPEC, null)));

        assertThat(sink.rules.keySet(), contains(KEY));
        assertThat(sink.rules.get(KEY).name(), is("r"));
        assertThat(writes, contains(new Write(new RuleRef("remold.io", "v1beta1", "modrules", "team-a", "r"),
                new ReadyCondition(true, "Compiled", "rule compiled", 1), NOW.toString())));
    }

    @Test
    void ourOwnStatusUpdateNeitherRecompilesNorWritesAgain() {
        var added = object(modRule("r", 1, PATCH_SPEC, null));
        source.onAdd(added);
        var withStatus = object(modRule("r", 1, PATCH_SPEC, "{'conditions':[{'type':'Ready','status':'True',"
                + "'reason':'Compiled','message':'rule compiled','observedGeneration':1,"
                + "'lastTransitionTime':'2026-01-02T03:04:05Z'}]}"));
        source.onUpdate(added, withStatus);

        assertThat(sink.puts, hasSize(1));
        assertThat(writes, hasSize(1));
    }

    @Test
    void specChangeRecompilesAndKeepsTheTransitionTimeWhileStillReady() {
        String status = "{'conditions':[{'type':'Ready','status':'True','reason':'Compiled',"
                + "'message':'rule compiled','observedGeneration':1,'lastTransitionTime':'2025-12-31T00:00:00Z'}]}";
        var first = object(modRule("r", 1, PATCH_SPEC, status));
        source.onAdd(first);
        assertThat("condition already up to date", writes, empty());

        var second = object(modRule("r", 2, PATCH_SPEC.replace("blue", "green"), status));
        source.onUpdate(first, second);

        assertThat(sink.puts, hasSize(2));
        assertThat(writes, hasSize(1));
        assertThat(writes.getFirst().condition().observedGeneration(), is(2L));
        assertThat(writes.getFirst().since(), is("2025-12-31T00:00:00Z"));
    }

    @Test
    void ruleThatDoesNotCompileIsKeptOutAndReportedWithItsField() {
        String broken = "{'type':'Patch','match':[{'select':'broken','matchValue':'x'}]}";
        source.onAdd(object(modRule("r", 3, broken, null)));

        assertThat(sink.rules.keySet(), empty());
        assertThat(writes, hasSize(1));
        ReadyCondition condition = writes.getFirst().condition();
        assertThat(condition.ready(), is(false));
        assertThat(condition.reason(), is("CompileError"));
        assertThat(condition.message(), is("spec.match[0].select (at 3): unexpected end"));
        assertThat(condition.observedGeneration(), is(3L));
    }

    /** The mode comes with the rule from the cluster; one the rule cannot have keeps it out, naming the field. */
    @Test
    void aRulesModeReachesTheSinkAndAnImpossibleOneNamesItsField() {
        var shadow = object(modRule("r", 1, PATCH_SPEC.replace("{'type':'Patch'", "{'type':'Patch','mode':'Shadow'"),
                null));
        source.onAdd(shadow);
        assertThat(sink.controls.get(KEY).mode(), is(io.remold.api.RuleMode.SHADOW));
        source.onUpdate(shadow, object(modRule("r", 2, PATCH_SPEC.replace("{'type':'Patch'",
                "{'type':'Patch','mode':'Warn'"), null)));
        assertThat(sink.rules.keySet(), empty());
        ReadyCondition condition = writes.getLast().condition();
        assertThat(condition.ready(), is(false));
        assertThat(condition.message(), containsString("spec.mode: Warn is for rules that refuse requests"));
    }

    @Test
    void unreadableRuleReplacesTheGoodVersionAndNamesTheField() {
        var good = object(modRule("r", 1, PATCH_SPEC, null));
        source.onAdd(good);
        var unreadable = object(modRule("r", 2, "{'type':'Mutate','match':[{'select':'$.kind'}]}", null));
        source.onUpdate(good, unreadable);

        assertThat(sink.rules.keySet(), empty());
        assertThat(sink.removes, contains(KEY));
        ReadyCondition condition = writes.getLast().condition();
        assertThat(condition.ready(), is(false));
        assertThat(condition.reason(), is("CompileError"));
        assertThat(condition.message(), containsString("spec.type: expected Patch or Reject"));
    }

    @Test
    void onlyTheLeaderWritesAndANewLeaderCatchesUp() {
        leader = false;
        source.onAdd(object(modRule("r", 1, PATCH_SPEC, null)));
        assertThat(sink.rules.keySet(), contains(KEY));
        assertThat(writes, empty());

        leader = true;
        source.writePending();
        assertThat(writes, hasSize(1));
        assertThat(writes.getFirst().condition().ready(), is(true));
    }

    @Test
    void deletedRuleLeavesTheSink() {
        var rule = object(modRule("r", 1, PATCH_SPEC, null));
        source.onAdd(rule);
        source.onDelete(rule, false);

        assertThat(sink.rules.keySet(), empty());
        assertThat(sink.removes, contains(KEY));
    }

    /** A schema conflict reported by the rule store makes a compiled rule not Ready, Gatekeeper's way; its end undoes it. */
    @Test
    void schemaConflictsTurnTheConditionAndBack() {
        source.onAdd(object(modRule("r", 1, PATCH_SPEC, null)));
        source.conflicts(java.util.Map.of(KEY, "Assign/b wants a list at spec.containers"));
        assertThat(writes.getLast().condition(), is(new ReadyCondition(false, "ErrConflictingSchema",
                "disabled by a schema conflict: Assign/b wants a list at spec.containers", 1)));
        source.conflicts(java.util.Map.of());
        assertThat(writes.getLast().condition(), is(new ReadyCondition(true, "Compiled", "rule compiled", 1)));
        assertThat(writes, hasSize(3));
    }

    /**
     * F1 in cluster mode: a script rule whose top level passes a sandbox bound is Ready at admission, then not Ready
     * naming the bound once its start (on a thread of its own, after the rule set was installed) has failed; a good
     * script stays Ready. The host is real; how the rule store maps a start to its key is RuleStoreTest's.
     */
    @Test
    void aScriptRuleWhoseStartFailsIsNotReadyAndNamesTheBound() throws InterruptedException {
        String validate = "function jsa_validate(op, obj) { return; }";
        source.onAdd(object(modRule("big", 1, "{'type':'Script','kinds':['pods'],'js':'var b = new ArrayBuffer(1 << 30); "
                + validate + "'}", null)));
        source.onAdd(object(modRule("good", 1, "{'type':'Script','kinds':['pods'],'js':'" + validate + "'}", null)));
        var ended = new java.util.concurrent.CountDownLatch(2);
        try (var host = io.remold.scripting.Scripts.host(io.remold.scripting.ScriptLimits.defaults())) {
            host.onStarted((rule, failure) -> {
                sink.scripts.forEach((key, r) -> {
                    if (r.equals(rule)) {
                        source.scriptStarted(key, failure);
                    }
                });
                ended.countDown();
            });
            host.stage(List.copyOf(sink.scripts.values()));
            assertThat(ended.await(30, java.util.concurrent.TimeUnit.SECONDS), is(true));
        }
        var big = new RuleRef("remold.io", "v1beta1", "modrules", "team-a", "big");
        var good = new RuleRef("remold.io", "v1beta1", "modrules", "team-a", "good");
        ReadyCondition last = writes.stream().filter(w -> w.rule().equals(big)).reduce((a, b) -> b).orElseThrow()
                .condition();
        assertThat(last.ready(), is(false));
        assertThat(last.reason(), is("StartError"));
        assertThat(last.message(), containsString("its start failed: loading the script or jsa_init failed"));
        assertThat(last.message(), containsString("16 MiB per ArrayBuffer"));
        assertThat(writes.stream().filter(w -> w.rule().equals(good)).map(Write::condition).toList(),
                contains(new ReadyCondition(true, "Compiled", "script compiled", 1)));
    }

    /** A start that succeeds again (a fixed script) makes the rule Ready again; a removed rule's failure is forgotten. */
    @Test
    void aSuccessfulStartUndoesAFailedOne() {
        String spec = "{'type':'Script','js':'function jsa_validate(op, obj) { return; }'}";
        source.onAdd(object(modRule("r", 1, spec, null)));
        source.scriptStarted(KEY, java.util.Optional.of("jsa_init threw"));
        assertThat(writes.getLast().condition(), is(new ReadyCondition(false, "StartError",
                "its start failed: jsa_init threw", 1)));
        source.scriptStarted(KEY, java.util.Optional.empty());
        assertThat(writes.getLast().condition(), is(new ReadyCondition(true, "Compiled", "script compiled", 1)));
        source.remove(new RuleRef("remold.io", "v1beta1", "modrules", "team-a", "r"));
        source.scriptStarted(KEY, java.util.Optional.of("too late"));
        assertThat(writes, hasSize(3));
    }

    /** Until our write comes back, the same rule delivered again (an event, the start-up catch-up) writes nothing. */
    @Test
    void aConditionOnItsWayIsNotWrittenTwice() {
        var added = object(modRule("r", 1, PATCH_SPEC, null));
        source.onAdd(added);
        source.onUpdate(added, added);
        source.writePending();
        assertThat(writes, hasSize(1));
    }

    @Test
    void providersAreInForceOrTakenOutWithTheirField() {
        var providers = new RuleSource("remold.io", "v1beta1", "providers", RuleLoader.PROVIDERS, sink,
                (rule, condition, since) -> writes.add(new Write(rule, condition, since)), () -> leader,
                Clock.fixed(NOW, ZoneOffset.UTC), RuleEvents.NONE);
        String key = "remold.io/v1beta1/providers//mirror";
        var good = object("{'apiVersion':'remold.io/v1beta1','kind':'Provider','metadata':{'name':'mirror',"
                + "'generation':1,'resourceVersion':'7'},'spec':{'url':'https://mirror.tools.svc/lookup'}}");
        providers.onAdd(good);
        assertThat(sink.providers.keySet(), contains(key));
        assertThat(writes.getLast().condition(), is(new ReadyCondition(true, "Compiled", "provider in force", 1)));

        var http = object("{'apiVersion':'remold.io/v1beta1','kind':'Provider','metadata':{'name':'mirror',"
                + "'generation':2,'resourceVersion':'8'},'spec':{'url':'http://mirror.tools.svc/lookup'}}");
        providers.onUpdate(good, http);
        assertThat(sink.providers.keySet(), empty());
        assertThat(writes.getLast().condition().message(), containsString("spec.url: only https:// URLs"));
    }
}
