package io.remold.cli.preview;

import io.remold.cli.JsonText;
import io.remold.rules.impact.ImpactTally.Counts;
import io.remold.rules.impact.ImpactTally.RuleImpact;
import io.remold.rules.impact.ImpactTally.Sample;
import io.remold.rules.impact.ObjectRef;
import io.remold.rules.impact.Verdict;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** How {@code preview} prints its rules' previews: a summary and diffs per rule, or one JSON document. */
final class PreviewReport {
    private static final String NL = System.lineSeparator();

    private PreviewReport() {
    }

    /**
     * Per rule: {@code RULE (FAMILY, MODE): 412 of 1,020 Deployments (apps/v1) would change, 3 would be refused, 0
     * failed} (a line per kind under the rule's when it has several), then its samples: the object and its patch, one
     * RFC 6902 operation a line, or the refusal or the error.
     */
    static String text(List<PreviewCommand.RulePreview> previews) {
        var text = new StringBuilder();
        for (PreviewCommand.RulePreview preview : previews) {
            RuleImpact impact = preview.impact();
            text.append(text.isEmpty() ? "" : NL).append(impact.rule()).append(" (").append(impact.family().name())
                    .append(", ").append(impact.mode().written()).append("):");
            if (preview.notScanned().isPresent()) {
                text.append(" not scanned: ").append(preview.notScanned().get()).append(NL);
                continue;
            }
            Map<String, Counts> byKind = impact.byKind();
            if (byKind.isEmpty()) {
                text.append(" no object of its kinds").append(NL);
            } else if (byKind.size() == 1) {
                var only = byKind.entrySet().iterator().next();
                text.append(' ').append(summary(only.getKey(), only.getValue())).append(NL);
            } else {
                text.append(NL);
                byKind.forEach((kind, counts) -> text.append("  ").append(summary(kind, counts)).append(NL));
            }
            impact.samples().forEach(sample -> text.append(sample(sample)));
        }
        return text.toString();
    }

    /** {@code 412 of 1,020 Deployments (apps/v1) would change, 3 would be refused, 0 failed}. */
    private static String summary(String apiVersionKind, Counts counts) {
        int space = apiVersionKind.lastIndexOf(' ');
        String apiVersion = apiVersionKind.substring(0, space);
        String kind = apiVersionKind.substring(space + 1);
        return number(counts.changed()) + " of " + number(counts.evaluated()) + " "
                + (counts.evaluated() == 1 ? kind : ScanKinds.pluralName(kind)) + " (" + apiVersion
                + ") would change, " + number(counts.refused()) + " would be refused, " + number(counts.failed())
                + " failed";
    }

    private static String number(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String sample(Sample sample) {
        String object = "  " + name(sample.object());
        return switch (sample.verdict()) {
            case Verdict.Changes changes -> {
                var lines = new StringBuilder(object).append(" would change:").append(NL);
                changes.patch().forEach(op -> lines.append("    ").append(op).append(NL));
                yield lines.toString();
            }
            case Verdict.Refuses refuses -> object + " would be refused: " + refuses.message() + NL;
            case Verdict.Fails fails -> object + " failed: " + fails.error() + NL;
            case Verdict.Unchanged unchanged -> object + " unchanged" + NL;
        };
    }

    /** {@code Deployment team-a/web (apps/v1)}. */
    private static String name(ObjectRef ref) {
        return ref.kind() + " " + (ref.namespace().isEmpty() ? "" : ref.namespace() + "/") + ref.name() + " ("
                + ref.apiVersion() + ")";
    }

    /** One document: {@code rules} (each with its counts by kind, total and samples) and {@code skipped}. */
    static String json(List<PreviewCommand.RulePreview> previews, List<String> skipped) {
        JsonArrayBuilder rules = Json.createArrayBuilder();
        for (PreviewCommand.RulePreview preview : previews) {
            RuleImpact impact = preview.impact();
            JsonObjectBuilder rule = Json.createObjectBuilder()
                    .add("rule", impact.rule())
                    .add("family", impact.family().name())
                    .add("mode", impact.mode().written())
                    .add("source", preview.origin());
            preview.notScanned().ifPresent(why -> rule.add("notScanned", why));
            JsonArrayBuilder kinds = Json.createArrayBuilder();
            impact.byKind().forEach((kind, counts) -> {
                int space = kind.lastIndexOf(' ');
                kinds.add(counts(Json.createObjectBuilder().add("apiVersion", kind.substring(0, space))
                        .add("kind", kind.substring(space + 1)), counts));
            });
            JsonArrayBuilder samples = Json.createArrayBuilder();
            impact.samples().forEach(sample -> samples.add(sample(Json.createObjectBuilder(), sample)));
            rules.add(rule.add("total", counts(Json.createObjectBuilder(), impact.total())).add("byKind", kinds)
                    .add("samples", samples));
        }
        JsonArrayBuilder skippedArray = Json.createArrayBuilder();
        skipped.forEach(skippedArray::add);
        return JsonText.pretty(Json.createObjectBuilder().add("rules", rules).add("skipped", skippedArray).build());
    }

    private static JsonObjectBuilder counts(JsonObjectBuilder builder, Counts counts) {
        return builder.add("evaluated", counts.evaluated()).add("changed", counts.changed())
                .add("refused", counts.refused()).add("failed", counts.failed());
    }

    private static JsonObjectBuilder sample(JsonObjectBuilder builder, Sample sample) {
        ObjectRef ref = sample.object();
        builder.add("apiVersion", ref.apiVersion()).add("kind", ref.kind()).add("namespace", ref.namespace())
                .add("name", ref.name());
        return switch (sample.verdict()) {
            case Verdict.Changes changes -> builder.add("verdict", "changes").add("patch", changes.patch());
            case Verdict.Refuses refuses -> builder.add("verdict", "refuses").add("message", refuses.message());
            case Verdict.Fails fails -> builder.add("verdict", "fails").add("error", fails.error());
            case Verdict.Unchanged unchanged -> builder.add("verdict", "unchanged").add("patch",
                    JsonValue.EMPTY_JSON_ARRAY);
        };
    }
}
