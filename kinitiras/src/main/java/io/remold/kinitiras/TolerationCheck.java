package io.remold.kinitiras;

import io.remold.api.JsonFields;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * An origin toleration as Kubernetes checks a Pod's (its key a label name, its value a label value, operator and
 * effect from their enums), which kinitiras's policy webhook (newest) does before admitting the policy: a toleration
 * the API server would refuse is refused when the policy is read, not at every request.
 */
final class TolerationCheck {
    private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final int MAX_NAME = 63;
    private static final int MAX_PREFIX = 253;
    private static final Set<String> EFFECTS = Set.of("NoSchedule", "PreferNoSchedule", "NoExecute");

    private TolerationCheck() {
    }

    /** Refuses the toleration at {@code field}, naming the member at fault. */
    static void check(JsonObject toleration, String field) {
        String key = text(toleration, "key", field);
        String operator = text(toleration, "operator", field);
        String value = text(toleration, "value", field);
        String effect = text(toleration, "effect", field);
        if (!key.isEmpty()) {
            refuse(keyError(key), field + ".key");
        } else if (!operator.equals("Exists")) {
            refuse("must be Exists when key is empty (a toleration of every taint)", field + ".operator");
        }
        JsonValue seconds = toleration.get("tolerationSeconds");
        if (seconds != null && seconds != JsonValue.NULL && !effect.equals("NoExecute")) {
            refuse("must be NoExecute when tolerationSeconds is set", field + ".effect");
        }
        switch (operator) {
            case "", "Equal" -> refuse(valueError(value), field + ".value");
            case "Exists" -> refuse(value.isEmpty() ? null : "must be empty when operator is Exists", field + ".value");
            default -> refuse("must be Equal or Exists", field + ".operator");
        }
        if (!effect.isEmpty() && !EFFECTS.contains(effect)) {
            refuse("must be NoSchedule, PreferNoSchedule or NoExecute", field + ".effect");
        }
    }

    private static void refuse(String why, String field) {
        if (why != null) {
            throw new InvalidPolicyException(field, why);
        }
    }

    /** Why {@code key} is not a label name ({@code [prefix/]name}), or null. */
    static String keyError(String key) {
        String[] parts = key.split("/", -1);
        if (parts.length > 2) {
            return "a label name has at most one '/'";
        }
        if (parts.length == 2 && (parts[0].isEmpty() || parts[0].length() > MAX_PREFIX
                || !DNS_SUBDOMAIN.matcher(parts[0]).matches())) {
            return "the prefix must be a DNS subdomain of at most " + MAX_PREFIX + " characters";
        }
        String name = parts[parts.length - 1];
        if (name.isEmpty() || name.length() > MAX_NAME || !NAME.matcher(name).matches()) {
            return "the name must have 1 to " + MAX_NAME + " letters, digits, '-', '_' or '.', beginning and ending"
                    + " with a letter or digit";
        }
        return null;
    }

    /** Why {@code value} is not a label value (empty, or a name of at most 63 characters), or null. */
    static String valueError(String value) {
        if (value.isEmpty() || value.length() <= MAX_NAME && NAME.matcher(value).matches()) {
            return null;
        }
        return "must be empty, or have at most " + MAX_NAME + " letters, digits, '-', '_' or '.', beginning and"
                + " ending with a letter or digit";
    }

    private static String text(JsonObject toleration, String key, String field) {
        return JsonFields.string(toleration, key, "",
                v -> new InvalidPolicyException(field + "." + key, "must be a string"));
    }
}
