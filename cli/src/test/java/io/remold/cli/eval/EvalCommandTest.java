package io.remold.cli.eval;

import io.remold.cli.eval.ExamplesTest.Run;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.remold.cli.eval.ExamplesTest.yaml;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

/** The command line: every usage and input error path, the output formats, --explain, the exit codes. */
class EvalCommandTest {
    private static final JsonProvider JSON = JsonProvider.provider();

    static final String POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: web
              namespace: shop
            spec:
              containers:
                - name: web
                  image: nginx:latest
            """;

    static final String REJECT_LATEST = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: no-latest
            spec:
              type: Reject
              match:
                - select: '$.spec.containers[*].image'
                  matchRegex: ':latest$'
            """;

    static final String LABEL_POD = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: label-pods
            spec:
              type: Patch
              match:
                - select: '$.kind'
                  matchValue: Pod
              patch:
                - op: add
                  path: /metadata/labels/checked
                  value: '"yes"'
            """;

    static final String ONLY_DEPLOYMENTS = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: only-deployments
            spec:
              type: Patch
              match:
                - select: '$.metadata.name'
                - select: '$.kind'
                  matchValue: Deployment
              patch:
                - op: add
                  path: /metadata/labels/deployment
                  value: '"yes"'
            """;

    @TempDir
    Path dir;

