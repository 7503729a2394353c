package io.remold.server.existing;

import io.remold.engine.RuleFamily;
import io.remold.rules.impact.ScanListener;

import java.util.ArrayList;
import java.util.List;

/** Records began and ended calls, as {@code began rule} and {@code ended rule complete|stopped}. */
final class RecordingListener implements ScanListener {
    private final List<String> calls = new ArrayList<>();

    @Override
    public synchronized void began(RuleFamily family, String rule) {
        calls.add("began " + rule);
    }

    @Override
    public synchronized void ended(RuleFamily family, String rule, boolean complete) {
        calls.add("ended " + rule + (complete ? " complete" : " stopped"));
    }

    synchronized List<String> calls() {
        return List.copyOf(calls);
    }
}
