package io.remold.templating;

import static io.remold.templating.Fixtures.POD;
import static io.remold.templating.Fixtures.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The function {@code external}: what each kind of answer renders to, and that Go templates cannot call it. */
class ExternalFunctionTest {

    /** Answers from fixed tables; "closed" fails closed, "open" fails open, and it records every key it is asked. */
    private static final class FakeProviders implements ExternalData {
        final List<String> asked = new ArrayList<>();

        @Override
        public Map<String, Answer> fetch(String provider, Collection<String> keys) {
            asked.addAll(keys);
            String key = keys.iterator().next();
            Answer answer = switch (provider + "/" + key) {
                case "mirror/their-repo/nginx:1.14.2" -> Answer.of(json("\"mirror.io/nginx:1.14.2\""), "file");
                case "teams/shop" -> Answer.of(json("{\"owner\": \"ana\", \"tier\": 2}"), "file");
                case "teams/web" -> Answer.of(JsonValue.NULL, "file");
                default -> Answer.failed("no such key", provider.equals("open"), "file");
            };
            return Map.of(key, answer);
        }
    }

    private static TemplateContext context(ExternalData external) {
        return new TemplateContext(POD, "shop", json("{\"image\": \"their-repo/nginx:1.14.2\"}"), List.of(), "CREATE",
                null, external);
    }

    static Stream<Arguments> texts() {
        return Stream.of(
                Arguments.of("{{external \"mirror\" SelectedItem.image}}", "mirror.io/nginx:1.14.2"),
                Arguments.of("{{SelectedItem.image | external \"mirror\"}}", "mirror.io/nginx:1.14.2"),
                Arguments.of("{{SelectedItem.image | external \"mirror\" | upper}}", "MIRROR.IO/NGINX:1.14.2"),
                Arguments.of("{{external \"teams\" Namespace | toJson}}", "{\"owner\":\"ana\",\"tier\":2}"),
                Arguments.of("{{external \"teams\" Target.metadata.labels.app | default \"none\"}}", "none"),
                Arguments.of("{{external \"open\" Namespace}}", ""),
                Arguments.of("{{external \"open\" Namespace | default \"fallback\"}}", "fallback"),
                Arguments.of("{{external \"closed\" Target.metadata.missing | default \"unasked\"}}", "unasked"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("texts")
    void rendersText(String template, String expected) {
        assertThat(Templates.compileText(template).render(context(new FakeProviders())), is(expected));
    }

    @Test
    void anObjectAnswerStaysAnObjectInAValue() {
        JsonValue value = Templates.compileValue("{{external \"teams\" Namespace}}").render(context(new FakeProviders()));
        assertThat(value, is(json("{\"owner\": \"ana\", \"tier\": 2}")));
        JsonValue nested = Templates.compileValue("team: {{external \"teams\" Namespace}}")
                .render(context(new FakeProviders()));
        assertThat(nested, is(json("{\"team\": {\"owner\": \"ana\", \"tier\": 2}}")));
    }

    @Test
    void aClosedFailureFailsTheRenderNamingProviderKeyAndError() {
        TemplateException e = assertThrows(TemplateException.class, () -> Templates
                .compileText("image: {{SelectedItem.image | external \"closed\"}}").render(context(new FakeProviders())));
        assertThat(e.getMessage(), is("external \"closed\" key \"their-repo/nginx:1.14.2\": no such key"
                + " at line 1, column 31"));
    }

    @Test
    void withoutExternalDataEveryCallFailsClosed() {
        TemplateException e = assertThrows(TemplateException.class,
                () -> Templates.compileText("{{external \"mirror\" Namespace}}").render(Fixtures.CONTEXT));
        assertThat(e.getMessage(), containsString("external \"mirror\" key \"shop\": no external data provider"));
    }

    @Test
    void everyRenderAsksAgain() {
        // the view of each request decides what is cached: a call site keeps nothing between renders
        var providers = new FakeProviders();
        TextTemplate template = Templates.compileText("{{external \"mirror\" SelectedItem.image}}");
        template.render(context(providers));
        template.render(context(providers));
        assertThat(providers.asked, is(List.of("their-repo/nginx:1.14.2", "their-repo/nginx:1.14.2")));
    }

    @Test
    void aRecordingViewKeepsOneExplainLinePerAnswer() {
        ExternalData view = ExternalData.recording(new FakeProviders());
        TextTemplate template = Templates.compileText("{{external \"teams\" Namespace}} {{external \"open\""
                + " Namespace}} {{external \"mirror\" Target.metadata.name}}");
        assertThrows(TemplateException.class, () -> template.render(context(view)));
        assertThat(view.explained(), is(List.of(
                "external teams \"shop\": {\"owner\":\"ana\",\"tier\":2} (file)",
                "external open \"shop\": failed: no such key, failurePolicy Ignore (file)",
                "external mirror \"web-1\": failed: no such key (file)")));
        String longKey = "k".repeat(300);
        assertThat(ExternalData.explain("p", longKey, ExternalData.Answer.of(JsonValue.TRUE, "cache")),
                is("external p \"" + "k".repeat(200) + "...\": true (cache)"));
    }

    @Test
    void takesAProviderAndAKey() {
        TemplateException e = assertThrows(TemplateException.class,
                () -> Templates.compileText("{{external \"mirror\"}}"));
        assertThat(e.getMessage(), containsString("external takes 2 arguments, got 1"));
    }

    @Test
    void goTemplatesOfKubeModRulesCannotCallIt() {
        TemplateException e = assertThrows(TemplateException.class,
                () -> Templates.translateGoTemplate("{{ external \"mirror\" .Target.metadata.name }}"));
        assertThat(e.getMessage(), containsString("function \"external\" is not supported"));
    }
}
