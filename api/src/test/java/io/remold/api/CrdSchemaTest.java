package io.remold.api;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/** The CRD manifests and the Java model must describe the same fields, enums and required fields. */
class CrdSchemaTest {

    @ParameterizedTest
    @ValueSource(strings = {"modrules.remold.io.yaml", "modrules.api.kubemod.io.yaml"})
    void modelAndSchemaAgree(String resource) throws IOException {
        JsonObject crd = load(resource);
        JsonObject version = crd.getJsonObject("spec").getJsonArray("versions").getJsonObject(0);
        JsonObject spec = version.getJsonObject("schema").getJsonObject("openAPIV3Schema")
                .getJsonObject("properties").getJsonObject("spec");

        // references are remold.io's own: KubeMod's schema has none
        boolean kubemod = resource.contains("kubemod");
        JsonObject props = spec.getJsonObject("properties");
        // type: Script (kinds, js) is remold.io's form of script rules, read by the scripting module, not the model;
        // mode and existing are every family's controls, read by RuleControls
        JsonObject ruleFields = kubemod ? props : Json.createObjectBuilder(props).remove("kinds").remove("js")
                .remove("mode").remove("existing").build();
        assertRecordMatches(ModRuleSpec.class, Json.createObjectBuilder().add("properties", ruleFields).build(),
                kubemod ? Set.of("references") : Set.of());
        assertThat(strings(spec.getJsonArray("required")),
                kubemod ? containsInAnyOrder("type", "match") : containsInAnyOrder("type"));
        assertThat(enumOf(props.getJsonObject("type")), equalTo(kubemod ? names(RuleType.values())
                : Stream.concat(names(RuleType.values()).stream(), Stream.of("Script")).toList()));
        assertThat(enumOf(props.getJsonObject("admissionOperations").getJsonObject("items")),
                equalTo(Arrays.stream(AdmissionOperation.values()).filter(AdmissionOperation::allowedInRules)
                        .map(Enum::name).toList()));

        JsonObject match = props.getJsonObject("match").getJsonObject("items");
        assertRecordMatches(MatchItem.class, match);
        assertThat(strings(match.getJsonArray("required")), contains("select"));
        assertThat(enumOf(match.getJsonObject("properties").getJsonObject("matchFor")),
                equalTo(names(MatchFor.values())));

        JsonObject patch = props.getJsonObject("patch").getJsonObject("items");
        assertRecordMatches(PatchOperation.class, patch);
        assertThat(strings(patch.getJsonArray("required")), containsInAnyOrder("op", "path"));
        assertThat(enumOf(patch.getJsonObject("properties").getJsonObject("op")), equalTo(names(PatchOp.values())));

        if (props.containsKey("references")) {
            JsonObject reference = props.getJsonObject("references").getJsonObject("items");
            assertRecordMatches(Reference.class, reference);
            assertThat(strings(reference.getJsonArray("required")),
                    containsInAnyOrder("name", "apiVersion", "kind", "onMissing"));
            JsonObject refProps = reference.getJsonObject("properties");
            assertThat(enumOf(refProps.getJsonObject("onMissing")), equalTo(names(OnMissing.values())));
            JsonObject selector = refProps.getJsonObject("labelSelector");
            assertRecordMatches(Reference.Selector.class, selector);
            JsonObject requirement = selector.getJsonObject("properties").getJsonObject("matchExpressions")
                    .getJsonObject("items");
            assertRecordMatches(Reference.Requirement.class, requirement);
            assertThat(enumOf(requirement.getJsonObject("properties").getJsonObject("operator")),
                    equalTo(names(Reference.Operator.values())));
        }

        JsonObject conditions = version.getJsonObject("schema").getJsonObject("openAPIV3Schema")
                .getJsonObject("properties").getJsonObject("status").getJsonObject("properties")
                .getJsonObject("conditions").getJsonObject("items");
        assertRecordMatches(ModRuleCondition.class, conditions);
        assertThat(version.getJsonObject("subresources").containsKey("status"), is(true));
    }

    @ParameterizedTest
    @ValueSource(strings = {"modrules.remold.io.yaml"})
    void remoldCrdNamesTierBoundsAndColumns(String resource) throws IOException {
        JsonObject crd = load(resource);
        JsonObject names = crd.getJsonObject("spec").getJsonObject("names");
        assertThat(strings(names.getJsonArray("shortNames")), contains("mr"));
        JsonObject version = crd.getJsonObject("spec").getJsonArray("versions").getJsonObject(0);
        JsonObject tier = version.getJsonObject("schema").getJsonObject("openAPIV3Schema").getJsonObject("properties")
                .getJsonObject("spec").getJsonObject("properties").getJsonObject("executionTier");
        assertThat(tier.getInt("minimum"), is(ModRuleSpec.MIN_TIER));
        assertThat(tier.getInt("maximum"), is(ModRuleSpec.MAX_TIER));
        assertThat(version.getJsonArray("additionalPrinterColumns").stream()
                .map(c -> c.asJsonObject().getString("name")).toList(), contains("Type", "Tier", "Mode", "Would-Change", "Would-Refuse", "Ready", "Age"));
    }

    private static void assertRecordMatches(Class<? extends Record> type, JsonObject schema) {
        assertRecordMatches(type, schema, Set.of());
    }

    private static void assertRecordMatches(Class<? extends Record> type, JsonObject schema, Set<String> absent) {
        Set<String> fields = Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName)
                .filter(name -> !absent.contains(name)).collect(Collectors.toCollection(TreeSet::new));
        assertThat(type.getSimpleName(), new TreeSet<>(schema.getJsonObject("properties").keySet()), equalTo(fields));
    }

    private static List<String> enumOf(JsonObject property) {
        return strings(property.getJsonArray("enum"));
    }

    private static List<String> strings(JsonArray array) {
        return array.stream().map(v -> ((JsonString) v).getString()).toList();
    }

    private static List<String> names(Enum<?>[] values) {
        return Arrays.stream(values).map(Enum::name).toList();
    }

    private static JsonObject load(String resource) throws IOException {
        try (InputStream in = ModRules.class.getResourceAsStream("crd/" + resource)) {
            List<JsonValue> docs = YamlJson.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), resource);
            assertThat(docs.size(), is(1));
            return docs.getFirst().asJsonObject();
        }
    }
}
