package io.remold.gatekeeper.system;

import io.remold.gatekeeper.ConformanceCorpus;
import io.remold.gatekeeper.mutators.Mutable;
import io.remold.gatekeeper.mutators.MutationException;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.gatekeeper.mutators.MutatorId;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gatekeeper's mutation system and schema database tests (categories {@code system} and {@code schema_conflict}),
 * with the corpus' fake mutators. Gatekeeper's System and DB change one upsert or removal at a time; a {@link
 * MutationSystem} is a snapshot, so each step builds the snapshot of the mutators present after it. An upsert
 * "reports a conflict" when the snapshot disables the upserted mutator, with Gatekeeper's error as the reason.
 */
class MutationSystemConformanceTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    @Test
    void system() {
        ConformanceCorpus.run("system", KNOWN_DEVIATIONS, MutationSystemConformanceTest::checkSystem,
                "ordering", "label_mutators", "error_mutator");
    }

    @Test
    void schemaConflicts() {
        ConformanceCorpus.run("schema_conflict", KNOWN_DEVIATIONS, MutationSystemConformanceTest::checkSchema,
                "upsert", "remove");
    }

    private static String checkSystem(JsonObject c) {
        var mutators = new LinkedHashMap<MutatorId, Mutator>();
        if (c.getString("kind").equals("ordering")) {
            for (JsonValue id : c.getJsonArray("upserts")) {
                MutatorId mid = FakeMutator.id(id.asJsonObject());
                mutators.put(mid, FakeMutator.withId(mid));
            }
            if (c.containsKey("remove")) {
                mutators.remove(FakeMutator.id(c.getJsonObject("remove")));
            }
            List<MutatorId> want = c.getJsonObject("expect").getJsonArray("order").stream()
                    .map(v -> FakeMutator.id(v.asJsonObject())).toList();
            List<MutatorId> got = MutationSystem.of(mutators.values()).order();
            return got.equals(want) ? null : "order " + got;
        }
        if (c.containsKey("mutators")) {
            for (JsonValue spec : c.getJsonArray("mutators")) {
                FakeMutator m = FakeMutator.of(spec.asJsonObject());
                mutators.put(m.id(), m);
            }
        }
        if (c.containsKey("steps")) {
            String failure = runSteps(c.getJsonArray("steps").getValuesAs(JsonObject.class), mutators);
            if (failure != null) {
                return failure;
            }
        }
        return checkMutation(c, MutationSystem.of(mutators.values()), mutators);
    }

    /** Upserts and removes; an upsert must be disabled exactly when the step expects an error. */
    private static String runSteps(List<JsonObject> steps, Map<MutatorId, Mutator> mutators) {
        for (int i = 0; i < steps.size(); i++) {
            JsonObject step = steps.get(i);
            boolean wantError = step.getBoolean("expect_error", false);
            if (step.containsKey("upsert")) {
                FakeMutator m = FakeMutator.of(step.getJsonObject("upsert"));
                mutators.put(m.id(), m);
                boolean disabled = MutationSystem.of(mutators.values()).conflicts().containsKey(m.id());
                if (disabled != wantError) {
                    return "step " + i + ": upsert of " + m.id() + (disabled ? " conflicts" : " does not conflict");
                }
            } else {
                mutators.remove(FakeMutator.id(step.getJsonObject("remove")));
                if (wantError) {
                    return "step " + i + ": a removal cannot fail";
                }
            }
        }
        return null;
    }

    private static String checkMutation(JsonObject c, MutationSystem system, Map<MutatorId, Mutator> mutators) {
        JsonObject expect = c.getJsonObject("expect");
        JsonObject namespace = c.get("namespace") instanceof JsonObject ns ? ns : null;
        MutationSystem.Result result;
        try {
            result = system.mutate(new Mutable(c.getJsonObject("input"), namespace, "", null, ""));
        } catch (MutationException e) {
            if (expect.containsKey("error_contains")) {
                String want = expect.getString("error_contains");
                return e.getMessage().contains(want) ? null : "error \"" + e.getMessage() + "\" lacks \"" + want + "\"";
            }
            return expect.getBoolean("error", false) ? null : "unexpected error: " + e.getMessage();
        }
        var failures = new ArrayList<String>();
        if (expect.containsKey("error_contains") || expect.getBoolean("error", false)) {
            failures.add("no error");
        }
        if (expect.containsKey("mutated") && result.mutated() != expect.getBoolean("mutated")) {
            failures.add("mutated " + result.mutated());
        }
        if (expect.containsKey("labels")) {
            JsonValue labels = result.object().getJsonObject("metadata").get("labels");
            if (!expect.getJsonObject("labels").equals(labels)) {
                failures.add("labels " + labels);
            }
        }
        if (expect.containsKey("first_mutator_call_count")) {
            int calls = ((FakeMutator) mutators.get(system.order().getFirst())).calls().get();
            if (calls != expect.getInt("first_mutator_call_count")) {
                failures.add("first mutator called " + calls + " times");
            }
        }
        if (expect.containsKey("iterations_reported") && result.passes() != expect.getInt("iterations_reported")) {
            failures.add(result.passes() + " passes");
        }
        if (expect.containsKey("call_counts")) {
            expect.getJsonObject("call_counts").forEach((name, count) -> {
                int calls = mutators.values().stream().filter(m -> m.id().name().equals(name))
                        .mapToInt(m -> ((FakeMutator) m).calls().get()).sum();
                if (calls != ((JsonNumber) count).intValue()) {
                    failures.add(name + " called " + calls + " times");
                }
            });
        }
        return failures.isEmpty() ? null : String.join("; ", failures);
    }

    private static String checkSchema(JsonObject c) {
        var mutators = new LinkedHashMap<MutatorId, Mutator>();
        for (JsonValue spec : c.getJsonArray("before")) {
            FakeMutator m = FakeMutator.of(spec.asJsonObject());
            mutators.put(m.id(), m);
        }
        JsonObject expect = c.getJsonObject("expect");
        if (c.getString("kind").equals("upsert")) {
            return checkUpsert(c, mutators, expect);
        }
        MutatorId check = FakeMutator.id(c.getJsonObject("check"));
        boolean before = MutationSystem.of(mutators.values()).conflicts().containsKey(check);
        mutators.remove(FakeMutator.id(c.getJsonObject("remove")));
        boolean after = MutationSystem.of(mutators.values()).conflicts().containsKey(check);
        if (before != expect.getBoolean("conflict_before") || after != expect.getBoolean("conflict_after")) {
            return "conflict before " + before + ", after " + after;
        }
        return null;
    }

    private static String checkUpsert(JsonObject c, Map<MutatorId, Mutator> mutators, JsonObject expect) {
        String want = expect.getString("error_contains", "");
        if (!(c.get("add") instanceof JsonObject add)) {
            try {
                var withNull = new ArrayList<>(mutators.values());
                withNull.add(null);
                MutationSystem.of(withNull);
                return "a null mutator was accepted";
            } catch (NullPointerException e) {
                return e.getMessage().contains(want) ? null : "error \"" + e.getMessage() + "\" lacks \"" + want + "\"";
            }
        }
        FakeMutator m = FakeMutator.of(add);
        mutators.put(m.id(), m);
        String reason = MutationSystem.of(mutators.values()).conflicts().get(m.id());
        if (reason == null) {
            return expect.getBoolean("error") ? "no conflict" : null;
        }
        if (!expect.getBoolean("error")) {
            return "conflict: " + reason;
        }
        return reason.contains(want) ? null : "reason \"" + reason + "\" lacks \"" + want + "\"";
    }
}