    /** Usage errors are found before any file is read: the files named here do not exist. */
    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', textBlock = """
            ''                                              | --rules is required
            --rules r.yaml                                  | --resource is required
            --resource p.yaml                               | --rules is required
            --rules r.yaml --resource p.yaml --bogus        | unknown option --bogus (argument 5)
            --rules r.yaml pod.yaml                         | unexpected argument "pod.yaml" (argument 3)
            --rules                                         | --rules needs a value (argument 1)
            --rules --resource p.yaml                       | --rules needs a value (argument 1)
            --rules= --resource p.yaml                      | --rules needs a file name (argument 1)
            --resource a.yaml --resource=b.yaml             | --resource given twice (argument 3)
            --rules r.yaml --resource p.yaml --operation PATCH | --operation expects CREATE, UPDATE or DELETE, got "PATCH" (argument 5)
            --rules r.yaml --resource p.yaml --operation CONNECT | --operation expects CREATE, UPDATE or DELETE, got "CONNECT" (argument 5)
            --rules r.yaml --resource p.yaml --output xml   | --output expects yaml, json or patch, got "xml" (argument 5)
            --rules r.yaml --resource p.yaml --ref =x.yaml  | --ref expects NAME=FILE (namespace, node or a reference's name), got "=x.yaml" (argument 5)
            --rules r.yaml --resource p.yaml --ref namespace | --ref expects NAME=FILE (namespace, node or a reference's name), got "namespace" (argument 5)
            --rules r.yaml --resource p.yaml --ref s=a.yaml --ref s=b.yaml | --ref s given twice (argument 7)
            --rules r.yaml --resource p.yaml --ref node=a.yaml --ref node=b.yaml | --ref node given twice (argument 7)
            --rules r.yaml --resource p.yaml --explain=yes  | --explain takes no value (argument 5)
            --rules r.yaml --resource p.yaml --external =x.yaml | --external expects NAME=FILE (a provider's name), got "=x.yaml" (argument 5)
            --rules r.yaml --resource p.yaml --external mirror | --external expects NAME=FILE (a provider's name), got "mirror" (argument 5)
            --rules r.yaml --resource p.yaml --external m= | --external needs a file name (argument 5)
            --rules r.yaml --resource p.yaml --external m=a.yaml --external m=b.yaml | --external m given twice (argument 7)
            --rules r.yaml --resource p.yaml --old o.yaml --operation CREATE | --old does not apply to CREATE
            --rules r.yaml --resource p.yaml --old o.yaml --operation DELETE | --old does not apply to DELETE: --resource is the object being deleted
            """)
    void usageErrors(String args, String message) {
        Run run = Run.of(args.isEmpty() ? List.of() : List.of(args.split(" +")));
        assertThat(run.exit(), is(EvalCommand.INPUT_ERROR));
        assertThat(run.out(), is(emptyString()));
        assertThat(run.err(), equalTo("remold eval: " + message + System.lineSeparator()
                + "remold eval: usage: remold eval --help" + System.lineSeparator()));
    }

    @Test
    void everyFlagIsDocumentedAndEveryDocumentedFlagExists() {
        assertThat("docs/eval.md's flags", ExamplesTest.documentedFlags("eval.md"), equalTo(EvalOptions.FLAGS));
        EvalOptions.FLAGS.stream().filter(flag -> !flag.equals("--help"))
                .forEach(flag -> assertThat(EvalOptions.USAGE, containsString(flag)));
    }

    @Test
    void helpPrintsUsage() {
        Run run = Run.of(List.of("--help"));
        assertThat(run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.out(), startsWith("usage: remold eval --rules PATH"));
    }

    @Test
    void missingResourceFile() throws IOException {
        Path rules = write("rules.yaml", REJECT_LATEST);
        Run run = eval("--rules", rules, "--resource", dir.resolve("nope.yaml"));
        assertError(run, "remold eval: --resource " + dir.resolve("nope.yaml") + ": cannot read (NoSuchFileException");
    }

    @Test
    void missingRulesPath() throws IOException {
        Path pod = write("pod.yaml", POD);
        Run run = eval("--rules", dir.resolve("rules"), "--resource", pod);
        assertError(run, "remold eval: --rules " + dir.resolve("rules") + ": no such file or folder");
    }

    @Test
    void rulesFolderWithoutRules() throws IOException {
        Path pod = write("pod.yaml", POD);
        Path empty = Files.createDirectory(dir.resolve("rules"));
        write("rules/notes.txt", "not a rule");
        Run run = eval("--rules", empty, "--resource", pod);
        assertError(run, "remold eval: --rules " + empty + ": no .yaml, .yml or .json file in this folder");
    }

    @Test
    void ruleWithBrokenYamlNamesFileAndPosition() throws IOException {
        Path pod = write("pod.yaml", POD);
        Path rules = write("rules.yaml", REJECT_LATEST + "---\nkind: ModRule\nmetadata: {name: x\nspec: {}\n");
        Run run = eval("--rules", rules, "--resource", pod);
        assertError(run, "remold eval: " + rules + ": document 2 (line 13, column 5): invalid YAML: expected ',' or '}'");
    }

    @Test
    void ruleWithBadFieldNamesFieldAndPosition() throws IOException {
        Path pod = write("pod.yaml", POD);
        Path rules = write("rules.yaml", REJECT_LATEST.replace("matchRegex: ':latest$'",
                "matchRegex: ':latest$'\n      matchFor: Some"));
        Run run = eval("--rules", rules, "--resource", pod);
        assertError(run, "remold eval: " + rules + ": document 1 (line 10, column 7): spec.match[0].matchFor: expected Any or All, got \"Some\"");
    }

    @Test
    void ruleThatDoesNotCompileNamesFieldAndPosition() throws IOException {
        Path pod = write("pod.yaml", POD);
        // The second document of a file in a folder; the regex value starts at line 19, column 19.
        write("rules/a.yaml", REJECT_LATEST + "---\n" + REJECT_LATEST.replace("no-latest", "broken")
                .replace("':latest$'", "'(:latest$'"));
        Run run = eval("--rules", dir.resolve("rules"), "--resource", pod);
        assertError(run, "remold eval: " + dir.resolve("rules/a.yaml")
                + ": document 2 (line 19, column 19): spec.match[0].matchRegex: rule broken: missing closing )");
    }

    @Test
    void ruleWithBadSelectNamesFieldAndPosition() throws IOException {
        Path pod = write("pod.yaml", POD);
        Path rules = write("rules.yaml", REJECT_LATEST.replace("'$.spec.containers[*].image'",
                "'$.spec.containers[*.image'"));
        Run run = eval("--rules", rules, "--resource", pod);
        assertError(run, "remold eval: " + rules + ": document 1 (line 8, column ");
        assertThat(run.err(), containsString("spec.match[0].select: rule no-latest: "));
    }

    @Test
    void ruleWithSeveralProblemsListsEachOnItsOwnLine() throws IOException {
        Path pod = write("pod.yaml", POD);
        Path rules = write("rules.yaml", LABEL_POD.replace("'$.kind'", "'$.kind['")
                .replace("value: '\"yes\"'", "value: '{{Target.metadata.name'"));
        Run run = eval("--rules", rules, "--resource", pod);
        assertThat(run.exit(), is(EvalCommand.INPUT_ERROR));
        List<String> lines = run.err().lines().toList();
        assertThat(run.err(), lines.size(), is(2));
        assertThat(lines.get(0), startsWith("remold eval: " + rules
                + ": document 1 (line 8, column 23): spec.match[0].select: rule label-pods: "));
        assertThat(lines.get(1), startsWith("remold eval: " + rules
                + ": document 1 (line 13, column 14): spec.patch[0].value: rule label-pods: "));
    }

    @Test
    void ruleDefinedTwiceNamesBothPlaces() throws IOException {
        Path pod = write("pod.yaml", POD);
        Path first = write("a.yaml", LABEL_POD);
        Path second = write("b.yaml", REJECT_LATEST + "---\n" + LABEL_POD.replace("checked", "other"));
        Run run = eval("--rules", first, "--rules", second, "--resource", pod);
        assertError(run, "remold eval: rule label-pods is defined twice: " + first + ": document 1 and " + second
                + ": document 2" + System.lineSeparator());
    }

    @Test
    void brokenRuleInsideAListNamesItsItem() throws IOException {
        Path pod = write("pod.yaml", POD);
        Path rules = write("rules.json", """
                {"apiVersion": "v1", "kind": "List", "items": [
                  {"apiVersion": "remold.io/v1beta1", "kind": "ModRule", "metadata": {"name": "good"},
                   "spec": {"type": "Reject", "match": [{"select": "$.kind", "matchValue": "Pod"}]}},
                  {"apiVersion": "remold.io/v1beta1", "kind": "ModRule", "metadata": {"name": "bad"},
                   "spec": {"type": "Reject", "match": [{"select": "$.kind", "matchRegex": "(Pod"}]}}
                ]}
                """);
        Run run = eval("--rules", rules, "--resource", pod);
        assertError(run, "remold eval: " + rules
                + ": document 1 (line 5, column 76): items[1].spec.match[0].matchRegex: rule bad: missing closing )");
    }

    @Test
    void resourceWithBrokenYaml() throws IOException {
        Path rules = write("rules.yaml", REJECT_LATEST);
        Path pod = write("pod.yaml", "kind: Pod\nmetadata:\n  name: [web\n");
        Run run = eval("--rules", rules, "--resource", pod);
        assertError(run, "remold eval: " + pod + ": document 1 (line 4, column 1): invalid YAML: ");
    }

    @Test
    void resourceThatIsNotAnObject() throws IOException {
        Path rules = write("rules.yaml", REJECT_LATEST);
        Path pod = write("pod.yaml", "- kind: Pod\n");
        Run run = eval("--rules", rules, "--resource", pod);
        assertError(run, "remold eval: --resource " + pod + ": expected an object, got array");
    }

    @Test
    void resourceWithTwoDocuments() throws IOException {
        Path rules = write("rules.yaml", REJECT_LATEST);
        Path pod = write("pod.yaml", POD + "---\n" + POD);
        Run run = eval("--rules", rules, "--resource", pod);
        assertError(run, "remold eval: --resource " + pod + ": expected one YAML or JSON document, found 2");
    }

    @Test
    void brokenReferenceFileNamesItsFlag() throws IOException {
        Path rules = write("rules.yaml", REJECT_LATEST);
        Path pod = write("pod.yaml", POD);
        Run run = eval("--rules", rules, "--resource", pod, "--ref", "node=" + dir.resolve("node.yaml"));
        assertError(run, "remold eval: --ref node " + dir.resolve("node.yaml") + ": cannot read (NoSuchFileException");
    }

    @Test
    void rejectionGoesToStderrWithExitCode1() throws IOException {
        Path rules = write("rules.yaml", REJECT_LATEST);
        Path pod = write("pod.json", """
                {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "shop"},
                 "spec": {"containers": [{"name": "web", "image": "nginx:latest"}]}}
                """);
        Run run = eval("--rules", rules, "--resource", pod);
        assertThat(run.exit(), is(EvalCommand.REJECTED));
        assertThat(run.out(), is(emptyString()));
        assertThat(run.err(), equalTo("operation rejected by the following ModRule(s): shop/no-latest"
                + System.lineSeparator()));
    }

    @Test
    void deleteIsJudgedOnTheDeletedObject() throws IOException {
        Path rules = write("rules.yaml", REJECT_LATEST.replace("type: Reject",
                "type: Reject\n  admissionOperations: [DELETE]\n  rejectMessage: 'keep {{Target.metadata.name}}'"));
        Path pod = write("pod.yaml", POD);
        assertThat(eval("--rules", rules, "--resource", pod).exit(), is(EvalCommand.ALLOWED));
        Run delete = eval("--rules", rules, "--resource", pod, "--operation", "delete");
        assertThat(delete.exit(), is(EvalCommand.REJECTED));
        assertThat(delete.err(), equalTo("operation rejected by the following ModRule(s): shop/no-latest: \"keep web\""
                + System.lineSeparator()));
        assertThat(delete.out(), is(emptyString()));
    }

    @Test
    void namespaceFlagOverridesTheObjectsNamespace() throws IOException {
        Path rules = write("rules.yaml", REJECT_LATEST.replace("name: no-latest", "name: no-latest\n  namespace: team-a"));
        Path pod = write("pod.yaml", POD);
        assertThat(eval("--rules", rules, "--resource", pod).exit(), is(EvalCommand.ALLOWED));
        Run run = eval("--rules", rules, "--resource", pod, "--namespace", "team-a");
        assertThat(run.exit(), is(EvalCommand.REJECTED));
        assertThat(run.err(), containsString("team-a/no-latest"));
    }

    @Test
    void clusterScopedKindsHaveNoNamespace() throws IOException {
        // A system-namespace rule without targetNamespaceRegex looks only at cluster-scoped objects.
        Path rules = write("rules.yaml", REJECT_LATEST.replace("name: no-latest", "name: cluster-only\n  namespace: remold-system")
                .replace("'$.spec.containers[*].image'", "'$.metadata.name'").replace("':latest$'", "'^web$'"));
        Path namespace = write("namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n");
        Path pod = write("pod.yaml", POD);
        assertThat(eval("--rules", rules, "--resource", namespace).exit(), is(EvalCommand.REJECTED));
        assertThat(eval("--rules", rules, "--resource", pod).exit(), is(EvalCommand.ALLOWED));
        assertThat(eval("--rules", rules, "--resource", pod, "--namespace=").exit(), is(EvalCommand.REJECTED));
        assertThat(eval("--rules", rules, "--resource", namespace, "--namespace", "default").exit(),
                is(EvalCommand.ALLOWED));
    }

    @Test
    void outputFormats() throws IOException {
        Path rules = write("rules.yaml", LABEL_POD);
        Path pod = write("pod.yaml", POD);
        JsonValue expected = yaml(POD.replace("  namespace: shop\n", "  namespace: shop\n  labels:\n    checked: \"yes\"\n"));

        Run asYaml = eval("--rules", rules, "--resource", pod);
        assertThat(asYaml.err(), asYaml.exit(), is(EvalCommand.ALLOWED));
        assertThat(yaml(asYaml.out()), equalTo(expected));

        Run asJson = eval("--rules", rules, "--resource", pod, "--output", "json");
        assertThat(asJson.exit(), is(EvalCommand.ALLOWED));
        assertThat(json(asJson.out()), equalTo(expected));

        Run asPatch = eval("--rules", rules, "--resource", pod, "--output=patch");
        assertThat(asPatch.exit(), is(EvalCommand.ALLOWED));
        assertThat(json(asPatch.out()), equalTo(json("""
                [{"op": "add", "path": "/metadata/labels", "value": {"checked": "yes"}}]""")));
    }

    @Test
    void noMatchingRuleGivesTheObjectAndAnEmptyPatch() throws IOException {
        Path rules = write("rules.yaml", ONLY_DEPLOYMENTS);
        Path pod = write("pod.yaml", POD);
        Run run = eval("--rules", rules, "--resource", pod);
        assertThat(run.exit(), is(EvalCommand.ALLOWED));
        assertThat(yaml(run.out()), equalTo(yaml(POD)));
        Run patch = eval("--rules", rules, "--resource", pod, "--output", "patch");
        assertThat(patch.out(), equalTo("[]" + System.lineSeparator()));
    }

    @Test
    void explainNamesTheFailedMatchItemAndWhatWasApplied() throws IOException {
        write("rules/a.yaml", LABEL_POD);
        write("rules/b.yaml", ONLY_DEPLOYMENTS);
        write("rules/c.yaml", REJECT_LATEST);
        Path pod = write("pod.yaml", POD);
        Run run = eval("--rules", dir.resolve("rules"), "--resource", pod, "--explain");
        assertThat(run.exit(), is(EvalCommand.REJECTED));
        String err = run.err();
        assertThat(err, containsString("Patch rules:"));
        assertThat(err, containsString("label-pods (tier 0): matched, applied [{\"op\":\"add\""));
        assertThat(err, containsString("only-deployments (tier 0): not matched: spec.match[1] ($.kind): "));
        assertThat(err, containsString("Reject rules:"));
        assertThat(err, containsString("no-latest (tier 0): matched: rejects"));
        assertThat(err, containsString("operation rejected by the following ModRule(s): shop/no-latest"));
    }

    @Test
    void explainShowsHowEachReferenceResolved() throws IOException {
        Path example = ExamplesTest.EXAMPLES.resolve("references/team-settings");
        Path settings = example.resolve("refs/settings.yaml");
        Run run = eval("--rules", example.resolve("rule.yaml"), "--resource", example.resolve("input.yaml"),
                "--ref", "settings=" + settings, "--explain");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.err(), containsString("shop/team-cost-centre (tier 0): matched, applied"));
        assertThat(run.err(), containsString("    reference settings: v1 ConfigMap shop/team-payments: found (--ref settings="
                + settings + ")"));

        Run missing = eval("--rules", example.resolve("rule.yaml"), "--resource", example.resolve("input.yaml"),
                "--explain");
        assertThat(missing.err(), containsString("shop/team-cost-centre (tier 0): not matched: reference settings: "
                + "v1 ConfigMap shop/team-payments not found (no --ref settings=FILE) (onMissing: skip)"));

        Path list = write("two.yaml", "apiVersion: v1\nkind: List\nitems: [{kind: ConfigMap}, {kind: ConfigMap}]\n");
        Run two = eval("--rules", example.resolve("rule.yaml"), "--resource", example.resolve("input.yaml"),
                "--ref", "settings=" + list);
        assertThat(two.err(), containsString("rule shop/team-cost-centre failed: reference settings"));
        assertThat(two.err(), containsString("names one object, the file has 2"));
    }

    @Test
    void explainShowsWhatEachExternalCallAnswered() throws IOException {
        Path example = ExamplesTest.EXAMPLES.resolve("external/mirror-images");
        Path mirror = example.resolve("external/registry-mirror.yaml");
        Run run = eval("--rules", example.resolve("rule.yaml"), "--resource", example.resolve("input.yaml"),
                "--external", "registry-mirror=" + mirror, "--explain");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.err(), containsString("  shop/mirror-images (tier 0): matched, applied ["));
        assertThat(run.err(), containsString("    external registry-mirror \"nginx:1.27\": "
                + "\"mirror.example.com/library/nginx:1.27\" (" + mirror + ")" + System.lineSeparator()
                + "    external registry-mirror \"redis:7.2\": \"mirror.example.com/library/redis:7.2\" (" + mirror
                + ")"));
    }

    private static final String MIRROR = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: mirror}
            spec:
              type: Patch
              match: [{select: '$.kind', matchValue: Pod}]
              patch:
                - op: replace
                  path: /spec/containers/0/image
                  value: '{{ external "mirror" Target.spec.containers[0].image | default "kept" }}'
            """;

    @Test
    void externalAnswersComeFromAMappingOrAProviderResponseAndFailClosedUnlessTheProviderIgnores()
            throws IOException {
        Path pod = write("pod.yaml", POD);
        Path rules = write("mirror.yaml", MIRROR);
        Path mapping = write("mapping.yaml", "nginx:latest: {registry: m.io}\n");
        Run mapped = eval("--rules", rules, "--resource", pod, "--external", "mirror=" + mapping, "--output", "patch");
        assertThat(mapped.err(), mapped.exit(), is(EvalCommand.ALLOWED));
        assertThat(mapped.out(), containsString("\"value\":{\"registry\":\"m.io\"}"));

        Path response = write("response.yaml", """
                apiVersion: externaldata.gatekeeper.sh/v1beta1
                kind: ProviderResponse
                response:
                  items: [{key: "nginx:latest", error: "image not mirrored"}]
                """);
        Run failed = eval("--rules", rules, "--resource", pod, "--external", "mirror=" + response);
        assertThat(failed.exit(), is(EvalCommand.ALLOWED));
        assertThat(failed.err(), startsWith("remold eval: rule mirror failed: value of replace"
                + " /spec/containers/0/image: external \"mirror\" key \"nginx:latest\": image not mirrored"));

        Path system = write("system.yaml", "kind: ProviderResponse\nresponse: {systemError: down for maintenance}\n");
        assertThat(eval("--rules", rules, "--resource", pod, "--external", "mirror=" + system).err(),
                containsString("key \"nginx:latest\": down for maintenance"));
        assertThat(eval("--rules", rules, "--resource", pod).err(),
                containsString("key \"nginx:latest\": no --external file for provider mirror"));
        assertThat(eval("--rules", rules, "--resource", pod, "--external", "mirror=" + write("empty.yaml", "{}")).err(),
                containsString("key \"nginx:latest\": not in " + dir.resolve("empty.yaml")));

        Path ignoring = write("ignoring.yaml", MIRROR + """
                ---
                apiVersion: remold.io/v1beta1
                kind: Provider
                metadata: {name: mirror}
                spec: {url: "https://mirror.tools.svc:8443/lookup", failurePolicy: Ignore}
                """);
        Run open = eval("--rules", ignoring, "--resource", pod, "--external", "mirror=" + response, "--explain",
                "--output", "patch");
        assertThat(open.err(), open.exit(), is(EvalCommand.ALLOWED));
        assertThat(open.out(), containsString("\"value\":\"kept\""));
        assertThat(open.err(), containsString("    external mirror \"nginx:latest\": failed: image not mirrored,"
                + " failurePolicy Ignore (" + response + ")"));
    }

    /** A rule in namespace shop asks the Provider of the rule files only when its spec.namespaces serves shop. */
    @Test
    void aProviderOfTheRuleFilesServesOnlyTheNamespacesItNames() throws IOException {
        Path pod = write("pod.yaml", POD);
        Path mapping = write("mapping.yaml", "nginx:latest: m.io/nginx:latest\n");
        String shopRule = MIRROR.replace("metadata: {name: mirror}", "metadata: {name: mirror, namespace: shop}")
                .replace(" | default \"kept\"", "");
        String provider = """
                ---
                apiVersion: remold.io/v1beta1
                kind: Provider
                metadata: {name: mirror}
                spec: {url: "https://mirror.tools.svc:8443/lookup", failurePolicy: Ignore, namespaces: [%s]}
                """;
        Run refused = eval("--rules", write("other.yaml", shopRule + provider.formatted("other")), "--resource", pod,
                "--external", "mirror=" + mapping, "--explain");
        assertThat(refused.exit(), is(EvalCommand.ALLOWED));
        assertThat(refused.err(), containsString("rule shop/mirror failed: value of replace /spec/containers/0/image:"
                + " external \"mirror\" key \"nginx:latest\": Provider mirror does not serve rules in namespace shop"
                + " (its spec.namespaces)"));
        assertThat(refused.err(), containsString("    external mirror \"nginx:latest\": failed: Provider mirror does"
                + " not serve rules in namespace shop (its spec.namespaces) (refused)"));
        for (String rules : List.of(shopRule + provider.formatted("shop"), shopRule + provider.formatted("'*'"),
                shopRule)) { // by name, by "*", and a file provider without a Provider document
            Run served = eval("--rules", write("served.yaml", rules), "--resource", pod, "--external",
                    "mirror=" + mapping, "--output", "patch");
            assertThat(served.err(), served.exit(), is(EvalCommand.ALLOWED));
            assertThat(served.out(), containsString("\"value\":\"m.io/nginx:latest\""));
        }
    }

    @Test
    void explainShowsWhatAMutatorsExternalDataAnswered() {
        Path example = ExamplesTest.EXAMPLES.resolve("gatekeeper/image-digests");
        Path digests = example.resolve("external/image-digests.yaml");
        Run run = eval("--rules", example.resolve("rule.yaml"), "--resource", example.resolve("input.yaml"),
                "--external", "image-digests=" + digests, "--explain");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.err(), containsString("  Assign/pin-digests: changed the object, ["));
        assertThat(run.err(), containsString(System.lineSeparator() + "    external image-digests \"ghcr.io/shop/api:2.1\": "
                + "\"ghcr.io/shop/api@sha256:1111111111111111111111111111111111111111111111111111111111111111\" ("
                + digests + ")" + System.lineSeparator() + "    external image-digests \"envoyproxy/envoy:v1.31\": "));

        Run unanswered = eval("--rules", example.resolve("rule.yaml"), "--resource", example.resolve("input.yaml"),
                "--explain");
        assertThat(unanswered.err(), containsString("  gatekeeper-mutation: failed: mutation for mutator"
                + " Assign.mutations.gatekeeper.sh /pin-digests failed for Pod shop api: externalData provider"
                + " \"image-digests\" key \"ghcr.io/shop/api:2.1\": no --external file for provider image-digests"));
        assertThat(unanswered.err(), containsString("    external image-digests \"envoyproxy/envoy:v1.31\": failed:"
                + " no --external file for provider image-digests (eval)"));
    }

    @Test
    void aBrokenExternalFileIsBadInput() throws IOException {
        Path pod = write("pod.yaml", POD);
        Path rules = write("mirror.yaml", MIRROR);
        Path list = write("list.yaml", "[a, b]\n");
        assertError(eval("--rules", rules, "--resource", pod, "--external", "mirror=" + list),
                "remold eval: --external mirror " + list + ": expected one mapping of key to value, or a"
                        + " ProviderResponse");
        Path items = write("items.yaml", "kind: ProviderResponse\nresponse: {items: [{value: x}]}\n");
        assertError(eval("--rules", rules, "--resource", pod, "--external", "mirror=" + items),
                "remold eval: --external mirror " + items + ": response.items[0]: expected an object with a string key");
    }

    @Test
    void explainListsRulesOutOfScope() throws IOException {
        write("rules/a.yaml", LABEL_POD.replace("name: label-pods", "name: label-pods\n  namespace: team-a"));
        write("rules/b.yaml", REJECT_LATEST.replace("type: Reject", "type: Reject\n  admissionOperations: [CREATE]"));
        Path pod = write("pod.yaml", POD);
        Run run = eval("--rules", dir.resolve("rules"), "--resource", pod, "--operation", "DELETE", "--explain");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.err(), equalTo(String.join(System.lineSeparator(),
                "Patch rules:",
                "  none run: DELETE requests are never patched",
                "Reject rules:",
                "  no-latest (tier 0): not matched: operation DELETE is not in admissionOperations [CREATE]",
                "")));
        Run create = eval("--rules", dir.resolve("rules"), "--resource", pod, "--explain");
        assertThat(create.err(), containsString("  team-a/label-pods (tier 0): not in scope for this namespace"));
    }

    static final String ASSIGN_PULL_POLICY = """
            apiVersion: mutations.gatekeeper.sh/v1
            kind: Assign
            metadata:
              name: always-pull
            spec:
              applyTo:
                - groups: [""]
                  kinds: ["Pod"]
                  versions: ["v1"]
              location: "spec.containers[name: *].imagePullPolicy"
              parameters:
                assign:
                  value: Always
            """;

    @Test
    void gatekeeperMutatorsRunAfterModRulesFromTheSameFilesAndAreExplained() throws IOException {
        Path rules = write("rules.yaml", LABEL_POD + "---\n" + ASSIGN_PULL_POLICY
                + "---\n" + ASSIGN_PULL_POLICY.replace("always-pull", "never-matches").replace("Pod", "Service"));
        Path pod = write("pod.yaml", POD);
        Run run = eval("--rules", rules, "--resource", pod, "--output", "patch", "--explain");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.out(), equalTo(String.join(System.lineSeparator(), "[",
                "  {\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"checked\":\"yes\"}},",
                "  {\"op\":\"add\",\"path\":\"/spec/containers/0/imagePullPolicy\",\"value\":\"Always\"}", "]", "")));
        assertThat(run.err(), containsString("Gatekeeper mutators (after the Patch rules, in order, until nothing"
                + " changes):"));
        assertThat(run.err(), containsString("  Assign/always-pull: changed the object, [{\"op\":\"add\""));
        assertThat(run.err(), containsString("  Assign/never-matches: not applied"));
    }

