package io.remold.gatekeeper.convert;

import io.remold.engine.convert.CannotConvert;
import io.remold.engine.convert.LabelSelectors;
import io.remold.api.AdmissionOperation;
import io.remold.api.MatchItem;
import io.remold.gatekeeper.match.ApplyTo;
import io.remold.gatekeeper.match.Match;
import io.remold.gatekeeper.match.MatchException;
import io.remold.gatekeeper.match.Source;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static io.remold.engine.convert.Jsonpath.all;
import static io.remold.engine.convert.Jsonpath.any;
import static io.remold.engine.convert.Jsonpath.list;
import static io.remold.engine.convert.Jsonpath.literal;
import static io.remold.engine.convert.Jsonpath.quoteRegex;

/**
 * A mutator's {@code applyTo} and {@code match} as ModRule match items: one boolean expression per criterion, each
 * written to hold exactly where Gatekeeper's criterion does (see {@code io.remold.gatekeeper.match.Match}). The
 * rule sees the object's namespace as {@code $.syntheticRefs.namespace}, which is what the Gatekeeper stage gets as
 * the namespace object.
 */
final class MatchCriteria {
    private static final JsonProvider JSON = JsonProvider.provider();
    /** The object is a (core) Namespace: Gatekeeper then uses its own name and labels as "its namespace". */
    private static final String IS_NAMESPACE = "($.kind == \"Namespace\" && !($.apiVersion =~ \"/\"))";
    private static final String HAS_NAMESPACE_OBJECT = "isDefined($.syntheticRefs.namespace)";
    private static final String HAS_NAMESPACE_FIELD = "isNotEmpty($.metadata.namespace)";

    /** The match items, and the admission operations the rule must list. */
    record Criteria(List<MatchItem> items, List<AdmissionOperation> operations) {
    }

    private MatchCriteria() {
    }

    /** {@code applyTo} (null for AssignMetadata, which has none) and {@code match} of a valid mutator's spec. */
    static Criteria of(JsonArray applyTo, JsonObject match) {
        var items = new ArrayList<String>();
        var operations = List.of(AdmissionOperation.CREATE, AdmissionOperation.UPDATE);
        if (applyTo != null) {
            List<ApplyTo> entries = ApplyTo.parseList(applyTo);
            items.add(applyTo(entries));
            operations = operations(entries);
        }
        JsonObject m = match == null ? JsonValue.EMPTY_JSON_OBJECT : match;
        kinds(m).ifPresent(items::add);
        switch (m.getString("scope", "")) {
            case "Cluster" -> items.add("(" + IS_NAMESPACE + " || !(" + HAS_NAMESPACE_FIELD + " || "
                    + HAS_NAMESPACE_OBJECT + "))");
            case "Namespaced" -> items.add("(!" + IS_NAMESPACE + " && (" + HAS_NAMESPACE_FIELD + " || "
                    + HAS_NAMESPACE_OBJECT + "))");
            default -> {
                // Gatekeeper ignores any other scope (and "*").
            }
        }
        List<String> namespaces = strings(m, "namespaces");
        if (!namespaces.isEmpty()) {
            items.add(byNamespaceName(namespaces, false));
        }
        List<String> excluded = strings(m, "excludedNamespaces");
        if (!excluded.isEmpty()) {
            items.add(byNamespaceName(excluded, true));
        }
        if (m.get("labelSelector") instanceof JsonObject selector) {
            requireValid("labelSelector", selector, false);
            items.add(LabelSelectors.expression(selector, "$.metadata.labels"));
        }
        if (m.get("namespaceSelector") instanceof JsonObject selector) {
            requireValid("namespaceSelector", selector, true);
            // A namespaced object whose Namespace is unknown fails Gatekeeper's whole mutation; the rule just does
            // not apply there (docs/gatekeeper.md).
            items.add(any(List.of(
                    all(List.of(IS_NAMESPACE, LabelSelectors.expression(selector, "$.metadata.labels"))),
                    all(List.of("!" + IS_NAMESPACE, HAS_NAMESPACE_OBJECT,
                            LabelSelectors.expression(selector, "$.syntheticRefs.namespace.metadata.labels"))),
                    all(List.of("!" + IS_NAMESPACE, "!" + HAS_NAMESPACE_OBJECT, "!" + HAS_NAMESPACE_FIELD)))));
        }
        String name = m.getString("name", "");
        if (!name.isEmpty()) {
            items.add(byName(name));
        }
        String source = m.getString("source", "");
        if (source.equals(Source.Generated.name())) {
            throw new CannotConvert("match.source Generated: Remold admits only original objects (it has no"
                    + " expansion templates), so the mutator never applies");
        }
        return new Criteria(items.stream().filter(s -> !s.equals("true")).map(MatchItem::of).toList(), operations);
    }

