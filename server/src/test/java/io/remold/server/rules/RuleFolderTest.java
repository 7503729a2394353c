package io.remold.server.rules;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRuleException;
import io.remold.engine.AdmissionRequest;
import io.remold.rules.RuleDocuments;
import io.remold.server.http.Metrics;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The folder rule source: files added, changed, deleted and broken, seen through the store's engine. */
class RuleFolderTest {
    @TempDir
    Path dir;
    RuleStore store;
    RuleFolder folder;
    long clock = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    @BeforeEach
    void setUp() {
        store = new RuleStore("remold-system");
        folder = new RuleFolder(dir, store);
        store.synced();
    }

    /** A Reject rule (no template involved) refusing Pods whose name is {@code podName}. */
    static String rule(String name, String podName) {
        return """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: %s}
                spec:
                  type: Reject
                  match:
                  - select: '$.metadata.name'
                    matchValue: %s
                """.formatted(name, podName);
    }

    /** Writes a file with a distinct time stamp, so that a rewrite of equal size still counts as a change. */
    void write(String file, String text) throws IOException {
        Path path = dir.resolve(file);
        Files.writeString(path, text);
        clock += 1000;
        Files.setLastModifiedTime(path, FileTime.fromMillis(clock));
    }

    /** The names of the pods (out of a fixed set) that the current rules reject. */
    List<String> rejected() {
        return List.of("a", "b", "c", "d").stream().filter(name -> {
            try (var reader = jakarta.json.Json.createReader(new StringReader(
                    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\"}}"))) {
                JsonObject pod = reader.readObject();
                return !store.engine().validate(new AdmissionRequest(AdmissionOperation.CREATE, "team-a", pod,
                        null, null, null, false)).allowed();
            }
        }).toList();
    }

    @Test
    void anAbsentOrEmptyFolderHasNoRules() throws IOException {
        var absent = new RuleFolder(dir.resolve("missing"), store);
        assertThat(absent.scan(), is(0));
        assertThat(folder.scan(), is(0));
        assertThat(store.engine().ruleCount(), is(0));
    }

    @Test
    void filesAreAddedChangedAndDeleted() throws IOException {
        write("one.yaml", rule("r1", "a") + "---\n" + rule("r2", "b"));
        write("two.json", """
                {"apiVersion":"remold.io/v1beta1","kind":"ModRule","metadata":{"name":"r3"},
                 "spec":{"type":"Reject","match":[{"select":"$.metadata.name","matchValue":"c"}]}}
                """);
        write("notes.txt", rule("ignored", "d"));
        assertThat(folder.scan(), is(2));
        assertThat(rejected(), is(List.of("a", "b", "c")));

        assertThat("unchanged files are not read again", folder.scan(), is(0));

        write("one.yaml", rule("r1", "d"));
        assertThat(folder.scan(), is(1));
        assertThat("r2 left the file", rejected(), is(List.of("c", "d")));

        Files.delete(dir.resolve("two.json"));
        folder.scan();
        assertThat(rejected(), is(List.of("d")));
        assertThat(store.engine().ruleCount(), is(1));
    }

    @Test
    void aBrokenFileKeepsItsPreviousRulesAndTheOthersWork() throws IOException {
        write("one.yaml", rule("r1", "a"));
        write("two.yaml", rule("r2", "b"));
        folder.scan();
        write("one.yaml", "apiVersion: remold.io/v1beta1\nkind: ModRule\nmetadata: {name: r1}\nspec: [broken\n");
        write("three.yaml", rule("r3", "c"));
        assertThat(folder.scan(), is(2));
        assertThat(rejected(), is(List.of("a", "b", "c")));

        assertThat("the broken version is not read again", folder.scan(), is(0));
        write("one.yaml", rule("r1", "d"));
        folder.scan();
        assertThat(rejected(), is(List.of("b", "c", "d")));
    }