    @Test
    void anInvalidMutatorIsBadInputNamingItsFieldLineAndGatekeepersReason() throws IOException {
        Path rules = write("rules.yaml", LABEL_POD + "---\n"
                + ASSIGN_PULL_POLICY.replace("spec.containers[name: *]", "spec.containers[name: *"));
        Path pod = write("pod.yaml", POD);
        Run run = eval("--rules", rules, "--resource", pod);
        assertError(run, "remold eval: " + rules + ": document 2 (line 24, column 3): spec.location: "
                + "invalid location format");
        assertThat(run.err(), containsString("got '.' at position 23"));
    }

    @Test
    void twoMutatorsOfOneKindAndNameAreRefused() throws IOException {
        write("rules/a.yaml", ASSIGN_PULL_POLICY);
        write("rules/b.yaml", ASSIGN_PULL_POLICY.replace("Always", "Never"));
        Path pod = write("pod.yaml", POD);
        Run run = eval("--rules", dir.resolve("rules"), "--resource", pod);
        assertError(run, "remold eval: rule Assign/always-pull is defined twice: " + dir.resolve("rules/a.yaml")
                + ": document 1 and " + dir.resolve("rules/b.yaml") + ": document 1");
    }

    @Test
    void failingPatchRuleIsReportedAndTheOtherRulesStillApply() throws IOException {
        Path rules = write("rules.yaml", LABEL_POD + "---\n" + LABEL_POD.replace("name: label-pods", "name: bad-replace")
                .replace("op: add", "op: replace").replace("/metadata/labels/checked", "/spec/hostname"));
        Path pod = write("pod.yaml", POD);
        Run run = eval("--rules", rules, "--resource", pod);
        assertThat(run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.err(), startsWith("remold eval: rule bad-replace failed: "));
        assertThat(yaml(run.out()), equalTo(yaml(POD.replace("  namespace: shop\n",
                "  namespace: shop\n  labels:\n    checked: \"yes\"\n"))));
    }