    /** One entry must admit group, version, kind (and, through the rule's operations, the operation). */
    private static String applyTo(List<ApplyTo> entries) {
        var terms = new ArrayList<String>();
        for (ApplyTo entry : entries) {
            var apiVersions = new ArrayList<String>();
            for (String group : entry.groups()) {
                for (String version : entry.versions()) {
                    if (version.isEmpty() || version.contains("/") || group.contains("/")) {
                        throw new CannotConvert("applyTo lists group \"" + group + "\" with version \"" + version
                                + "\", which no apiVersion of an admitted object spells");
                    }
                    apiVersions.add(group.isEmpty() ? version : group + "/" + version);
                }
            }
            if (entry.kinds().contains("")) {
                throw new CannotConvert("applyTo lists an empty kind, which Gatekeeper matches on objects without"
                        + " a kind and a match item cannot");
            }
            terms.add(all(List.of(oneOf("$.apiVersion", apiVersions), oneOf("$.kind", entry.kinds()))));
        }
        return terms.isEmpty() ? "false" : any(terms);
    }

    /**
     * The rule lists the operations every entry selects; entries that differ would need one rule per operation,
     * each with its own entries.
     */
    private static List<AdmissionOperation> operations(List<ApplyTo> entries) {
        List<String> first = entries.isEmpty() ? List.of("CREATE", "UPDATE") : entries.getFirst().effectiveOperations();
        for (ApplyTo entry : entries) {
            if (!entry.effectiveOperations().equals(first)) {
                throw new CannotConvert("applyTo entries select different operations (" + first + " and "
                        + entry.effectiveOperations() + "); a ModRule's admissionOperations hold for all its match");
            }
        }
        return first.stream().map(AdmissionOperation::valueOf).toList();
    }

    private static String oneOf(String path, List<String> values) {
        if (values.isEmpty()) {
            return "false";
        }
        return values.size() == 1 ? path + " == " + literal(values.getFirst()) : path + " in " + list(values);
    }

    /** {@code match.kinds}: some entry admits both the object's group and its kind ("*" or empty: any). */
    private static java.util.Optional<String> kinds(JsonObject match) {
        if (!(match.get("kinds") instanceof JsonArray kinds) || kinds.isEmpty()) {
            return java.util.Optional.empty();
        }
        var terms = new ArrayList<String>();
        for (JsonValue value : kinds) {
            JsonObject entry = (JsonObject) value;
            List<String> groups = strings(entry, "apiGroups");
            List<String> names = strings(entry, "kinds");
            var conditions = new ArrayList<String>();
            if (!names.isEmpty() && !names.contains("*")) {
                if (names.contains("")) {
                    throw new CannotConvert("match.kinds lists an empty kind, which Gatekeeper matches on objects"
                            + " without a kind and a match item cannot");
                }
                conditions.add(oneOf("$.kind", names));
            }
            if (!groups.isEmpty() && !groups.contains("*")) {
                conditions.add(any(groups.stream().map(g -> g.isEmpty() ? "!($.apiVersion =~ \"/\")"
                        : "$.apiVersion =~ " + literal("^" + quoteRegex(g) + "/")).toList()));
            }
            terms.add(all(conditions));
        }
        return terms.contains("true") ? java.util.Optional.empty() : java.util.Optional.of(any(terms));
    }

