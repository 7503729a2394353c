package io.remold.gatekeeper.match;

import io.remold.api.YamlJson;
import jakarta.json.JsonObject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Match behaviour the corpus does not pin: globs, selector contents, parse errors. */
class MatchTest {
    private static JsonObject json(String yaml) {
        return (JsonObject) YamlJson.parse(yaml, "test").getFirst();
    }

    private static final JsonObject POD = json("""
            apiVersion: v1
            kind: Pod
            metadata: {name: web-1, namespace: kube-system, labels: {app: web, tier: front}}
            """);

    @ParameterizedTest
    @CsvSource({
        "kube-*, kube-system, true", "*-system, kube-system, true", "*be-sy*, kube-system, true",
        "*, anything, true", "kube-, kube-system, false", "kube-system, kube-system, true",
        "*-public, kube-system, false"})
    void globs(String pattern, String candidate, boolean matches) {
        assertEquals(matches, Glob.parse(pattern, "name").matches(candidate));
    }

    @ParameterizedTest
    @CsvSource({"web-*, web-, true", "*web*, x-web-, true", "*-web, x-web, false", "web, web, false"})
    void generateNames(String pattern, String generateName, boolean matches) {
        assertEquals(matches, Glob.parse(pattern, "name").matchesGenerateName(generateName));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{matchExpressions: [{key: app, operator: In, values: [web, api]}]} | true",
        "{matchExpressions: [{key: app, operator: NotIn, values: [web]}]} | false",
        "{matchExpressions: [{key: missing, operator: NotIn, values: [web]}]} | true",
        "{matchExpressions: [{key: tier, operator: Exists}]} | true",
        "{matchExpressions: [{key: tier, operator: DoesNotExist}]} | false",
        "{matchLabels: {app: web}, matchExpressions: [{key: tier, operator: In, values: [back]}]} | false",
        "{} | true"})
    void labelSelectors(String selector, boolean matches) throws MatchException {
        Match match = Match.parse(json("{labelSelector: " + selector + "}"));
        assertEquals(matches, match.matches(POD, null, Source.Original));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{matchExpressions: [{key: app, operator: In}]} | values set can't be empty",
        "{matchExpressions: [{key: app, operator: Exists, values: [x]}]} | values set must be empty",
        "{matchExpressions: [{key: 'a b', operator: Exists}]} | name part must consist",
        "{matchExpressions: [{key: '/app', operator: Exists}]} | prefix part must be non-empty",
        "{matchLabels: {app: 'not valid'}} | a valid label must be an empty string",
        "{matchExpressions: [{key: app, operator: in, values: [x]}]} | \"in\" is not a valid label selector operator"})
    void invalidSelectorsFailTheMatch(String selector, String reason) {
        Match match = Match.parse(json("{labelSelector: " + selector + "}"));
        var e = assertThrows(MatchException.class, () -> match.matches(POD, null, Source.Original));
        assertTrue(e.getMessage().startsWith("failed to run Match criteria: "), e.getMessage());
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{kinds: {}} | kinds",
        "{kinds: [{apiGroups: [1]}]} | kinds[0].apiGroups[0]",
        "{namespaces: [Kube]} | namespaces[0]",
        "{name: 'a*b'} | name",
        "{source: Both} | source",
        "{labelSelector: {matchLabels: {a: 1}}} | labelSelector.matchLabels.a",
        "{namespaceSelector: {matchExpressions: [{key: 1}]}} | namespaceSelector.matchExpressions[0].key"})
    void parseErrorsNameTheField(String match, String field) {
        var e = assertThrows(InvalidMatchException.class, () -> Match.parse(json(match)));
        assertEquals(field, e.field());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{excludedNamespaces: ['kube-*']} | false",
        "{namespaces: ['*-system'], scope: Namespaced} | true",
        "{namespaceSelector: {matchLabels: {team: a}}} | true",
        "{namespaceSelector: {matchLabels: {team: b}}} | false"})
    void theNamespaceObjectDecides(String match, boolean matches) throws MatchException {
        JsonObject namespace = json("{metadata: {name: kube-system, labels: {team: a}}}");
        assertEquals(matches, Match.parse(json(match)).matches(POD, namespace, Source.Original));
    }

    @ParameterizedTest
    @CsvSource({"apps/v1, apps, v1", "v1, '', v1", "group/, group, ''", "a/b/c, '', ''"})
    void kindOf(String apiVersion, String group, String version) {
        GroupVersionKind gvk = GroupVersionKind.of(json("{apiVersion: '" + apiVersion + "', kind: K}"));
        assertEquals(group, gvk.group());
        assertEquals(version, gvk.version());
    }
}
