package io.remold.cli.eval;

import io.remold.rules.impact.RuleVerdict;
import io.remold.rules.impact.Verdict;
import jakarta.json.JsonArray;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;

import java.io.PrintStream;
import java.util.List;

/**
 * What the Shadow rules would have done with the request, on standard error beside the other diagnostics (standard
 * output stays the object or patch): a section of lines, or with {@code --output json} one JSON object {@code
 * {"shadow": {"mutate": [...], "validate": [...]}}} with a verdict per rule. Nothing when no Shadow rule matched.
 */
final class ShadowSection {
    private static final JsonProvider JSON = JsonProvider.provider();

    private ShadowSection() {
    }

    static void print(List<RuleVerdict> mutate, List<RuleVerdict> validate, EvalOptions.Output output,
                      PrintStream err) {
        if (mutate.isEmpty() && validate.isEmpty()) {
            return;
        }
        if (output == EvalOptions.Output.json) {
            var verdicts = JSON.createObjectBuilder().add("mutate", json(mutate)).add("validate", json(validate));
            err.println(JSON.createObjectBuilder().add("shadow", verdicts).build());
            return;
        }
        err.println("Shadow rules (evaluated apart, never enforced):");
        mutate.forEach(v -> err.println("  " + v.family().name() + " " + v.rule() + ": " + text(v.verdict())));
        validate.forEach(v -> err.println("  " + v.family().name() + " " + v.rule() + ": " + text(v.verdict())));
    }

    private static String text(Verdict verdict) {
        return switch (verdict) {
            case Verdict.Changes c -> "would change the object, " + c.patch();
            case Verdict.Refuses r -> "would refuse" + (r.message().isEmpty() ? "" : ": " + r.message());
            case Verdict.Fails f -> "would fail: " + f.error();
            case Verdict.Unchanged u -> "matched, would change nothing";
        };
    }

    private static JsonArray json(List<RuleVerdict> verdicts) {
        var array = JSON.createArrayBuilder();
        for (RuleVerdict v : verdicts) {
            JsonObjectBuilder item = JSON.createObjectBuilder().add("family", v.family().name())
                    .add("rule", v.rule());
            switch (v.verdict()) {
                case Verdict.Changes c -> item.add("verdict", "changed").add("patch", c.patch());
                case Verdict.Refuses r -> item.add("verdict", "refused").add("message", r.message());
                case Verdict.Fails f -> item.add("verdict", "failed").add("error", f.error());
                case Verdict.Unchanged u -> item.add("verdict", "unchanged");
            }
            array.add(item);
        }
        return array.build();
    }
}
