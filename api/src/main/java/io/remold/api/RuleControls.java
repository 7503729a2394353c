package io.remold.api;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A rule's mode and what it does to existing objects, whatever its family: read from the annotations
 * {@value #MODE_ANNOTATION} and {@value #EXISTING_ANNOTATION} of any rule manifest, and for {@code remold.io}
 * ModRules also from {@code spec.mode} and {@code spec.existing} (which must then agree with the annotation).
 * Absent: {@code Enforce} and {@code Ignore}, today's behaviour.
 */
public record RuleControls(RuleMode mode, ExistingPolicy existing) {
    public static final String MODE_ANNOTATION = "remold.io/mode";
    public static final String EXISTING_ANNOTATION = "remold.io/existing";
    public static final RuleControls DEFAULTS = new RuleControls(RuleMode.ENFORCE, ExistingPolicy.IGNORE);

    public RuleControls {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(existing, "existing");
    }

    /** A rule manifest's controls, or {@link InvalidControlException} naming the field and the values it takes. */
    public static RuleControls read(JsonObject manifest) {
        JsonObject metadata = JsonFields.member(manifest, "metadata", JsonObject.class, JsonValue.EMPTY_JSON_OBJECT,
                value -> new InvalidControlException("metadata", "must be an object"));
        JsonObject annotations = JsonFields.member(metadata, "annotations", JsonObject.class,
                JsonValue.EMPTY_JSON_OBJECT,
                value -> new InvalidControlException("metadata.annotations", "must be an object"));
        JsonObject spec = ModRule.REMOLD_API_VERSION.equals(manifest.getString("apiVersion", ""))
                ? JsonFields.member(manifest, "spec", JsonObject.class, JsonValue.EMPTY_JSON_OBJECT,
                        value -> new InvalidControlException("spec", "must be an object"))
                : JsonValue.EMPTY_JSON_OBJECT;
        RuleMode mode = control(annotations, MODE_ANNOTATION, spec, "mode", RuleMode::of,
                "Enforce, Shadow or Warn").orElse(RuleMode.ENFORCE);
        ExistingPolicy existing = control(annotations, EXISTING_ANNOTATION, spec, "existing", ExistingPolicy::of,
                "Ignore or Apply").orElse(ExistingPolicy.IGNORE);
        return new RuleControls(mode, existing);
    }

    /**
     * As {@link #read(JsonObject)}, for a rule that can ({@code canRefuse}) or can never refuse a request: {@code Warn}
     * turns refusals into warnings, so on a rule that only changes objects (a Patch ModRule, a mutator, an override
     * policy) it is refused, naming the field it was written in.
     */
    public static RuleControls read(JsonObject manifest, boolean canRefuse) {
        RuleControls controls = read(manifest);
        if (controls.mode == RuleMode.WARN && !canRefuse) {
            throw new InvalidControlException(modeField(manifest),
                    "Warn is for rules that refuse requests; this rule never refuses (use Enforce or Shadow)");
        }
        return controls;
    }

    /** Where the mode of a manifest whose controls read is written: a remold.io ModRule's spec, else the annotation. */
    private static String modeField(JsonObject manifest) {
        return ModRule.REMOLD_API_VERSION.equals(manifest.getString("apiVersion", ""))
                && manifest.get("spec") instanceof JsonObject spec && spec.containsKey("mode")
                ? "spec.mode" : "metadata.annotations." + MODE_ANNOTATION;
    }

    private static <T> Optional<T> control(JsonObject annotations, String annotation, JsonObject spec, String field,
                                           Function<String, Optional<T>> parse, String values) {
        String annotationField = "metadata.annotations." + annotation;
        Optional<T> fromAnnotation = value(annotations, annotation, annotationField, parse, values);
        Optional<T> fromSpec = value(spec, field, "spec." + field, parse, values);
        if (fromAnnotation.isPresent() && fromSpec.isPresent() && !fromAnnotation.equals(fromSpec)) {
            throw new InvalidControlException("spec." + field, "differs from " + annotationField);
        }
        return fromSpec.or(() -> fromAnnotation);
    }

    private static <T> Optional<T> value(JsonObject object, String key, String field,
                                         Function<String, Optional<T>> parse, String values) {
        String text = JsonFields.string(object, key, null,
                value -> new InvalidControlException(field, "must be a string: " + values));
        if (text == null) {
            return Optional.empty();
        }
        return Optional.of(parse.apply(text).orElseThrow(() -> new InvalidControlException(field,
                "must be " + values + ", not \"" + text + "\"")));
    }

    /** A rule's control that does not read: the field and the values it takes. */
    public static final class InvalidControlException extends InvalidFieldException {
        public InvalidControlException(String field, String reason) {
            super(field, reason);
        }
    }
}
