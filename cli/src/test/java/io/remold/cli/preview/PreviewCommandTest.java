package io.remold.cli.preview;

import io.remold.cli.eval.ExamplesTest;
import io.remold.cli.eval.ExamplesTest.Run;
import io.remold.engine.Family.TargetKind;
import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/** {@code remold preview} on the folder under the test resources (goldens), its flags, and a scripted cluster. */
class PreviewCommandTest {
    private static final Path DIR = Path.of("src/test/resources/io/remold/cli/preview");
    private static final String RULES = DIR.resolve("rules").toString();
    private static final String OBJECTS = DIR.resolve("objects").toString();
    private static final boolean UPDATE = Boolean.getBoolean("remold.updateGolden");
    private static final String NL = System.lineSeparator();

    private static Run preview(String... args) {
        return Run.of((a, out, err) -> PreviewCommand.run(a, out, err, ClusterConnector.NONE), args);
    }

    private static Run preview(ClusterConnector cluster, String... args) {
        return Run.of((a, out, err) -> PreviewCommand.run(a, out, err, cluster), args);
    }

    @ParameterizedTest
    @CsvSource({"text, expected.txt", "json, expected.json"})
    void folderOfManifestsMatchesTheGolden(String output, String golden) throws IOException {
        Run run = preview("--rules", RULES, "--objects", OBJECTS, "--output", output);
        assertThat(run.err(), run.exit(), is(PreviewCommand.DONE));
        assertGolden(DIR.resolve(golden), run.out());
        assertGolden(DIR.resolve("expected-stderr.txt"), run.err());
    }

    private static void assertGolden(Path golden, String actual) throws IOException {
        if (UPDATE) {
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
        }
        assertThat(golden + " (rerun with -Dremold.updateGolden=true and review the diff)", actual,
                equalTo(Files.readString(golden, StandardCharsets.UTF_8)));
    }

