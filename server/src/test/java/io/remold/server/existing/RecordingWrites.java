package io.remold.server.existing;

import io.remold.engine.RuleFamily;
import io.remold.rules.impact.ObjectRef;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Records each object handed to it ({@code rule name}); answers Applied unless an outcome is set for the name. */
final class RecordingWrites implements ExistingWrites {
    private final List<String> applied = new ArrayList<>();
    final Map<String, Outcome> outcomes = new ConcurrentHashMap<>();

    @Override
    public synchronized Outcome apply(RuleFamily family, String rule, JsonObject object, JsonArray patch) {
        String name = ObjectRef.of(object).name();
        applied.add(rule + " " + name);
        return outcomes.getOrDefault(name, new Outcome.Applied());
    }

    synchronized List<String> applied() {
        return List.copyOf(applied);
    }
}
