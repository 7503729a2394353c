package io.remold.server.http;

import io.remold.server.rules.RuleStore;
import io.remold.server.rules.RuleStoreTest;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;

/** The metrics as the server wires them to the rule store: told each installed snapshot. */
class MetricsTest {
    /** Rule churn must not grow the per-rule series without bound: a deleted rule's counters go at the next build. */
    @Test
    void theCountersOfADeletedRuleGoWithIt() {
        var metrics = new Metrics();
        try (var store = new RuleStore("remold-system")) {
            store.onSnapshot(metrics::installed);
            store.synced();
            assertThat(metrics.scrape(), containsString("\nremold_rule_rebuilds_total 1\n"));
            store.put("a", RuleStoreTest.rule("a", "$.kind"));
            store.put("b", RuleStoreTest.rule("b", "$.kind"));
            store.batch(sink -> { });
            metrics.rule("team-a/a", Metrics.RuleEvent.match);
            metrics.rule("team-a/b", Metrics.RuleEvent.match);
            store.remove("a");
            store.batch(sink -> { });
            assertThat(metrics.scrape(), not(containsString("rule=\"team-a/a\"")));
            assertThat(metrics.scrape(), containsString("rule=\"team-a/b\""));
        }
    }

    /** One step of a rule's life: put with this select expression (null: removed), then the gauge's value. */
    private record Step(String key, String select, int notReady) {
    }

    /** Invalid rules count as not Ready until they are fixed or deleted. */
    @Test
    void rulesThatAreHeldButNotInForceAreCountedUntilFixedOrDeleted() {
        List<Step> steps = List.of(new Step("bad", "$.kind[?(", 1), new Step("good", "$.kind", 1),
                new Step("bad", "$.kind", 0), new Step("bad", "$.kind[?(", 1), new Step("bad", null, 0));
        var metrics = new Metrics();
        try (var store = new RuleStore("remold-system")) {
            metrics.rulesNotReadyBy(store::notReadyCount);
            for (Step step : steps) {
                if (step.select() == null) {
                    store.remove(step.key());
                } else {
                    store.put(step.key(), RuleStoreTest.rule(step.key(), step.select()));
                }
                assertThat(step.toString(), metrics.scrape(),
                        containsString("\nremold_rules_not_ready " + step.notReady() + "\n"));
            }
        }
    }

    /** The serving certificate's expiry, and the leader gauge only where replicas elect one. */
    @Test
    void theCertificateExpiryAndTheLeaderAreExported(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        try (var server = new TestServer(dir, 1 << 20, io.remold.server.admission.ClusterRefs.NONE,
                io.remold.server.admission.BindingListener.NONE)) {
            long notAfter = server.tls.notAfter().getEpochSecond();
            String scrape = server.getAdmin("/metrics").body();
            assertThat(scrape, containsString("\nremold_tls_certificate_not_after_seconds " + notAfter + "\n"));
            assertThat(scrape, not(containsString("\nremold_leader ")));
            var leads = new java.util.concurrent.atomic.AtomicBoolean();
            server.metrics.leaderBy(leads::get);
            assertThat(server.metrics.scrape(), containsString("\nremold_leader 0\n"));
            leads.set(true);
            assertThat(server.metrics.scrape(), containsString("\nremold_leader 1\n"));
        }
    }
}