    @Test
    void kindAndNamespaceNarrowTheScan() {
        Run run = preview("--rules", RULES, "--objects", OBJECTS, "--kind", "apps/Deployment", "--namespace", "shop",
                "--samples", "0");
        assertThat(run.err(), run.exit(), is(PreviewCommand.DONE));
        assertThat(run.out(), equalTo(String.join(NL,
                "Assign/always-pull (Gatekeeper mutation, Enforce): not scanned: none of its kinds is among --kind",
                "",
                "OverridePolicy/shop/annotate-owner (kinitiras policy, Enforce): 1 of 3 Deployments (apps/v1) would"
                        + " change, 1 would be refused, 0 failed",
                "",
                "shop/team-label (ModRule, Shadow): 2 of 3 Deployments (apps/v1) would change, 0 would be refused,"
                        + " 0 failed",
                "",
                "reject-latest-images (ModRule, Warn): not scanned: none of its kinds is among --kind", "")));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            --objects o                                     | --rules is required
            --rules r.yaml                                  | give either --objects or --kubeconfig: the objects come from a folder or a cluster
            --rules r.yaml --objects o --kubeconfig k       | give either --objects or --kubeconfig: the objects come from a folder or a cluster
            --rules r.yaml --objects o --context c          | --context applies to a cluster (--kubeconfig)
            --rules r.yaml --objects o --qps 5              | --qps applies to a cluster (--kubeconfig)
            --rules r.yaml --kubeconfig k --qps 0           | --qps expects requests a second, more than 0 and at most 1000, got "0" (argument 5)
            --rules r.yaml --objects o --samples -1         | --samples expects a number from 0 to 1000, got "-1" (argument 5)
            --rules r.yaml --objects o --samples many       | --samples expects a number from 0 to 1000, got "many" (argument 5)
            --rules r.yaml --objects o --output yaml        | --output expects text or json, got "yaml" (argument 5)
            --rules r.yaml --objects o --output json --output=text | --output given twice (argument 7)
            --rules r.yaml --objects o --kind deployment    | --kind expects a kind (Deployment) or GROUP/KIND (apps/Deployment, core/Pod), got "deployment" (argument 5)
            --rules r.yaml --objects o --kind apps/v1/Deployment | --kind expects a kind (Deployment) or GROUP/KIND (apps/Deployment, core/Pod), got "apps/v1/Deployment" (argument 5)
            --rules r.yaml --objects o --namespace=         | --namespace needs a value (argument 5)
            --rules r.yaml --objects o --ref namespace=n.yaml | --ref namespace does not apply to preview: each object's namespace and node come from the folder or the cluster
            --rules r.yaml --objects o --ref x              | --ref expects NAME=FILE (a reference's name), got "x" (argument 5)
            --rules r.yaml --objects o --resource p.yaml    | unknown option --resource (argument 5)
            --rules r.yaml --objects o --help=yes           | --help takes no value (argument 5)
            """)
    void usageErrors(String args, String message) {
        Run run = preview(args.split(" +"));
        assertThat(run.exit(), is(PreviewCommand.INPUT_ERROR));
        assertThat(run.out(), is(emptyString()));
        assertThat(run.err(), equalTo("remold preview: " + message + NL
                + "remold preview: usage: remold preview --help" + NL));
    }

    @Test
    void inputErrorsNameTheirPlace(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("rule.yaml"), """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata:
                  name: r
                  annotations:
                    remold.io/mode: Loud
                spec:
                  type: Reject
                  match:
                    - select: '$.kind'
                      matchValue: Pod
                """);
        Run run = preview("--rules", dir.resolve("rule.yaml").toString(), "--objects", OBJECTS);
        assertThat(run.exit(), is(PreviewCommand.INPUT_ERROR));
        assertThat(run.err(), equalTo("remold preview: " + dir.resolve("rule.yaml") + ": document 1 (line 6, column 5):"
                + " metadata.annotations.remold.io/mode: must be Enforce, Shadow or Warn, not \"Loud\"" + NL));

        Run missing = preview("--rules", RULES, "--objects", dir.resolve("nothing").toString());
        assertThat(missing.exit(), is(PreviewCommand.INPUT_ERROR));
        assertThat(missing.err(), equalTo("remold preview: --objects " + dir.resolve("nothing")
                + ": no such file or folder" + NL));
    }

    @Test
    void aRuleNotInForceEvenAloneIsReportedNotScanned(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("policy.yaml"), """
                apiVersion: policy.kcloudlabs.io/v1alpha1
                kind: OverridePolicy
                metadata:
                  name: zone
                  namespace: shop
                spec:
                  resourceSelectors:
                    - apiVersion: apps/v1
                      kind: Deployment
                  overrideRules:
                  - overriders:
                      template:
                        type: annotations
                        operation: replace
                        path: zone
                        valueRef:
                          from: http
                          path: body.zone
                          http: {url: 'https://attacker.example/'}
                """);
        Run run = preview("--rules", dir.resolve("policy.yaml").toString(), "--objects", OBJECTS,
                "--allow-http-ref", "https://zones.example/", "--output", "json");
        assertThat(run.err(), run.exit(), is(PreviewCommand.DONE));
        JsonObject rule = JsonTree.parse(run.out().getBytes(StandardCharsets.UTF_8)).asJsonObject()
                .getJsonArray("rules").getJsonObject(0);
        assertThat(rule.getString("notScanned"), equalTo("not in force even alone: spec.overrideRules[0].overriders"
                + ".template.valueRef.http.url: http valueRef https://attacker.example/: not under a URL prefix the"
                + " server allows (--allow-http-ref https://zones.example/)"));
        assertThat(rule.getJsonObject("total").getInt("evaluated"), is(0));
    }

    @Test
    void aClusterNeedsTheServersJar() {
        Run run = preview("--rules", RULES, "--kubeconfig", "kubeconfig.yaml", "--kind", "Pod");
        assertThat(run.exit(), is(PreviewCommand.INPUT_ERROR));
        assertThat(run.err(), containsString("--kubeconfig needs the server's jar or image"));
    }

    @Test
    void everyFlagIsDocumentedAndEveryDocumentedFlagExists() {
        assertThat("docs/preview.md's flags", ExamplesTest.documentedFlags("preview.md"),
                equalTo(PreviewOptions.FLAGS));
        PreviewOptions.FLAGS.stream().filter(flag -> !flag.equals("--help"))
                .forEach(flag -> assertThat(PreviewOptions.USAGE, containsString(flag)));
        Run help = preview("--help");
        assertThat(help.exit(), is(PreviewCommand.DONE));
        assertThat(help.out(), equalTo(PreviewOptions.USAGE + NL));
    }

    /** A cluster that serves the folder's objects of the asked kinds, two a page, and expires the first list once. */
    private static final class ScriptedCluster implements ObjectSource {
        final List<String> lists = new ArrayList<>();
        boolean expired;

        @Override
        public void list(Set<TargetKind> kinds, Set<String> namespaces, Listing listing) {
            for (TargetKind kind : kinds) {
                List<JsonObject> objects = objects(kind);
                lists.add(kind.kind());
                listing.start(kind.kind());
                if (!expired) {
                    expired = true; // a first page, then 410 Gone: the list starts over
                    listing.page(objects.subList(0, 1));
                    listing.start(kind.kind());
                }
                for (int i = 0; i < objects.size(); i += 2) {
                    listing.page(objects.subList(i, Math.min(objects.size(), i + 2)));
                }
            }
        }

        private static List<JsonObject> objects(TargetKind kind) {
            var objects = new ArrayList<JsonObject>();
            FolderObjects.read(List.of(Path.of(OBJECTS))).list(Set.of(kind), Set.of(), new Listing() {
                @Override
                public void start(String what) {
                }

                @Override
                public void page(List<JsonObject> page) {
                    objects.addAll(page);
                }
            });
            return objects;
        }

        @Override
        public JsonObject namespace(String name) {
            String shop = "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"shop\"}}";
            return name.equals("shop") ? JsonTree.parse(shop.getBytes(StandardCharsets.UTF_8)).asJsonObject() : null;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aClusterListThatStartsOverCountsOnce() {
        var cluster = new ScriptedCluster();
        Run run = preview((kubeconfig, context, qps) -> cluster, "--rules", DIR.resolve("rules/modrules.yaml")
                .toString(), "--kubeconfig", "k", "--samples", "1");
        assertThat(run.err(), run.exit(), is(PreviewCommand.DONE));
        assertThat(run.out(), equalTo(String.join(NL,
                "shop/team-label (ModRule, Shadow): 2 of 4 Deployments (apps/v1) would change, 0 would be refused, 0"
                        + " failed",
                "  Deployment shop/web (apps/v1) would change:",
                "    {\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"team\":\"shop\"}}",
                "",
                "reject-latest-images (ModRule, Warn): 0 of 3 Pods (v1) would change, 2 would be refused, 0 failed",
                "  Pod default/untagged (v1) would be refused: Pod untagged: pin every container image to a version",
                "")));
        assertThat(cluster.lists, equalTo(List.of("Deployment", "Pod")));
    }

    @Test
    void aRuleOfAnyKindNeedsKindInACluster(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("any.yaml"), """
                apiVersion: mutations.gatekeeper.sh/v1
                kind: AssignMetadata
                metadata:
                  name: owner
                spec:
                  location: metadata.labels.owner
                  parameters:
                    assign:
                      value: platform
                """);
        var cluster = new ScriptedCluster();
        Run run = preview((kubeconfig, context, qps) -> cluster, "--rules", dir.resolve("any.yaml").toString(),
                "--kubeconfig", "k");
        assertThat(run.exit(), is(PreviewCommand.INPUT_ERROR));
        assertThat(run.err(), equalTo("remold preview: rule AssignMetadata/owner (" + dir.resolve("any.yaml")
                + ": document 1) may decide any kind: give --kind to say which kinds to list in the cluster" + NL));
        assertThat(cluster.lists, equalTo(List.of()));

        Run pods = preview((kubeconfig, context, qps) -> cluster, "--rules", dir.resolve("any.yaml").toString(),
                "--kubeconfig", "k", "--kind", "core/Pod", "--samples", "0");
        assertThat(pods.err(), pods.exit(), is(PreviewCommand.DONE));
        assertThat(pods.out(), equalTo("AssignMetadata/owner (Gatekeeper mutation, Enforce): 3 of 3 Pods (v1) would"
                + " change, 0 would be refused, 0 failed" + NL));
    }

}
