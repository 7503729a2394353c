package io.remold.templating;

import static io.remold.templating.Fixtures.CONTEXT;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every pipe function, in call form and piped, rendered as text against {@link Fixtures#CONTEXT}. */
class FunctionTest {

    static Stream<Arguments> functions() {
        return Stream.of(
                Arguments.of("{{Target.metadata.missing | default \"none\"}}", "none"),
                Arguments.of("{{Target.metadata.name | default \"none\"}}", "web-1"),
                Arguments.of("{{default \"none\" Target.spec.empty}}", "none"),
                Arguments.of("{{default 7 Target.spec.paused}}", "7"),
                Arguments.of("{{default 7 Target.spec.replicas}}", "3"),
                Arguments.of("{{Namespace | quote}}", "\"shop\""),
                Arguments.of("{{quote \"a\\\"b\" Namespace}}", "\"a\\\"b\" \"shop\""),
                Arguments.of("{{Target.kind | lower}}", "pod"),
                Arguments.of("{{Target.kind | upper}}", "POD"),
                Arguments.of("{{\"  a b \\n\" | trim}}", "a b"),
                Arguments.of("{{Target.metadata.name | trimPrefix \"web-\"}}", "1"),
                Arguments.of("{{Target.metadata.name | trimPrefix \"x\"}}", "web-1"),
                Arguments.of("{{Target.metadata.name | trimSuffix \"-1\"}}", "web"),
                Arguments.of("{{Target.metadata.name | replace \"-\" \"_\"}}", "web_1"),
                Arguments.of("{{replace \"e\" \"E\" \"eee\"}}", "EEE"),
                Arguments.of("{{SelectedItem.image | regexReplaceAll \"^(.+)/(.*)$\" \"my-repo/$2\"}}", "my-repo/nginx:1.14.2"),
                Arguments.of("{{SelectedItem.image | regexReplaceAll \"(.+)/(.*)\" \"my-repo/${2}\"}}", "my-repo/nginx:1.14.2"),
                Arguments.of("{{regexReplaceAll \"(?P<repo>[^/]+)/\" \"${repo}.io/\" SelectedItem.image}}", "their-repo.io/nginx:1.14.2"),
                Arguments.of("{{regexReplaceAll \"a\" \"$$1\" \"banana\"}}", "b$1n$1n$1"),
                Arguments.of("{{regexReplaceAll \"a\" \"<$9>\" \"banana\"}}", "b<>n<>n<>"),
                Arguments.of("{{regexReplaceAll \"(a)\" \"$1x\" \"banana\"}}", "bnn"),
                Arguments.of("{{regexReplaceAll \"a*\" \"x\" \"baaac\"}}", "xbxcx"),
                Arguments.of("{{SelectedItem.image | regexFind \"[0-9.]+$\"}}", "1.14.2"),
                Arguments.of("{{SelectedItem.image | regexFind \"^z\"}}", ""),
                Arguments.of("{{Namespace | b64enc}}", "c2hvcA=="),
                Arguments.of("{{\"c2hvcA==\" | b64dec}}", "shop"),
                Arguments.of("{{Target.spec.containers[0].ports | toJson}}", "[{\"containerPort\":80}]"),
                Arguments.of("{{Target.metadata.missing | toJson}}", "null"),
                Arguments.of("{{Target.spec.externalIPs | join \",\"}}", "123.12.34.1,123.12.35.2"),
                Arguments.of("{{join \"-\" SelectKeyParts}}", "0-app"),
                Arguments.of("{{Namespace | sha256sum}}", "8d9001d32c6a703d95921a77115050f33dd823d3f1730bd35215dcbecad6dc20"),
                Arguments.of("{{Target.metadata.name | upper | replace \"-\" \"\" | lower}}", "web1"),
                Arguments.of("{{lower (Target.kind | upper)}}", "pod"),
                Arguments.of("{{SelectedItem.image | imageDomain}}", ""),
                Arguments.of("{{SelectedItem.image | imagePath}}", "their-repo/nginx"),
                Arguments.of("{{SelectedItem.image | imageTag}}", ":1.14.2"),
                Arguments.of("{{imageDomain \"localhost:5000/a/b@sha256:00\"}}", "localhost:5000"),
                Arguments.of("{{imagePath \"localhost:5000/a/b@sha256:00\"}}", "a/b"),
                Arguments.of("{{imageTag \"localhost:5000/a/b@sha256:00\"}}", "@sha256:00"),
                Arguments.of("{{SelectedItem.image | imageWith \"mirror.io\" \"\" \"\"}}", "mirror.io/their-repo/nginx:1.14.2"),
                Arguments.of("{{SelectedItem.image | imageWith \"\" \"lib/nginx\" \":2\"}}", "lib/nginx:2"),
                Arguments.of("{{SelectedItem.image | imageWith \"\" \"\" \"\"}}", "their-repo/nginx:1.14.2"),
                Arguments.of("{{Target.metadata.missing | imageWith \"m.io\" \"\" \":v1\"}}", "m.io/:v1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("functions")
    void rendersText(String template, String expected) {
        assertThat(Templates.compileText(template).render(CONTEXT), is(expected));
    }
}