    /** Runs {@code action} and returns what RuleFolder logged meanwhile, one message a line. */
    static String logged(IORunnable action) throws IOException {
        var logger = java.util.logging.Logger.getLogger(RuleFolder.class.getName());
        var messages = new java.util.concurrent.ConcurrentLinkedQueue<String>();
        var handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                messages.add(record.getLevel() + " " + record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try {
            action.run();
        } finally {
            logger.removeHandler(handler);
        }
        return String.join("\n", messages);
    }

    interface IORunnable {
        void run() throws IOException;
    }

    @Test
    void aFileThatIsNotUtf8IsReportedWithThePlaceAndKeepsItsPreviousRules() throws IOException {
        // F14: one Latin-1 byte in a comment made the file be skipped without a word, its new rule not enforced.
        write("one.yaml", rule("r1", "a"));
        folder.scan();
        byte[] text = (rule("r1", "b") + "# caf\u00e9\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        Files.write(dir.resolve("one.yaml"), text);
        Files.setLastModifiedTime(dir.resolve("one.yaml"), FileTime.fromMillis(clock += 1000));
        String log = logged(() -> assertThat(folder.scan(), is(1)));
        assertThat(log, is("WARNING cannot load " + dir.resolve("one.yaml") + " (its previous rules stay in force): "
                + dir.resolve("one.yaml") + " (line 9, column 6): not UTF-8: byte 0xE9 at offset 148"));
        assertThat(rejected(), is(List.of("a")));
        assertThat("the broken version is not read again", folder.scan(), is(0));
        Files.delete(dir.resolve("one.yaml"));
        folder.scan();
        assertThat(rejected(), is(List.of()));
    }

    @Test
    void aRuleThatNoLongerCompilesKeepsItsPreviousVersionUntilFixedOrDeleted() throws IOException {
        // F16: a regex typo in an edited Reject rule removed its previous version, so enforcement failed open.
        write("one.yaml", rule("r1", "a") + "---\n" + rule("r2", "b"));
        folder.scan();
        String broken = rule("r2", "c").replace("matchValue: c", "matchRegex: 'c('");
        write("one.yaml", rule("r1", "a") + "---\n" + broken);
        String log = logged(folder::scan);
        assertThat(log, containsString("WARNING ModRule r2 from one.yaml#1 does not compile (its previous version "
                + "stays in force): [spec.match[0].matchRegex"));
        assertThat(rejected(), is(List.of("a", "b")));
        write("one.yaml", rule("r1", "a") + "---\n" + rule("r2", "c"));
        folder.scan();
        assertThat(rejected(), is(List.of("a", "c")));
        write("one.yaml", rule("r1", "a") + "---\n" + broken);
        folder.scan();
        Files.delete(dir.resolve("one.yaml"));
        folder.scan();
        assertThat("deleting the file removes the kept version too", rejected(), is(List.of()));
    }

    @Test
    void aRuleThatDoesNotCompileIsLeftOutAlone() throws IOException {
        write("one.yaml", rule("r1", "a") + "---\n" + rule("r2", "b").replace("'$.metadata.name'", "'$.metadata['"));
        folder.scan();
        assertThat(rejected(), is(List.of("a")));
    }

    @Test
    void providersInFilesAreInForceWhileTheirFileIs() throws IOException {
        var metrics = new Metrics();
        var withProviders = new RuleStore("remold-system");
        metrics.externalData(withProviders::writeMetrics);
        try (withProviders) {
            var providers = new RuleFolder(dir, withProviders);
            withProviders.synced();
            write("one.yaml", rule("r1", "a") + """
                    ---
                    apiVersion: remold.io/v1beta1
                    kind: Provider
                    metadata: {name: mirror}
                    spec: {url: 'https://mirror.tools.svc:8443/lookup', timeout: 2s}
                    """);
            providers.scan();
            assertThat(metrics.scrape(), containsString("remold_external_calls_total{provider=\"mirror\"} 0\n"));
            Files.delete(dir.resolve("one.yaml"));
            providers.scan();
            assertThat(metrics.scrape(), not(containsString("provider=\"mirror\"")));
        }
    }

    @Test
    void aBrokenProviderInAFileIsReportedWithItsFieldAndLine() {
        var e = assertThrows(ModRuleException.class, () -> RuleDocuments.readAll(rule("r1", "a") + """
                ---
                apiVersion: remold.io/v1beta1
                kind: Provider
                metadata: {name: mirror}
                spec:
                  url: 'https://mirror'
                  timeout: 5s
                """, "rules.yaml"));
        assertThat(e.getMessage(), startsWith("rules.yaml: document 2 (line 15, column 3): spec.timeout: expected more"
                + " than 0 and at most 3s, got 5s"));
    }
}
