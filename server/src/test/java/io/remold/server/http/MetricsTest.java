package io.remold.server.http;

import io.remold.server.rules.RuleStore;
import io.remold.server.rules.RuleStoreTest;
import org.junit.jupiter.api.Test;

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

    /** Invalid and refused rules count as not Ready until they are fixed or deleted. */
    @Test
    void rulesThatAreHeldButNotInForceAreCountedUntilFixedOrDeleted() {
        var metrics = new Metrics();
        try (var store = new RuleStore("remold-system")) {
            metrics.rulesNotReadyBy(store::notReadyCount);
            store.synced();
            assertThat(metrics.scrape(), containsString("\nremold_rules_not_ready 0\n"));
            store.put("bad", RuleStoreTest.rule("bad", "$.kind[?("));
            store.put("good", RuleStoreTest.rule("good", "$.kind"));
            assertThat(metrics.scrape(), containsString("\nremold_rules_not_ready 1\n"));
            store.put("bad", RuleStoreTest.rule("bad", "$.kind"));
            assertThat(metrics.scrape(), containsString("\nremold_rules_not_ready 0\n"));
            store.put("bad", RuleStoreTest.rule("bad", "$.kind[?("));
            store.remove("bad");
            assertThat(metrics.scrape(), containsString("\nremold_rules_not_ready 0\n"));
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
