package io.remold.templating;

import static io.remold.templating.Fixtures.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import jakarta.json.JsonValue;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GoTemplateTranslationTest {

    /** Every Go template of KubeMod's test corpus (core/testdata/modrules, samples) and README, plus the shapes around them. */
    static Stream<Arguments> translations() {
        return Stream.of(
                // reject/boolean-service-malicious-external-ips-1.yaml, README
                Arguments.of("One or more of the following external IPs are not allowed {{ .Target.spec.externalIPs }}",
                        "One or more of the following external IPs are not allowed {{ Target.spec.externalIPs }}"),
                // reject/bad-reject-message-2.yaml (fails when rendered, as in KubeMod)
                Arguments.of("not allowed {{ index .Target 1 }}", "not allowed {{ Target[1] }}"),
                // patch/patch-8.yaml
                Arguments.of("name: {{ index (index .Target.spec.containers .#0) \"name\" }}",
                        "name: {{ Target.spec.containers[SelectKeyParts[0]][\"name\"] }}"),
                // patch/patch-11.yaml
                Arguments.of("'{{ regexReplaceAll \"(.+)/(.*)\" (index .SelectedItem \"image\") \"my-repo/${2}\" }}'",
                        "'{{ regexReplaceAll \"(.+)/(.*)\" \"my-repo/${2}\" SelectedItem[\"image\"] }}'"),
                // patch/patch-12.yaml, README
                Arguments.of("{{ regexReplaceAll \"(.+)/(.*)\" .SelectedItem \"my-repo/${2}\" }}",
                        "{{ regexReplaceAll \"(.+)/(.*)\" \"my-repo/${2}\" SelectedItem }}"),
                // samples
                Arguments.of("{{ regexReplaceAll \"(.*)\" .SelectedItem \"bitnami/${1}\" }}",
                        "{{ regexReplaceAll \"(.*)\" \"bitnami/${1}\" SelectedItem }}"),
                // patch/patch-33.yaml, README
                Arguments.of("\"{{ index .Target.syntheticRefs.node.metadata.labels \"topology.kubernetes.io/zone\"}}\"",
                        "\"{{ Target.syntheticRefs.node.metadata.labels[\"topology.kubernetes.io/zone\"] }}\""),
                Arguments.of("\"{{ index .Target.syntheticRefs.node.metadata.annotations \"node.alpha.kubernetes.io/ttl\"}}\"",
                        "\"{{ Target.syntheticRefs.node.metadata.annotations[\"node.alpha.kubernetes.io/ttl\"] }}\""),
                // patch/patch-1.yaml, README
                Arguments.of("hello: {{ .Namespace }}\nhello2: {{ .Target.metadata.generateName }}",
                        "hello: {{ Namespace }}\nhello2: {{ Target.metadata.generateName }}"),
                Arguments.of("- --jaeger.tags=deployment.name={{ .Target.metadata.name }},pod.namespace={{ .Namespace }},pod.id=${POD_ID:}",
                        "- --jaeger.tags=deployment.name={{ Target.metadata.name }},pod.namespace={{ Namespace }},pod.id=${POD_ID:}"),
                Arguments.of("{{ .Target.syntheticRefs.namespace.metadata.labels.flavor }}",
                        "{{ Target.syntheticRefs.namespace.metadata.labels.flavor }}"),
                Arguments.of("{{ index .SelectedItem \"image\" }}", "{{ SelectedItem[\"image\"] }}"),
                // KubeMod's template preprocessing test: ".#N" is capture N
                Arguments.of("{{ .#0 }}-{{ .#2 }}", "{{ SelectKeyParts[0] }}-{{ SelectKeyParts[2] }}"),
                Arguments.of("{{ index .SelectKeyParts 0 }}", "{{ SelectKeyParts[0] }}"),
                Arguments.of("{{ .SelectKeyParts }}", "{{ SelectKeyParts }}"),
                Arguments.of("{{ index .Target.metadata.labels .#1 }}", "{{ Target.metadata.labels[SelectKeyParts[1]] }}"),
                Arguments.of("{{ (index .Target.spec.containers 0).name }}", "{{ Target.spec.containers[0].name }}"),
                // pipes: Go passes the piped value as the last argument, as Remold does
                Arguments.of("{{ .Target.metadata.name | upper | quote }}", "{{ Target.metadata.name | upper | quote }}"),
                Arguments.of("{{ .Target.x | default \"none\" }}", "{{ Target.x | default \"none\" }}"),
                Arguments.of("{{ .SelectedItem | regexReplaceAll \"x\" \"y${2}\" }}",
                        "{{ regexReplaceAll \"x\" SelectedItem \"y${2}\" }}"),
                Arguments.of("{{ trimPrefix \"a\" .Namespace | b64enc }}", "{{ trimPrefix \"a\" Namespace | b64enc }}"),
                Arguments.of("{{ join \",\" .Target.spec.externalIPs | sha256sum }}",
                        "{{ join \",\" Target.spec.externalIPs | sha256sum }}"),
                Arguments.of("{{ lower (upper .Namespace) }}", "{{ lower (upper Namespace) }}"),
                Arguments.of("{{ toJson .SelectedItem }}", "{{ toJson SelectedItem }}"),
                Arguments.of("{{ default 3 .Target.spec.replicas }}", "{{ default 3 Target.spec.replicas }}"),
                Arguments.of("{{ default nil true }}", "{{ default null true }}"),
                Arguments.of("{{ `raw \\d` | trim }}", "{{ \"raw \\\\d\" | trim }}"),
                Arguments.of("{{ \"tab\\there\" }}", "{{ \"tab\\there\" }}"),
                // trimming and comments
                Arguments.of("a  {{- .Namespace -}}  b", "a{{ Namespace }}b"),
                Arguments.of("a\n  {{- .Namespace }}\n", "a{{ Namespace }}\n"),
                Arguments.of("a {{/* a comment */}} b", "a  b"),
                Arguments.of("a {{- /* a comment */ -}} b", "ab"),
                Arguments.of("{{-3}}", "{{ -3 }}"),
                Arguments.of("{a: {{ .Namespace }}}", "{a: {{ Namespace }}}"),
                Arguments.of("no tags: ${x} }} {", "no tags: ${x} }} {"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("translations")
    void translates(String go, String remold) {
        String translated = Templates.translateGoTemplate(go);
        assertThat(translated, is(remold));
        Templates.compileText(translated); // every translation compiles
    }

    /** The corpus templates render what KubeMod's tests expect. */
    static Stream<Arguments> renderings() {
        JsonValue pod5 = json("""
                {"spec": {"containers": [{"name": "nginx-1", "image": "nginx:1.14.2"}, {"name": "nginx-2"}]}}""");
        JsonValue service3 = json("{\"spec\": {\"externalIPs\": [\"123.12.34.1\", \"123.12.35.2\"]}}");
        return Stream.of(
                Arguments.of("- containerPort: 1234\n  name: {{ index (index .Target.spec.containers .#0) \"name\" }}",
                        new TemplateContext(pod5, "my-namespace", null, java.util.List.of(1), "CREATE", null),
                        json("[{\"containerPort\": 1234, \"name\": \"nginx-2\"}]")),
                Arguments.of("{{ regexReplaceAll \"(.+)/(.*)\" (index .SelectedItem \"image\") \"my-repo/${2}\" }}",
                        Fixtures.selecting(json("{\"image\": \"their-repo/nginx:1.14.2\"}"), 0),
                        json("\"my-repo/nginx:1.14.2\"")),
                Arguments.of("{{ regexReplaceAll \"(.+)/(.*)\" .SelectedItem \"my-repo/${2}\" }}",
                        Fixtures.selecting(json("\"their-repo/nginx:1.15.2\""), 2), json("\"my-repo/nginx:1.15.2\"")),
                Arguments.of("\"{{ index .Target.syntheticRefs.node.metadata.labels \"topology.kubernetes.io/region\"}}\"",
                        Fixtures.CONTEXT, json("\"eu\"")),
                Arguments.of("hello: {{ .Namespace }}", Fixtures.CONTEXT, json("{\"hello\": \"shop\"}")),
                Arguments.of("reject {{ .Target.spec.externalIPs }}",
                        new TemplateContext(service3, "my-namespace", null, null, "CREATE", null),
                        json("\"reject [123.12.34.1 123.12.35.2]\"")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renderings")
    void rendersLikeKubeMod(String goValue, TemplateContext context, JsonValue expected) {
        assertThat(Templates.compileValue(Templates.translateGoTemplate(goValue)).render(context), is(expected));
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of("{{ range .Target.spec.containers }}x{{ end }}", 1, 4, "Go template action \"range\" is not supported"),
                Arguments.of("{{ if .Namespace }}x{{ end }}", 1, 4, "Go template action \"if\" is not supported"),
                Arguments.of("{{ with .Target }}x{{ end }}", 1, 4, "Go template action \"with\" is not supported"),
                Arguments.of("{{ define \"x\" }}x{{ end }}", 1, 4, "Go template action \"define\" is not supported"),
                Arguments.of("{{ template \"x\" }}", 1, 4, "Go template action \"template\" is not supported"),
                Arguments.of("{{ $x := .Namespace }}", 1, 4, "template variables ($) are not supported"),
                Arguments.of("a\n{{ .Namespace | $ }}", 2, 17, "template variables ($) are not supported"),
                Arguments.of("{{ printf \"%s\" .Namespace }}", 1, 4, "function \"printf\" is not supported"),
                Arguments.of("{{ .Namespace | nindent 2 }}", 1, 17, "function \"nindent\" is not supported"),
                Arguments.of("{{ .Namespace | imageTag }}", 1, 17, "function \"imageTag\" is not supported"),
                Arguments.of("{{ .Target.metadata.name", 1, 1, "unclosed action"),
                Arguments.of("One or more {{ .Target", 1, 13, "unclosed action"),
                Arguments.of("{{ }}", 1, 1, "missing value for command"),
                Arguments.of("{{ . }}", 1, 4, "\".\" (the whole template context) is not supported"),
                Arguments.of("{{ .Object.x }}", 1, 4, "unknown field \".Object\""),
                Arguments.of("{{ index (lower .Namespace) 0 }}", 1, 4, "index can only be translated on a field of the context"),
                Arguments.of("{{ index }}", 1, 4, "index takes at least 1 argument, got 0"),
                Arguments.of("{{ upper }}", 1, 4, "upper takes 1 argument, got 0"),
                Arguments.of("{{ replace \"a\" .Namespace }}", 1, 4, "replace takes 3 arguments, got 2"),
                Arguments.of("{{ .Namespace .Target }}", 1, 15, "only functions take arguments"),
                Arguments.of("{{ 'a' }}", 1, 4, "character constants are not supported"),
                Arguments.of("{{ 0x1F }}", 1, 4, "number \"0x1F\" is not supported"),
                Arguments.of("{{ \"abc }}", 1, 4, "unterminated string"),
                Arguments.of("{{ \"\\q\" }}", 1, 5, "unknown escape \\q in string"),
                Arguments.of("{{ \"\\u-2fa\" }}", 1, 5, "bad escape in string"),
                Arguments.of("{{ \"\\U00110000\" }}", 1, 5, "bad escape in string"),
                Arguments.of("{{ \"\\ud800\" }}", 1, 5, "bad escape in string"),
                Arguments.of("{{ \"\\x4\" }}", 1, 5, "bad escape in string"),
                Arguments.of("{{ .# }}", 1, 6, "a number is expected after \".#\""),
                Arguments.of("{{ .#51111111111111111111 }}", 1, 26, "capture number 51111111111111111111 is too large"),
                Arguments.of("{{ (lower .Namespace).x }}", 1, 4, "a field of a function result cannot be translated"),
                Arguments.of("{{ default lower .Namespace }}", 1, 12, "function \"lower\" used as an argument needs parentheses"),
                Arguments.of("{{ /* open }}", 1, 1, "unclosed comment"),
                Arguments.of("{{ .Namespace ; }}", 1, 15, "unexpected \";\" in action"),
                Arguments.of("{{ .Namespace | }}", 1, 17, "a function is expected after \"|\""),
                Arguments.of("{{ .Namespace | .Target }}", 1, 17, "a function is expected after \"|\""),
                Arguments.of("{{ true .Namespace }}", 1, 4, "\"true\" is not a function"),
                Arguments.of("{{ .Namespace | quote }", 1, 1, "unclosed action"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refuses(String go, int line, int column, String message) {
        TemplateException e = assertThrows(TemplateException.class, () -> Templates.translateGoTemplate(go));
        assertThat(e.getMessage(), containsString(message));
        assertThat(e.getMessage() + " (line)", e.line(), is(line));
        assertThat(e.getMessage() + " (column)", e.column(), is(column));
        assertThat(e.source(), is(go));
    }
}