    /** F18, F4: a JSON resource is read as the server reads a request: positioned errors, numbers in range. */
    @Test
    void aJsonResourceIsReadAsTheServerReadsIt() throws IOException {
        Path rules = write("rules.yaml", LABEL_POD);
        Path huge = write("pod.json", "{\"kind\": \"Pod\", \"metadata\": {\"name\": 1e999999999}}");
        assertError(eval("--rules", rules, "--resource", huge), "remold eval: --resource " + huge
                + ": number 1e999999999 is out of range (beyond a float64) at line 1, column 38");
        Path flow = write("flow.txt", "  {kind: Pod, metadata: {name: web}}");
        assertThat(eval("--rules", rules, "--resource", flow).exit(), is(EvalCommand.ALLOWED));
        Path pod = write("pod.txt", "\n{\"kind\": \"Pod\", \"metadata\": {\"name\": \"web\", \"namespace\": \"shop\"}}");
        Run run = eval("--rules", rules, "--resource", pod, "--output", "patch");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.out(), containsString("\"path\":\"/metadata/labels\""));
    }

    private static final String READS_SETTINGS = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: settings
              namespace: shop
            spec:
              type: Patch
              match:
                - select: '$.kind'
              references:
                - name: settings
                  apiVersion: v1
                  kind: ConfigMap
                  objectName: settings
                  onMissing: skip
              patch:
                - op: add
                  path: /metadata/labels/team
                  value: '{{ References.settings.data.team }}'
            """;

    /**
     * eval refuses what the server refuses: a namespaced rule's reference that names a namespace (fixed or
     * templated) or a cluster-scoped kind.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            'namespace: other'              | spec.references[0].namespace: rule shop/settings: only rules in the system namespace may read another namespace; this rule reads its own (shop)
            'namespace: ''{{ Namespace }}''' | spec.references[0].namespace: rule shop/settings: only rules in the system namespace may read another namespace; this rule reads its own (shop)
            'kind: Namespace'               | spec.references[0].kind: rule shop/settings: namespaces are cluster-scoped: only rules in the system namespace may reference them
            """)
    void aNamespacedRuleIsHeldToItsNamespace(String line, String message) throws IOException {
        String rule = line.startsWith("kind:") ? READS_SETTINGS.replace("kind: ConfigMap", line)
                : READS_SETTINGS.replace("onMissing: skip", "onMissing: skip\n      " + line);
        Run run = eval("--rules", write("rules.yaml", rule), "--resource", write("pod.yaml", POD));
        assertThat(run.err(), run.exit(), is(EvalCommand.INPUT_ERROR));
        assertThat(run.err(), containsString(message));
    }

    /** A selector reference's objects come sorted by name, as the server's caches give them. */
    @Test
    void aSelectorReferenceIsSortedByName() throws IOException {
        Path rules = write("rules.yaml", """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata:
                  name: names
                spec:
                  type: Patch
                  match:
                    - select: '$.kind'
                  references:
                    - name: maps
                      apiVersion: v1
                      kind: ConfigMap
                      labelSelector: {matchLabels: {team: a}}
                      onMissing: skip
                  patch:
                    - op: add
                      path: /metadata/annotations
                      value: 'names: "{{#References.maps}}{{ metadata.name }} {{/References.maps}}"'
                """);
        Path maps = write("maps.yaml", "{kind: ConfigMap, metadata: {name: c}}\n---\n{kind: ConfigMap, metadata: {name: a}}"
                + "\n---\n{kind: ConfigMap, metadata: {name: b}}\n");
        Run run = eval("--rules", rules, "--resource", write("pod.yaml", POD), "--ref", "maps=" + maps,
                "--output", "patch");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.out(), containsString("\"names\":\"a b c \""));
    }

    /** F13: a KubeMod rule in kubemod-system is cluster-wide only when eval is told the namespace. */
    @Test
    void kubemodSystemIsClusterWideOnlyWhenNamed() throws IOException {
        Path rules = write("rules.yaml", """
                apiVersion: api.kubemod.io/v1beta1
                kind: ModRule
                metadata:
                  name: miner
                  namespace: kubemod-system
                spec:
                  type: Patch
                  targetNamespaceRegex: '.*'
                  match:
                    - select: '$.kind'
                      matchValue: Pod
                  patch:
                    - op: add
                      path: /metadata/labels/mined
                      value: '"yes"'
                """);
        Path pod = write("pod.yaml", POD);
        assertThat(eval("--rules", rules, "--resource", pod, "--output", "patch").out(), equalTo("[]\n"));
        assertThat(eval("--rules", rules, "--resource", pod, "--output", "patch", "--kubemod-system-namespace",
                "kubemod-system").out(), containsString("mined"));
    }

    private Run eval(Object... args) {
        var list = new ArrayList<String>();
        for (Object arg : args) {
            list.add(arg.toString());
        }
        return Run.of(list);
    }

    private static void assertError(Run run, String messageStart) {
        assertThat(run.err(), run.exit(), is(EvalCommand.INPUT_ERROR));
        assertThat(run.out(), is(emptyString()));
        assertThat(run.err(), startsWith(messageStart));
    }

    private Path write(String name, String content) throws IOException {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content);
    }

    private static JsonValue json(String text) {
        try (var reader = JSON.createReader(new StringReader(text))) {
            return reader.readValue();
        }
    }
}
