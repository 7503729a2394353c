package io.remold.installer;

import com.google.gson.GsonBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The chart's values.schema.json (JSON Schema draft 7), which Helm checks the values against on lint, template,
 * install and upgrade. Made from the options: a value's JSON type is its InstallOptions component's, its constraints
 * are the rules the installer checks the option with ({@link #RULES}), its description is the option's --help text,
 * and no other value is allowed. A value may also be what the installer leaves it at without the option: unset
 * ({@code ''}, or {@code null} for scriptKinds), an empty list, 0 for maxReplicas.
 */
final class ValuesSchema {
    /** How the installer checks an option's value (each item's, for a list). */
    sealed interface Rule {
    }

    /** The whole value matches the pattern. */
    record Matching(Pattern pattern) implements Rule {
    }

    /** The value holds the text somewhere. */
    record Holding(String text) implements Rule {
    }

    /** One of a closed set. */
    record OneOf(List<String> values) implements Rule {
    }

    /** A whole number within the bounds. */
    record Within(InstallOptions.Range range) implements Rule {
    }

    /** The rule's values but one. */
    record Except(Rule rule, String value) implements Rule {
    }

    /** A map of labels to values. */
    record Labels(Pattern key, Pattern value) implements Rule {
    }

    /** The rule of each option's value, by InstallOptions component; options without one take any value of their type. */
    static final Map<String, Rule> RULES = Map.ofEntries(
            Map.entry("namespace", new Matching(InstallOptions.DNS_LABEL)),
            Map.entry("image", new Matching(InstallOptions.IMAGE)),
            Map.entry("tag", new Matching(InstallOptions.TAG)),
            Map.entry("imagePullPolicy", new OneOf(InstallOptions.PULL_POLICIES)),
            Map.entry("replicas", new Within(InstallOptions.REPLICAS)),
            Map.entry("resources", new Matching(InstallOptions.RESOURCE)),
            Map.entry("operations", new OneOf(InstallOptions.OPERATIONS)),
            Map.entry("mutateFailurePolicy", new OneOf(InstallOptions.FAILURE_POLICIES)),
            Map.entry("validateFailurePolicy", new OneOf(InstallOptions.FAILURE_POLICIES)),
            Map.entry("timeoutSeconds", new Within(InstallOptions.TIMEOUT_SECONDS)),
            Map.entry("caBundle", new Holding(InstallOptions.PEM_CERTIFICATE)),
            Map.entry("allowReferences", new Matching(InstallOptions.REFERENCED)),
            Map.entry("existingApply", new Except(new Matching(InstallOptions.REFERENCED),
                    InstallOptions.NEVER_APPLIED)),
            Map.entry("scriptKinds", new Matching(InstallOptions.REFERENCED)),
            Map.entry("webhookIngressCidrs", new Matching(InstallOptions.CIDR)),
            Map.entry("clientCa", new Holding(InstallOptions.PEM_CERTIFICATE)),
            Map.entry("tenantScripts", new Matching(InstallOptions.TENANT)),
            Map.entry("priorityClass", new Matching(InstallOptions.SUBDOMAIN)),
            Map.entry("maxReplicas", new Within(InstallOptions.MAX_REPLICAS)),
            Map.entry("ignoreNamespaces", new Matching(InstallOptions.DNS_LABEL)),
            Map.entry("nodeSelector", new Labels(InstallOptions.LABEL_KEY, InstallOptions.LABEL_VALUE)),
            Map.entry("tolerations", new Matching(InstallOptions.TOLERATION)),
            Map.entry("serverCpu", new Matching(InstallOptions.CPU)),
            Map.entry("serverCpuLimit", new Matching(InstallOptions.CPU)),
            Map.entry("serverMemory", new Matching(InstallOptions.MEMORY)),
            Map.entry("drainSeconds", new Within(InstallOptions.DRAIN_SECONDS)),
            Map.entry("logLevel", new OneOf(InstallOptions.LOG_LEVELS)));

    private ValuesSchema() {
    }

    /** The schema's JSON text. */
    static String json() {
        return new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(schema()) + "\n";
    }

    static Map<String, Object> schema() {
        var properties = new LinkedHashMap<String, Object>();
        HelmChart.VALUES.forEach(v -> properties.put(v.key(), property(v)));
        // Helm drops a value set to null: the template reads a missing value as unset, which only these are not
        List<String> required = HelmChart.VALUES.stream()
                .filter(v -> truthy(HelmChart.chartValue(InstallOptions.defaults(), v))).map(HelmChart.Value::key)
                .toList();
        var schema = new LinkedHashMap<String, Object>();
        schema.put("$schema", "http://json-schema.org/draft-07/schema#");
        schema.put("$comment", "Written by java -jar remold-installer.jar --helm-chart: one value per installer option"
                + " (docs/install.md), checked as the installer checks the option.");
        schema.put("type", "object");
        schema.put("additionalProperties", false);
        schema.put("required", required);
        schema.put("properties", properties);
        return schema;
    }

    /** Whether a Go template's {@code if} takes the value as set. */
    private static boolean truthy(Object value) {
        return !(value == null || value.equals("") || value.equals(false) || value.equals(0)
                || value instanceof List<?> list && list.isEmpty() || value instanceof Map<?, ?> map && map.isEmpty());
    }

    /** The Java type of the value's InstallOptions component. */
    static Class<?> type(HelmChart.Value v) {
        try {
            return InstallOptions.class.getDeclaredMethod(v.component()).getReturnType();
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, Object> property(HelmChart.Value v) {
        Class<?> type = type(v);
        // what the value is without the option: valid too
        Object unset = HelmChart.chartValue(InstallOptions.defaults(), v);
        Rule rule = RULES.get(v.component());
        var property = new LinkedHashMap<String, Object>();
        property.put("description", description(v.flag()));
        if (type == boolean.class) {
            property.put("type", "boolean");
        } else if (type == int.class) {
            property.put("type", "integer");
            var range = ((Within) rule).range();
            property.put("minimum", Math.min(range.min(), (Integer) unset));
            property.put("maximum", range.max());
        } else if (type == String.class || type == byte[].class) {
            property.put("type", "string");
            property.putAll(keywords(rule, "".equals(unset)));
        } else if (type == List.class) {
            property.put("type", unset == null ? List.of("array", "null") : "array");
            var items = new LinkedHashMap<String, Object>();
            items.put("type", "string");
            items.putAll(keywords(rule, false));
            property.put("items", items);
            if (unset instanceof List<?> list && !list.isEmpty()) {
                property.put("minItems", 1);
            }
        } else if (type == Map.class) {
            var labels = (Labels) rule;
            property.put("type", "object");
            property.put("propertyNames", Map.of("pattern", anchored(labels.key(), false)));
            var values = new LinkedHashMap<String, Object>();
            values.put("type", "string");
            values.put("pattern", anchored(labels.value(), false));
            property.put("additionalProperties", values);
        } else {
            throw new IllegalStateException(v.component() + ": no JSON type for " + type);
        }
        return property;
    }

    /** The JSON Schema keywords of a string's rule; {@code unset}: the empty string too. */
    private static Map<String, Object> keywords(Rule rule, boolean unset) {
        // the installer runs on Java 17: no pattern matching in switch
        if (rule == null) {
            return Map.of();
        }
        if (rule instanceof Matching m) {
            return Map.of("pattern", anchored(m.pattern(), unset));
        }
        if (rule instanceof Holding h) {
            String literal = h.text().replaceAll("[\\\\^$.|?*+()\\[\\]{}]", "\\\\$0");
            return Map.of("pattern", (unset ? "^$|" : "") + literal);
        }
        if (rule instanceof OneOf o) {
            var values = new ArrayList<String>();
            if (unset) {
                values.add("");
            }
            values.addAll(o.values());
            return Map.of("enum", values);
        }
        if (rule instanceof Except e) {
            var keywords = new LinkedHashMap<>(keywords(e.rule(), unset));
            keywords.put("not", Map.of("const", e.value()));
            return keywords;
        }
        throw new IllegalStateException("not a rule of a string: " + rule);
    }

    /** The installer's whole-value pattern as a JSON Schema pattern, which matches anywhere unless anchored. */
    private static String anchored(Pattern pattern, boolean orEmpty) {
        return "^(?:" + pattern.pattern() + ")" + (orEmpty ? "?" : "") + "$";
    }

    /** The option's --help text on one line: its name, argument if any, a colon, what it does. */
    static String description(String flag) {
        Matcher first = FLAG_LINE.matcher(HelmChart.help(flag).lines().findFirst().orElseThrow());
        if (!first.matches()) {
            throw new IllegalStateException("--help's line of " + flag + " has no option name");
        }
        var text = new StringBuilder(first.group(1)).append(':');
        if (!first.group(2).isEmpty()) {
            text.append(' ').append(first.group(2));
        }
        HelmChart.help(flag).lines().skip(1).forEach(line -> text.append(' ').append(line.strip()));
        return text.toString();
    }

    /** An option's first line of --help: the option and its argument (capitals), then its text, if any. */
    private static final Pattern FLAG_LINE = Pattern.compile("(--[a-z-]+(?: [A-Z][A-Z0-9,.]*(?= |$))?) *(.*)");
}
