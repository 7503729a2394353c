package io.remold.rules;

import io.remold.api.AdmissionOperation;
import io.remold.api.InvalidFieldException;
import io.remold.api.ModRuleException;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.CompiledRules;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.engine.MutationStage;
import io.remold.engine.ReferenceResolver;
import io.remold.engine.RuleFamily;
import io.remold.engine.RuleOutcome;
import io.remold.engine.StageContext;
import io.remold.templating.ExternalData;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The family seam: a family that exists only in this test is read from a document, assembled into a snapshot and run
 * by the engine, through {@link Family} alone (nothing in the rules module names it).
 */
class FamilySeamTest {
    private static final String DOCUMENTS = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: first, namespace: team-a}
            spec:
              type: Patch
              match: [{select: '$.kind', matchValue: Pod}]
              patch: [{op: add, path: /metadata/labels/a, value: x}]
            ---
            apiVersion: labels.test/v1
            kind: Label
            metadata: {name: owner}
            spec: {key: owner, value: team-a}
            """;

    /** A label rule: sets {@code metadata.labels[key] = value} after the ModRules. */
    record Label(String name, String key, String value) {
    }

    static final class InvalidLabelException extends InvalidFieldException {
        InvalidLabelException(String field, String reason) {
            super(field, reason);
        }
    }

    /** The whole family: one class. */
    static final class LabelFamily implements Family<Label> {
        static final RuleFamily FAMILY = new RuleFamily("label", "labelled by label rule(s)", "labelled-by");

        @Override
        public RuleFamily family() {
            return FAMILY;
        }

        @Override
        public List<Resource> resources() {
            return List.of(new Resource("labels.test", "v1", "Label", "labels"));
        }

        @Override
        public String readyReason() {
            return "label compiled";
        }

        @Override
        public boolean owns(JsonObject manifest) {
            return manifest.getString("apiVersion", "").startsWith("labels.test/");
        }

        @Override
        public Label parse(JsonObject manifest) {
            JsonObject spec = manifest.getJsonObject("spec");
            if (!(spec.get("key") instanceof JsonString key) || key.getString().isEmpty()) {
                throw new InvalidLabelException("spec.key", "required");
            }
            return new Label(manifest.getJsonObject("metadata").getString("name"), key.getString(),
                    spec.getString("value"));
        }

        @Override
        public String id(Label rule) {
            return "Label/" + rule.name();
        }

        @Override
        public Optional<String> refusesIn(Label rule) {
            return Optional.empty();
        }

        @Override
        public Compiled compile(SortedMap<String, Label> rules) {
            List<Label> labels = List.copyOf(rules.values());
            MutationStage stage = new MutationStage() {
                @Override
                public RuleFamily family() {
                    return FAMILY;
                }

                @Override
                public int ruleCount() {
                    return labels.size();
                }

                @Override
                public JsonObject mutate(JsonObject object, StageContext context) {
                    JsonObject result = object;
                    for (Label label : labels) {
                        JsonObject metadata = result.getJsonObject("metadata");
                        JsonObject labelled = Json.createObjectBuilder(metadata.getJsonObject("labels"))
                                .add(label.key(), label.value()).build();
                        JsonObject next = Json.createObjectBuilder(result).add("metadata",
                                Json.createObjectBuilder(metadata).add("labels", labelled)).build();
                        context.outcomes().add(new RuleOutcome(FAMILY, id(label), 0, true, -1, null,
                                Engine.diff(result, next), null));
                        result = next;
                    }
                    return result;
                }
            };
            var names = new ArrayList<String>();
            labels.forEach(label -> names.add(id(label)));
            return new Compiled(Optional.of(stage), Map.of(), Set.of(), Optional.empty(), labels.size(),
                    Set.copyOf(names));
        }
    }

    private static final List<Family<?>> FAMILIES = List.of(new LabelFamily());

    @Test
    void aFamilyOfOneClassIsReadAssembledAndRun() {
        RuleSet set = RuleSet.of(RuleDocuments.readAll(DOCUMENTS, "rules.yaml", FAMILIES).rules());
        Snapshot snapshot = new RuleAssembly("remold-system", null, ExternalData.NONE, ReferenceResolver.NONE,
                new CompiledRules(), FAMILIES, List.of()).assemble(set);
        assertThat(snapshot.ruleCount(LabelFamily.FAMILY), is(1));
        assertThat(snapshot.outcomeNames(), equalTo(Set.of("team-a/first", "Label/owner")));

        JsonObject pod = Json.createReader(new java.io.StringReader(
                "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{}}}")).readObject();
        Decision decision = snapshot.engine().mutate(new AdmissionRequest(AdmissionOperation.CREATE, "team-a", pod,
                null, null, null, false));
        assertThat(decision.result().asJsonObject().getJsonObject("metadata").getJsonObject("labels"),
                equalTo(Json.createObjectBuilder().add("a", "x").add("owner", "team-a").build()));
        assertThat(decision.outcomes().stream().filter(o -> o.family().equals(LabelFamily.FAMILY))
                .map(RuleOutcome::rule).toList(), contains("Label/owner"));
    }

    @Test
    void aFamilysInvalidRuleIsRefusedWithItsDocumentFieldAndLine() {
        String broken = DOCUMENTS.replace("key: owner, ", "");
        var thrown = assertThrows(ModRuleException.class, () -> RuleDocuments.readAll(broken, "rules.yaml", FAMILIES));
        assertThat(thrown.getMessage(), containsString("rules.yaml: document 2"));
        assertThat(thrown.getMessage(), containsString("spec.key: required"));
    }
}
