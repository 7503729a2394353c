package io.remold.templating;

import static io.remold.templating.Fixtures.CONTEXT;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Text without sections is rendered without jmustache: it must render exactly as jmustache does. */
class DirectTextTest {

    static Stream<String> texts() {
        return Stream.of(
                "{{Target.metadata.name}}",
                " {{ Target.metadata.name }} ",
                "{{Target.kind}} {{Target.metadata.name}} is not allowed here",
                "{{SelectKeyParts[1]}}/{{SelectKeyParts[0]}}",
                "{{SelectKeyParts}}",
                "{{Target.spec.replicas}} {{Target.spec.ratio}} {{Target.spec.paused}} [{{Target.spec.nothing}}]",
                "{{Target.spec.externalIPs}} {{Target.spec.containers[0]}} {{Target.spec}}",
                "<{{Target.missing}}>{{Target.missing}}",
                "{{\"<a & b>\"}} {{{Namespace}}} {{&Namespace}}",
                "{{{Namespace}}}}",
                "{{Namespace}}}",
                "{ {{Namespace}} }",
                "{{Namespace}}{{Operation}}{{Namespace}}",
                "a}}b{{Namespace}}c}}",
                "\n  {{Namespace}}\n",
                "{{ replace \"{{\" \"<\" \"a{{b\" }}|{{ \"}}\" }}|{{`}}}`}}",
                "{{SelectedItem.image | regexReplaceAll \"^(.+)/(.*)$\" \"my-repo/$2\"}}",
                "{{OldTarget.metadata.name}} -> {{Target.metadata.name}} ({{Operation | lower}})",
                "{{Target.metadata.labels[\"topology.kubernetes.io/zone\"]}}",
                "{{Target.syntheticRefs.node.metadata.labels}}",
                "{{Target.spec.containers[SelectKeyParts[0]].name}}",
                "{{-3}} {{1.50}} {{true}} {{null}}|",
                "{{Target.metadata.annotations.evil}}");
    }

    private static MustacheText direct(String template) {
        SourceText source = new SourceText(template);
        return MustacheText.compile(source, Tags.scan(source), "");
    }

    private static MustacheText viaJmustache(String template) {
        SourceText source = new SourceText(template);
        return MustacheText.compileViaJmustache(source, Tags.scan(source), "");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("texts")
    void rendersLikeJmustache(String template) {
        assertThat(direct(template).render(Scope.root(CONTEXT)), is(viaJmustache(template).render(Scope.root(CONTEXT))));
        // inside a section's scope too (names resolve in the element first)
        Scope nested = Scope.root(CONTEXT).nest(Fixtures.json("{\"Namespace\": \"inner\", \"name\": \"n\"}"),
                new SourceText(template), 0);
        assertThat(direct(template).render(nested), is(viaJmustache(template).render(nested)));
        assertThat(Templates.compileText(template).render(CONTEXT), is(viaJmustache(template).render(Scope.root(CONTEXT))));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("errors")
    void failsLikeJmustache(String template) {
        TemplateException direct = assertThrows(TemplateException.class, () -> direct(template).render(Scope.root(CONTEXT)));
        TemplateException jmustache = assertThrows(TemplateException.class,
                () -> viaJmustache(template).render(Scope.root(CONTEXT)));
        assertThat(List.of(direct.getMessage(), direct.line(), direct.column()),
                is(List.of(jmustache.getMessage(), jmustache.line(), jmustache.column())));
    }

    static Stream<String> errors() {
        return Stream.of(
                "x {{Target.spec.containers[\"name\"]}}",
                "{{Target.metadata[0]}} y",
                "{{\"%%\" | b64dec}}");
    }
}
