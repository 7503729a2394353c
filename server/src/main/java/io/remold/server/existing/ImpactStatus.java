package io.remold.server.existing;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A rule's {@code status.impact}: what its last impact scan of existing objects found, and while it runs how far it
 * got ({@link Progress}, which a new leader resumes from). {@code requested} is the value of the rule's
 * {@value ImpactScans#REQUESTED_ANNOTATION} annotation the scan answered, so that a new value asks for a new scan.
 * Written as a whole through a JSON merge patch: a member that is null here is written as null, which removes it.
 */
record ImpactStatus(long observedGeneration, String requested, State state, String message, Counts counts,
                    boolean applies, List<JsonObject> samples, String startedAt, String completedAt,
                    Progress progress) {
    ImpactStatus {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(counts, "counts");
        samples = List.copyOf(samples);
    }

    enum State {
        Running, Complete, Failed, KindsUnknown, Forbidden;

        static State of(String text) {
            for (State state : values()) {
                if (state.name().equals(text)) {
                    return state;
                }
            }
            return null;
        }
    }

    /** Verdicts of the scan, and outcomes of the writes to existing objects ({@code existing: Apply}). */
    record Counts(long evaluated, long wouldChange, long wouldRefuse, long failed, long applied, long conflicts,
                  long refused) {
        static final Counts ZERO = new Counts(0, 0, 0, 0, 0, 0, 0);
    }

    /** Which list of the objects is walked: the scan's, or once it is complete the writes' of an Apply rule. */
    enum Pass { Scan, Apply }

    /**
     * Where a running scan is: the pass, the kind being listed (its index in the sorted resolved kinds, and its
     * name for people), the {@code continue} token of its next page (null: its first page), and the counts and number
     * of samples when that kind began, to which a list that expired (410 Gone) goes back.
     */
    record Progress(Pass pass, int kindIndex, String kind, String continueToken, Counts kindBase, int kindSamples) {
    }

    /** The status a rule's manifest holds, if it reads. */
    static ImpactStatus of(JsonObject manifest) {
        if (!(manifest.get("status") instanceof JsonObject status)
                || !(status.get("impact") instanceof JsonObject impact)) {
            return null;
        }
        State state = State.of(text(impact, "state"));
        if (state == null) {
            return null;
        }
        var samples = new ArrayList<JsonObject>();
        if (impact.get("samples") instanceof JsonArray array) {
            array.stream().filter(JsonObject.class::isInstance).map(JsonObject.class::cast).forEach(samples::add);
        }
        Progress progress = null;
        if (impact.get("progress") instanceof JsonObject p) {
            Pass pass = "Apply".equals(text(p, "pass")) ? Pass.Apply : Pass.Scan;
            progress = new Progress(pass, (int) number(p, "kindIndex"), text(p, "kind"), text(p, "continue"),
                    counts(p.get("kindBase") instanceof JsonObject base ? base : JsonValue.EMPTY_JSON_OBJECT),
                    (int) number(p, "kindSamples"));
        }
        return new ImpactStatus(number(impact, "observedGeneration"), text(impact, "requested"), state,
                text(impact, "message"), counts(impact), impact.get("applied") instanceof JsonNumber, samples,
                text(impact, "startedAt"), text(impact, "completedAt"), progress);
    }

    /** {@code {"status":{"impact":...}}}, for a JSON merge patch of the status subresource. */
    String mergePatch() {
        var impact = Json.createObjectBuilder()
                .add("observedGeneration", observedGeneration)
                .add("requested", nullable(requested))
                .add("state", state.name())
                .add("message", nullable(message));
        addCounts(impact, counts, applies);
        if (!applies) { // written as null: a rule that no longer applies loses them
            impact.addNull("applied").addNull("conflicts").addNull("refused");
        }
        var array = Json.createArrayBuilder();
        samples.forEach(array::add);
        impact.add("samples", array)
                .add("startedAt", nullable(startedAt))
                .add("completedAt", nullable(completedAt));
        if (progress == null) {
            impact.addNull("progress");
        } else {
            var base = Json.createObjectBuilder();
            addCounts(base, progress.kindBase(), true);
            impact.add("progress", Json.createObjectBuilder()
                    .add("pass", progress.pass().name())
                    .add("kindIndex", progress.kindIndex())
                    .add("kind", progress.kind())
                    .add("continue", nullable(progress.continueToken()))
                    .add("kindBase", base)
                    .add("kindSamples", progress.kindSamples()));
        }
        return Json.createObjectBuilder().add("status", Json.createObjectBuilder().add("impact", impact)).build()
                .toString();
    }

    private static void addCounts(JsonObjectBuilder into, Counts counts, boolean withWrites) {
        into.add("evaluated", counts.evaluated())
                .add("wouldChange", counts.wouldChange())
                .add("wouldRefuse", counts.wouldRefuse())
                .add("failed", counts.failed());
        if (withWrites) {
            into.add("applied", counts.applied()).add("conflicts", counts.conflicts()).add("refused", counts.refused());
        }
    }

    private static Counts counts(JsonObject o) {
        return new Counts(number(o, "evaluated"), number(o, "wouldChange"), number(o, "wouldRefuse"),
                number(o, "failed"), number(o, "applied"), number(o, "conflicts"), number(o, "refused"));
    }

    private static JsonValue nullable(String text) {
        return text == null ? JsonValue.NULL : Json.createValue(text);
    }

    private static String text(JsonObject o, String key) {
        return o.get(key) instanceof JsonString s ? s.getString() : null;
    }

    private static long number(JsonObject o, String key) {
        return o.get(key) instanceof JsonNumber n ? n.longValue() : 0;
    }
}
