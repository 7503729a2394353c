package io.remold.server.http;

import io.remold.api.RuleMode;
import io.remold.engine.RuleFamily;
import io.remold.rules.impact.ImpactSink;
import io.remold.rules.impact.ObjectRef;
import io.remold.rules.impact.Verdict;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The verdicts a server recorded, in order. */
final class RecordingImpactSink implements ImpactSink {
    /** One verdict as recorded. */
    record Recorded(String family, String rule, RuleMode mode, Source source, ObjectRef object, Verdict verdict) {
    }

    private final List<Recorded> recorded = new CopyOnWriteArrayList<>();

    @Override
    public void record(RuleFamily family, String rule, RuleMode mode, Source source, ObjectRef object,
                       Verdict verdict) {
        recorded.add(new Recorded(family.name(), rule, mode, source, object, verdict));
    }

    List<Recorded> recorded() {
        return List.copyOf(recorded);
    }
}
