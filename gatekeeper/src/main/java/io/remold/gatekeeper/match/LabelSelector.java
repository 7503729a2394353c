package io.remold.gatekeeper.match;

import com.google.re2j.Pattern;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Kubernetes LabelSelector ({@code matchLabels} and {@code matchExpressions}, ANDed). Its JSON types are checked
 * when the match is parsed; its contents (operators, label keys and values) only when it is first needed, because
 * that is when Gatekeeper converts it and fails the match ({@link #error()}).
 */
final class LabelSelector {
    private static final int MAX_NAME = 63;
    private static final int MAX_PREFIX = 253;
    private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    /** One requirement as written; matchLabels entries are {@code In} with one value. */
    private record Requirement(String key, String operator, List<String> values) {
        boolean matches(Map<String, String> labels) {
            String value = labels.get(key);
            return switch (operator) {
                case "In" -> value != null && values.contains(value);
                case "NotIn" -> value == null || !values.contains(value);
                case "Exists" -> value != null;
                default -> value == null; // DoesNotExist: error() admits nothing else
            };
        }

        /** Why Kubernetes' LabelSelectorAsSelector refuses it (operator, key, then values), or null. */
        String error() {
            boolean needsValues = operator.equals("In") || operator.equals("NotIn");
            if (!needsValues && !operator.equals("Exists") && !operator.equals("DoesNotExist")) {
                return "\"" + operator + "\" is not a valid label selector operator";
            }
            String keyError = keyError(key);
            if (keyError != null) {
                return "key: Invalid value: \"" + key + "\": " + keyError;
            }
            if (needsValues && values.isEmpty()) {
                return "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty";
            }
            if (!needsValues && !values.isEmpty()) {
                return "values: Invalid value: " + values + ": values set must be empty for exists and does not "
                        + "exist";
            }
            for (int i = 0; i < values.size(); i++) {
                String v = values.get(i);
                if (v.length() > MAX_NAME || !v.isEmpty() && !NAME.matches(v)) {
                    return "values[" + i + "]: Invalid value: \"" + v + "\": a valid label must be an empty string "
                            + "or consist of at most 63 alphanumeric characters, '-', '_' or '.', and must start and "
                            + "end with an alphanumeric character";
                }
            }
            return null;
        }
    }

    private final List<Requirement> requirements;
    private final String error;

    private LabelSelector(List<Requirement> requirements, String error) {
        this.requirements = requirements;
        this.error = error;
    }

    /** Reads a selector; {@code field} ({@code labelSelector}) names it in errors about its JSON types. */
    static LabelSelector parse(JsonObject selector, String field) {
        var written = new ArrayList<Requirement>();
        Fields.stringMap(selector, "matchLabels", field)
                .forEach((key, value) -> written.add(new Requirement(key, "In", List.of(value))));
        JsonArray expressions = Fields.array(selector, "matchExpressions", field);
        for (int i = 0; i < expressions.size(); i++) {
            String at = Fields.field(field, "matchExpressions") + "[" + i + "]";
            JsonObject expression = Fields.element(expressions.get(i), at);
            written.add(new Requirement(Fields.string(expression, "key", at), Fields.string(expression, "operator", at),
                    Fields.strings(expression, "values", at)));
        }
        for (Requirement r : written) {
            String error = r.error();
            if (error != null) {
                return new LabelSelector(List.of(), error);
            }
        }
        return new LabelSelector(List.copyOf(written), null);
    }

    /** Why Kubernetes would refuse this selector, or null when it is valid. */
    String error() {
        return error;
    }

    /** Whether every requirement holds; only for a valid selector. */
    boolean matches(Map<String, String> labels) {
        for (Requirement r : requirements) {
            if (!r.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    /** Why {@code key} is not a qualified name ({@code [dns-subdomain/]name}), or null. */
    private static String keyError(String key) {
        String[] parts = key.split("/", -1);
        if (parts.length > 2) {
            return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS "
                    + "subdomain prefix and '/' (e.g. 'example.com/MyName')";
        }
        String name = parts[parts.length - 1];
        if (parts.length == 2) {
            String prefix = parts[0];
            if (prefix.isEmpty()) {
                return "prefix part must be non-empty";
            }
            if (prefix.length() > MAX_PREFIX || !DNS_SUBDOMAIN.matches(prefix)) {
                return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                        + "characters, '-' or '.', and must start and end with an alphanumeric character";
            }
        }
        if (name.isEmpty()) {
            return "name part must be non-empty";
        }
        if (name.length() > MAX_NAME) {
            return "name part must be no more than 63 characters";
        }
        if (!NAME.matches(name)) {
            return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                    + "with an alphanumeric character";
        }
        return null;
    }
}
