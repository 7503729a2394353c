package io.remold.templating;

import static io.remold.templating.Fixtures.CONTEXT;
import static io.remold.templating.Fixtures.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ValueTemplateTest {

    /** Template, expected JSON of the rendered value against {@link Fixtures#CONTEXT}. */
    static Stream<Arguments> typedSubstitution() {
        return Stream.of(
                // a plain scalar that is exactly one tag keeps the JSON type of what it selects
                Arguments.of("{{Target.spec.replicas}}", "3"),
                Arguments.of("{{ Target.spec.paused }}", "false"),
                Arguments.of("{{Target.spec.ratio}}", "0.5"),
                Arguments.of("{{Target.spec.nothing}}", "null"),
                Arguments.of("{{Target.spec.missing}}", "null"),
                Arguments.of("{{Target.metadata.missing.deeper}}", "null"),
                Arguments.of("{{Target.spec.containers[0].ports}}", "[{\"containerPort\": 80}]"),
                Arguments.of("{{Target.syntheticRefs.node.metadata}}",
                        "{\"labels\": {\"topology.kubernetes.io/region\": \"eu\"}}"),
                Arguments.of("{{Target.metadata.labels.replicas}}", "\"3\""),
                Arguments.of("{{Target.metadata.labels[\"topology.kubernetes.io/zone\"]}}", "\"eu-1a\""),
                Arguments.of("{{Target.spec.containers.1.name}}", "\"sidecar\""),
                Arguments.of("{{Target.spec.containers.99999999999.name}}", "null"),
                Arguments.of("{{Target.spec.containers[1].name}}", "\"sidecar\""),
                Arguments.of("{{Target.spec.containers[9].name}}", "null"),
                Arguments.of("{{Target.spec.containers[SelectKeyParts[0]].name}}", "\"nginx\""),
                Arguments.of("{{Target.metadata.labels[SelectKeyParts[1]]}}", "\"web\""),
                Arguments.of("{{SelectKeyParts[0]}}", "0"),
                Arguments.of("{{SelectKeyParts}}", "[0, \"app\"]"),
                Arguments.of("{{SelectedItem}}", "{\"name\": \"nginx\", \"image\": \"their-repo/nginx:1.14.2\"}"),
                Arguments.of("{{SelectedItem.image}}", "\"their-repo/nginx:1.14.2\""),
                Arguments.of("{{Namespace}}", "\"shop\""),
                Arguments.of("{{Operation}}", "\"CREATE\""),
                Arguments.of("{{OldTarget.metadata.name}}", "\"web-0\""),
                Arguments.of("{{Target.spec.replicas | default 1}}", "3"),
                Arguments.of("{{Target.spec.missing | default 1}}", "1"),
                Arguments.of("{{Namespace | upper}}", "\"SHOP\""),
                Arguments.of("{{3}}", "3"),
                Arguments.of("{{true}}", "true"),
                Arguments.of("{{\"3\"}}", "\"3\""),
                Arguments.of("{{.}}", "null"),
                // a tag inside a larger or quoted scalar becomes text
                Arguments.of("'{{Target.spec.replicas}}'", "\"3\""),
                Arguments.of("\"{{Target.spec.replicas}}\"", "\"3\""),
                Arguments.of("x{{Target.spec.replicas}}", "\"x3\""),
                Arguments.of("{{Target.spec.replicas}}{{Target.spec.replicas}}", "\"33\""),
                Arguments.of("{{Target.spec.missing}} and {{Target.spec.nothing}}.", "\" and .\""),
                Arguments.of("ips {{Target.spec.externalIPs}}", "\"ips [123.12.34.1 123.12.35.2]\""),
                Arguments.of("\"{{Target.spec.containers[0].ports}}\"", "\"[map[containerPort:80]]\""),
                Arguments.of("|\n  name={{Target.metadata.name}}\n  ns={{Namespace}}\n", "\"name=web-1\\nns=shop\\n\""),
                Arguments.of(">-\n  {{Target.metadata.name}}\n  {{Namespace}}", "\"web-1 shop\""),
                // structure comes from the template only
                Arguments.of("a: {{Target.spec.replicas}}\nb: '{{Target.spec.replicas}}'\nc: [{{Namespace}}, {{Target.spec.paused}}]",
                        "{\"a\": 3, \"b\": \"3\", \"c\": [\"shop\", false]}"),
                Arguments.of("{a: {{Namespace}}, b: {{Target.spec.ratio}}}", "{\"a\": \"shop\", \"b\": 0.5}"),
                Arguments.of("{{Namespace}}: {{Target.spec.replicas}}\n{{Target.spec.replicas}}: x\nk-{{Operation}}: 1",
                        "{\"shop\": 3, \"3\": \"x\", \"k-CREATE\": 1}"),
                Arguments.of("- name: sidecar\n  image: busybox\n  env:\n  - name: POD\n    value: {{Target.metadata.name}}\n  - {{Target.spec.replicas}}",
                        "[{\"name\": \"sidecar\", \"image\": \"busybox\", \"env\": [{\"name\": \"POD\", \"value\": \"web-1\"}, 3]}]"),
                Arguments.of("args: [\"--tags=deployment.name={{Target.metadata.name}},pod.namespace={{Namespace}},pod.id=${POD_ID:}\"]",
                        "{\"args\": [\"--tags=deployment.name=web-1,pod.namespace=shop,pod.id=${POD_ID:}\"]}"),
                Arguments.of("a: {{! a comment }}1", "{\"a\": \"1\"}"),
                Arguments.of("a: &name {{Target.metadata.name}}\nb: *name\nc: &list [x-{{Namespace}}]\nd: *list",
                        "{\"a\": \"web-1\", \"b\": \"web-1\", \"c\": [\"x-shop\"], \"d\": [\"x-shop\"]}"),
                Arguments.of("{{Target.spec.containers[SelectKeyParts[0]].name}}", "\"nginx\""),
                // sections and inverted sections live inside one scalar
                Arguments.of("names: \"{{#Target.spec.containers}}{{name}};{{/Target.spec.containers}}\"",
                        "{\"names\": \"nginx;sidecar;\"}"),
                Arguments.of("ips: {{#Target.spec.externalIPs}}[{{.}}]{{/Target.spec.externalIPs}}",
                        "{\"ips\": \"[123.12.34.1][123.12.35.2]\"}"),
                Arguments.of("x: {{^Target.spec.empty}}none{{/Target.spec.empty}}", "{\"x\": \"none\"}"),
                Arguments.of("x: \"{{#Target.spec.missing}}yes{{/Target.spec.missing}}\"", "{\"x\": \"\"}"),
                Arguments.of("|\n  {{#Target.spec.externalIPs}}\n  allow {{.}}\n  {{/Target.spec.externalIPs}}\n",
                        "\"allow 123.12.34.1\\nallow 123.12.35.2\\n\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("typedSubstitution")
    void rendersTyped(String template, String expectedJson) {
        ValueTemplate compiled = Templates.compileValue(template);
        assertThat(compiled.isConstant(), is(false));
        assertThat(compiled.render(CONTEXT), is(json(expectedJson)));
    }

    /** Values from the object never add YAML structure, wherever the tag stands. */
    static Stream<Arguments> injection() {
        String evil = "\"x\\nprivileged: true\"";
        return Stream.of(
                Arguments.of("{{Target.metadata.annotations.evil}}", evil),
                Arguments.of("securityContext:\n  note: {{Target.metadata.annotations.evil}}\n  runAsUser: 1000",
                        "{\"securityContext\": {\"note\": " + evil + ", \"runAsUser\": 1000}}"),
                Arguments.of("- {{Target.metadata.annotations.evil}}", "[" + evil + "]"),
                Arguments.of("[{{Target.metadata.annotations.evil}}]", "[" + evil + "]"),
                Arguments.of("\"{{Target.metadata.annotations.evil}}\"", evil),
                Arguments.of("'{{Target.metadata.annotations.evil}}'", evil),
                Arguments.of("a-{{Target.metadata.annotations.evil}}", "\"a-x\\nprivileged: true\""),
                Arguments.of("|\n  {{Target.metadata.annotations.evil}}", evil),
                Arguments.of("{{Target.metadata.annotations.evil}}: 1", "{" + evil + ": 1}"),
                Arguments.of("{{Target.metadata.annotations.json}}", "\"{\\\"a\\\": [1, 2]}\""),
                Arguments.of("k: {{Target.metadata.annotations.json}}", "{\"k\": \"{\\\"a\\\": [1, 2]}\"}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("injection")
    void neverAddsStructure(String template, String expectedJson) {
        assertThat(Templates.compileValue(template).render(CONTEXT), is(json(expectedJson)));
    }

    /** Text that would be YAML structure if it were pasted into the document, in every position a tag can take. */
    static Stream<Arguments> hostileStrings() {
        List<String> hostile = List.of("x\nprivileged: true", "- a\n- b", "{a: b}", "[1, 2]", "&x y", "*x", "!!int 3",
                "\"quoted\"", "'single'", "# comment", "a: b", "---\nkind: Secret", "...", "|\n  block", "> folded",
                "{{Namespace}}", "remoldtag0z", "  padded  ", "", "null", "true", "3");
        List<String> positions = List.of("{{SelectedItem}}", "v: {{SelectedItem}}", "- {{SelectedItem}}",
                "[{{SelectedItem}}]", "{k: {{SelectedItem}}}", "'{{SelectedItem}}'", "\"{{SelectedItem}}\"",
                "|-\n  {{SelectedItem}}", "{{SelectedItem}}: k");
        return hostile.stream().flatMap(text -> positions.stream().map(position -> Arguments.of(position, text)));
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("hostileStrings")
    void hostileStringsStayOneString(String template, String text) {
        JsonValue rendered = Templates.compileValue(template)
                .render(Fixtures.selecting(Fixtures.JSON.createValue(text)));
        JsonValue string = Fixtures.JSON.createValue(text);
        JsonValue expected = switch (template.substring(0, 2)) {
            case "v:" -> Fixtures.JSON.createObjectBuilder().add("v", string).build();
            case "- ", "[{" -> Fixtures.JSON.createArrayBuilder().add(string).build();
            case "{k" -> Fixtures.JSON.createObjectBuilder().add("k", string).build();
            default -> template.endsWith(": k")
                    ? Fixtures.JSON.createObjectBuilder().add(text, "k").build()
                    : string;
        };
        assertThat(rendered, is(expected));
    }

    static Stream<Arguments> constants() {
        return Stream.of(
                Arguments.of("", "null"),
                Arguments.of("1234", "1234"),
                Arguments.of("hello", "\"hello\""),
                Arguments.of("'1234'", "\"1234\""),
                Arguments.of("a: 1\nb: [true, \"x\", null, 1.5, yes, 0x1F, ~]\nc: {d: {}}",
                        "{\"a\": 1, \"b\": [true, \"x\", null, 1.5, \"yes\", \"0x1F\", null], \"c\": {\"d\": {}}}"),
                Arguments.of("- containerPort: 1234\n  protocol: TCP", "[{\"containerPort\": 1234, \"protocol\": \"TCP\"}]"),
                Arguments.of("literal }} and { braces }", "\"literal }} and { braces }\""));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("constants")
    void constantValuesAreComputedOnce(String template, String expectedJson) {
        ValueTemplate compiled = Templates.compileValue(template);
        assertThat(compiled.isConstant(), is(true));
        JsonValue first = compiled.render(CONTEXT);
        assertThat(first, is(json(expectedJson)));
        assertThat(compiled.render(null), sameInstance(first));
    }

    @Test
    void constantPartsAreSharedBetweenRenders() {
        ValueTemplate compiled = Templates.compileValue("fixed: {a: [1, 2]}\nname: {{Target.metadata.name}}");
        JsonValue first = compiled.render(CONTEXT);
        JsonValue second = compiled.render(CONTEXT);
        assertThat(first.asJsonObject().get("fixed"), sameInstance(second.asJsonObject().get("fixed")));
    }

    @Test
    void missingContextPartsRenderEmpty() {
        TemplateContext empty = new TemplateContext(null, null, null, null, null, null);
        assertThat(Templates.compileValue("a: {{Target.metadata.name}}\nb: x{{Namespace}}{{SelectKeyParts[0]}}")
                .render(empty), is(json("{\"a\": null, \"b\": \"x\"}")));
    }

    static Stream<Arguments> renderErrors() {
        return Stream.of(
                Arguments.of("{{Target.spec.containers[\"name\"]}}", "cannot index a list with the key \"name\"", 1, 3),
                Arguments.of("a: x{{Target[1]}}", "cannot index an object with the number 1", 1, 7),
                Arguments.of("a:\n  b: {{Target.metadata.name | b64dec}}", "b64dec: input is not base64", 2, 31));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renderErrors")
    void failsToRenderWithPosition(String template, String message, int line, int column) {
        ValueTemplate compiled = Templates.compileValue(template);
        TemplateException e = assertThrows(TemplateException.class, () -> compiled.render(CONTEXT));
        assertThat(e.getMessage(), containsString(message));
        assertThat(e.line(), is(line));
        assertThat(e.column(), is(column));
    }

    @Test
    void rendersConcurrently() throws Exception {
        ValueTemplate compiled = Templates.compileValue(
                "name: {{Target.metadata.name | upper}}\nlist: \"{{#Target.spec.containers}}{{name}},{{/Target.spec.containers}}\"");
        JsonValue expected = json("{\"name\": \"WEB-1\", \"list\": \"nginx,sidecar,\"}");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<JsonValue>> results = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                results.add(pool.submit(() -> compiled.render(CONTEXT)));
            }
            for (Future<JsonValue> result : results) {
                assertThat(result.get(), is(expected));
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
