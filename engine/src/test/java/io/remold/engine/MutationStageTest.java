package io.remold.engine;

import io.remold.api.AdmissionOperation;
import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.remold.engine.Rules.rule;
import static io.remold.engine.TestJson.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.sameInstance;

class MutationStageTest {
    private static final String POD = "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'web','labels':{'app':'a'}}}";

    /** Copies label {@code from} into label {@code to}, or fails when told to. */
    private record CopyLabel(String name, String from, String to, boolean fail) implements MutationStage {
        static final RuleFamily FAMILY = new RuleFamily("label copy", "copied by", "copied-by");

        @Override
        public RuleFamily family() {
            return FAMILY;
        }

        @Override
        public int ruleCount() {
            return 1;
        }

        @Override
        public JsonObject mutate(JsonObject object, StageContext context) {
            if (fail) {
                context.outcomes().add(new RuleOutcome(FAMILY, name, 0, true, -1, null, JsonValue.EMPTY_JSON_ARRAY,
                        "broken"));
                return object;
            }
            JsonObject metadata = object.getJsonObject("metadata");
            JsonObject labels = metadata.getJsonObject("labels");
            if (!(labels.get(from) instanceof JsonString value)) {
                return object;
            }
            JsonObject result = JsonTree.with(object, "metadata",
                    JsonTree.with(metadata, "labels", JsonTree.with(labels, to, value)));
            context.outcomes().add(new RuleOutcome(FAMILY, name, 0, true, -1, null, Engine.diff(object, result),
                    null));
            return result;
        }
    }

    private static final String SET_B = "{type: Patch, match: [{select: '$.kind', matchValue: Pod}],"
            + " patch: [{op: add, path: /metadata/labels/b, value: from-modrule}]}";

    @Test
    void stagesRunAfterModRulesOnTheirResultAndShareOnePatch() {
        Engine engine = Engine.builder().rule(rule("ns", "set-b", SET_B))
                .stage(new CopyLabel("copy-b-to-c", "b", "c", false))
                .stage(new CopyLabel("copy-c-to-d", "c", "d", false)).build();
        Decision decision = engine.mutate(AdmissionRequest.create("ns", json(POD)));
        assertThat(decision.patch(), equalTo(json("""
                [{'op':'add','path':'/metadata/labels/b','value':'from-modrule'},
                 {'op':'add','path':'/metadata/labels/c','value':'from-modrule'},
                 {'op':'add','path':'/metadata/labels/d','value':'from-modrule'}]""")));
        assertThat(decision.outcomes().stream().map(RuleOutcome::rule).toList(),
                contains("ns/set-b", "copy-b-to-c", "copy-c-to-d"));
        assertThat(engine.ruleCount(), equalTo(1));
        assertThat(engine.stageRuleCount(), equalTo(2));
    }

    /** Each family's stage that ran is reported once, in the order it ran, within the request's time. */
    @Test
    void theStagesThatRanAreReportedInOrderWithTheirTimes() {
        Engine engine = Engine.builder().rule(rule("ns", "set-b", SET_B))
                .stage(new CopyLabel("copy-b-to-c", "b", "c", false)).build();
        var ran = new java.util.ArrayList<RuleFamily>();
        long before = System.nanoTime();
        engine.mutate(AdmissionRequest.create("ns", json(POD)), before + 1_000_000_000L, (family, start, end) -> {
            assertThat(family + " starts before it ends", start <= end, equalTo(true));
            assertThat(family + " within the request", start >= before && end <= System.nanoTime(), equalTo(true));
            ran.add(family);
        });
        assertThat(ran, contains(RuleFamily.MODRULE, CopyLabel.FAMILY));

        ran.clear();
        Engine stageOnly = Engine.builder().stage(new CopyLabel("copy", "app", "copy", false)).build();
        stageOnly.mutate(AdmissionRequest.create("ns", json(POD)), before + 1_000_000_000L,
                (family, start, end) -> ran.add(family));
        assertThat("no ModRule, no ModRule stage", ran, contains(CopyLabel.FAMILY));
        assertThat(StageObserver.NONE.now(), equalTo(0L));
    }

    @Test
    void aStageAloneChangesTheObject() {
        Engine engine = Engine.builder().stage(new CopyLabel("copy", "app", "copy", false)).build();
        Decision decision = engine.mutate(AdmissionRequest.create("ns", json(POD)));
        assertThat(decision.patch(), equalTo(json("[{'op':'add','path':'/metadata/labels/copy','value':'a'}]")));
    }

    @Test
    void aFailingStageLeavesTheObjectAndReportsWhy() {
        JsonValue pod = json(POD);
        Engine engine = Engine.builder().stage(new CopyLabel("broken", "app", "x", true)).build();
        Decision decision = engine.mutate(AdmissionRequest.create("ns", pod));
        assertThat(decision.patch(), empty());
        assertThat(decision.result(), sameInstance(pod));
        assertThat(decision.outcomes().getFirst().error(), equalTo("broken"));
    }

    @Test
    void deleteRequestsReachNoStage() {
        Engine engine = Engine.builder().stage(new CopyLabel("copy", "app", "copy", false)).build();
        var request = new AdmissionRequest(AdmissionOperation.DELETE, "ns", null, json(POD), null, null, false);
        Decision decision = engine.mutate(request);
        assertThat(decision.patch(), empty());
        assertThat(decision.outcomes(), empty());
    }

    @Test
    void outcomesNameTheirFamily() {
        Engine engine = Engine.builder().rule(rule("ns", "set-b", SET_B))
                .stage(new CopyLabel("copy-b-to-c", "b", "c", false)).build();
        Decision decision = engine.mutate(AdmissionRequest.create("ns", json(POD)));
        assertThat(decision.outcomes().stream().map(RuleOutcome::family).toList(),
                contains(RuleFamily.MODRULE, CopyLabel.FAMILY));
    }

    /** Refuses every object in both webhooks. */
    private record RefuseAll() implements MutationStage, ValidationStage {
        static final RuleFamily FAMILY = new RuleFamily("refusal", "refused by", "refused-by");

        @Override
        public RuleFamily family() {
            return FAMILY;
        }

        @Override
        public int ruleCount() {
            return 1;
        }

        @Override
        public JsonObject mutate(JsonObject object, StageContext context) {
            refuse(context);
            return object;
        }

        @Override
        public void validate(JsonObject object, StageContext context) {
            refuse(context);
        }

        private static void refuse(StageContext context) {
            context.rejections().add(new Rejection("", "refuse-all", null));
            context.outcomes().add(new RuleOutcome(FAMILY, "refuse-all", 0, true, -1, null,
                    JsonValue.EMPTY_JSON_ARRAY, null));
        }
    }

    @Test
    void oneCallRegistersAStageForEachWebhookItServes() {
        Engine engine = Engine.builder().stage(new RefuseAll()).stage(new CopyLabel("copy", "app", "c", false))
                .build();
        assertThat(engine.stageRuleCount(), equalTo(2));
        assertThat(engine.validationStageRuleCount(), equalTo(1));
        AdmissionRequest request = AdmissionRequest.create("ns", json(POD));
        assertThat(engine.mutate(request).rejections(), contains(new Rejection("", "refuse-all", null)));
        assertThat(engine.validate(request).rejections(), contains(new Rejection("", "refuse-all", null)));
    }
}
