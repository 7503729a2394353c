package io.remold.rules.impact;

import io.remold.api.RuleMode;
import io.remold.engine.RuleFamily;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts verdicts per rule and kind, and keeps the first {@code sampleLimit} verdicts per rule that are not
 * {@code Unchanged}: what {@code preview} prints and a rule's status records. Memory is bounded by rules × kinds
 * plus rules × samples. Thread-safe.
 */
public final class ImpactTally implements ImpactSink {
    private final int sampleLimit;
    private final Map<String, Tally> byRule = new LinkedHashMap<>();

    public ImpactTally(int sampleLimit) {
        if (sampleLimit < 0) {
            throw new IllegalArgumentException("sampleLimit must not be negative: " + sampleLimit);
        }
        this.sampleLimit = sampleLimit;
    }

    /** Verdicts counted for one kind ({@code apiVersion kind}) of objects. */
    public record Counts(long evaluated, long changed, long refused, long failed) {
        Counts add(Verdict verdict) {
            return new Counts(evaluated + 1, changed + (verdict instanceof Verdict.Changes ? 1 : 0),
                    refused + (verdict instanceof Verdict.Refuses ? 1 : 0),
                    failed + (verdict instanceof Verdict.Fails ? 1 : 0));
        }

        /** Both counts added: the counts of one kind over several lists. */
        public Counts plus(Counts other) {
            return new Counts(evaluated + other.evaluated, changed + other.changed, refused + other.refused,
                    failed + other.failed);
        }
    }

    /** One object's verdict kept as an example. */
    public record Sample(ObjectRef object, Verdict verdict) {
    }

    /** One rule's tally: counts by kind ({@code apiVersion kind}, sorted) and the first samples, in arrival order. */
    public record RuleImpact(RuleFamily family, String rule, RuleMode mode, Map<String, Counts> byKind,
                             List<Sample> samples) {
        public RuleImpact {
            byKind = Map.copyOf(new TreeMap<>(byKind));
            samples = List.copyOf(samples);
        }

        public Counts total() {
            return byKind.values().stream().reduce(new Counts(0, 0, 0, 0), Counts::plus);
        }
    }

    @Override
    public synchronized void record(RuleFamily family, String rule, RuleMode mode, Source source, ObjectRef object,
                                    Verdict verdict) {
        Tally tally = byRule.computeIfAbsent(rule, r -> new Tally(family, mode));
        tally.byKind.merge(object.apiVersion() + " " + object.kind(), new Counts(0, 0, 0, 0).add(verdict),
                Counts::plus);
        if (!(verdict instanceof Verdict.Unchanged) && tally.samples.size() < sampleLimit) {
            tally.samples.add(new Sample(object, verdict));
        }
    }

    /** Every rule's tally so far, in the order rules were first recorded. */
    public synchronized List<RuleImpact> impacts() {
        var impacts = new ArrayList<RuleImpact>();
        byRule.forEach((rule, tally) -> impacts.add(new RuleImpact(tally.family, rule, tally.mode, tally.byKind,
                tally.samples)));
        return impacts;
    }

    private static final class Tally {
        final RuleFamily family;
        final RuleMode mode;
        final Map<String, Counts> byKind = new TreeMap<>();
        final List<Sample> samples = new ArrayList<>();

        Tally(RuleFamily family, RuleMode mode) {
            this.family = family;
            this.mode = mode;
        }
    }
}
