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
}