    /**
     * {@code namespaces} (or, {@code excluded}, {@code excludedNamespaces}) against the name Gatekeeper takes as the
     * object's namespace: a Namespace's own name, else its Namespace object's name, else {@code metadata.namespace};
     * a cluster-scoped object passes both.
     */
    private static String byNamespaceName(List<String> globs, boolean excluded) {
        String not = excluded ? "!" : "";
        return any(List.of(
                all(List.of(IS_NAMESPACE, not + globs("$.metadata.name", globs))),
                all(List.of("!" + IS_NAMESPACE, HAS_NAMESPACE_OBJECT,
                        not + globs("$.syntheticRefs.namespace.metadata.name", globs))),
                all(List.of("!" + IS_NAMESPACE, "!" + HAS_NAMESPACE_OBJECT, HAS_NAMESPACE_FIELD,
                        not + globs("$.metadata.namespace", globs))),
                all(List.of("!" + IS_NAMESPACE, "!" + HAS_NAMESPACE_OBJECT, "!" + HAS_NAMESPACE_FIELD))));
    }

    /** {@code match.name}: the name, or for prefix and substring globs the generateName, as Gatekeeper reads them. */
    private static String byName(String glob) {
        String byName = globs("$.metadata.name", List.of(glob));
        boolean leading = glob.startsWith("*");
        boolean trailing = glob.length() > (leading ? 1 : 0) && glob.endsWith("*");
        if (!trailing) {
            return byName;
        }
        String core = glob.substring(leading ? 1 : 0, glob.length() - 1);
        return any(List.of(byName, "$.metadata.generateName =~ " + literal((leading ? "" : "^") + quoteRegex(core))));
    }

    /**
     * Whether {@code path} matches one of Gatekeeper's globs ({@code kube-*}, {@code *-system}, {@code *sys*}, exact).
     * Gatekeeper reads a missing name as "", so a missing one matches where a glob matches "".
     */
    private static String globs(String path, List<String> globs) {
        var terms = new ArrayList<String>();
        boolean matchesEmpty = false;
        for (String glob : globs) {
            String regex = globRegex(glob);
            matchesEmpty |= Pattern.compile(regex).matcher("").find();
            terms.add(path + " =~ " + literal(regex));
        }
        if (matchesEmpty) {
            terms.addFirst("isUndefined(" + path + ")");
        }
        return terms.size() == 1 ? "(" + terms.getFirst() + ")" : any(terms); // callers may negate it
    }

    private static String globRegex(String glob) {
        boolean leading = glob.startsWith("*");
        boolean trailing = glob.length() > (leading ? 1 : 0) && glob.endsWith("*");
        String core = glob.substring(leading ? 1 : 0, trailing ? glob.length() - 1 : glob.length());
        return (leading ? "" : "^") + quoteRegex(core) + (trailing ? "" : "$");
    }

    /**
     * Gatekeeper checks a selector when it first uses it and then fails the whole mutation; a converted rule could
     * only not match, so an invalid selector is not converted. Checked by running Gatekeeper's own match on a probe.
     */
    private static void requireValid(String key, JsonObject selector, boolean ofNamespace) {
        JsonObject probe = JSON.createObjectBuilder().add("apiVersion", "v1").add("kind", "ConfigMap")
                .add("metadata", JSON.createObjectBuilder().add("name", "probe").add("namespace", "probe")).build();
        JsonObject namespace = JSON.createObjectBuilder().add("apiVersion", "v1").add("kind", "Namespace")
                .add("metadata", JSON.createObjectBuilder().add("name", "probe")).build();
        try {
            Match.parse(JSON.createObjectBuilder().add(key, selector).build())
                    .matches(probe, ofNamespace ? namespace : null, Source.All);
        } catch (MatchException e) {
            throw new CannotConvert("match." + key + " is invalid (" + e.getMessage()
                    + "), which fails Gatekeeper's whole mutation; a converted rule could only not match");
        }
    }

    static List<String> strings(JsonObject object, String key) {
        if (!(object.get(key) instanceof JsonArray array)) {
            return List.of();
        }
        return array.stream().map(v -> v instanceof JsonString s ? s.getString() : v.toString()).toList();
    }
}
