package io.remold.gatekeeper.match;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One {@code spec.applyTo} entry: groups, versions, kinds and (since v3.23) operations. Immutable. Groups, versions
 * and kinds are matched literally (no globs). The operations only ever select what Gatekeeper's mutation webhook
 * runs, CREATE and UPDATE: none listed or {@code "*"} means both.
 */
public record ApplyTo(List<String> groups, List<String> versions, List<String> kinds, List<String> operations) {
    /** The wildcard operation: every operation the mutation webhook supports. */
    static final String ALL_OPERATIONS = "*";
    /** The admission operations Gatekeeper's mutation webhook runs, in Gatekeeper's order. */
    static final List<String> SUPPORTED_OPERATIONS = List.of("CREATE", "UPDATE");

    public ApplyTo {
        groups = groups == null ? List.of() : List.copyOf(groups);
        versions = versions == null ? List.of() : List.copyOf(versions);
        kinds = kinds == null ? List.of() : List.copyOf(kinds);
        operations = operations == null ? List.of() : List.copyOf(operations);
    }

    /**
     * Parses {@code spec.applyTo} (null: an empty list) and validates its operations: CREATE, UPDATE or a lone {@code
     * "*"}, each once. Throws {@link InvalidMatchException} with the field ({@code [1].operations[0]}) and
     * Gatekeeper's wording (all operation errors, joined by "; "). That every entry names groups, versions and kinds
     * is the mutator's check: Gatekeeper's message names the mutator.
     */
    public static List<ApplyTo> parseList(JsonArray applyTo) {
        if (applyTo == null) {
            return List.of();
        }
        var entries = new ArrayList<ApplyTo>(applyTo.size());
        for (int i = 0; i < applyTo.size(); i++) {
            String field = "[" + i + "]";
            entries.add(parseEntry(Fields.element(applyTo.get(i), field), field));
        }
        validateOperations(entries);
        return List.copyOf(entries);
    }

    /** One entry as written, without validation; {@code field} names it in errors about its JSON types. */
    static ApplyTo parseEntry(JsonObject entry, String field) {
        return new ApplyTo(Fields.strings(entry, "groups", field), Fields.strings(entry, "versions", field),
                Fields.strings(entry, "kinds", field), Fields.strings(entry, "operations", field));
    }

    /** Gatekeeper reports every operation error of every entry at once. */
    private static void validateOperations(List<ApplyTo> entries) {
        String firstField = null;
        var errors = new ArrayList<String>();
        for (int i = 0; i < entries.size(); i++) {
            List<String> ops = entries.get(i).operations;
            String field = "applyTo[" + i + "].operations";
            Set<String> seen = new HashSet<>();
            for (int j = 0; j < ops.size(); j++) {
                String op = ops.get(j);
                int errorsBefore = errors.size();
                if (!seen.add(op)) {
                    errors.add("duplicate operation \"" + op + "\" in " + field);
                }
                if (!op.equals(ALL_OPERATIONS) && !SUPPORTED_OPERATIONS.contains(op)) {
                    errors.add("invalid operation \"" + op + "\" in " + field + ": must be one of CREATE, UPDATE, *");
                }
                if (firstField == null && errors.size() > errorsBefore) {
                    firstField = "[" + i + "].operations[" + j + "]";
                }
            }
            if (ops.contains(ALL_OPERATIONS) && ops.size() > 1) {
                errors.add("wildcard \"*\" in " + field + " must not be combined with other operations");
                if (firstField == null) {
                    firstField = "[" + i + "].operations";
                }
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidMatchException(firstField, String.join("; ", errors));
        }
    }

    /** Whether the kind's group, version and kind are each listed. */
    public boolean matches(GroupVersionKind gvk) {
        return groups.contains(gvk.group()) && versions.contains(gvk.version()) && kinds.contains(gvk.kind());
    }

    /**
     * Whether the entry admits the operation. DELETE and CONNECT never match (the mutation webhook does not run
     * them). An empty operation (audit, expansion: no admission request) matches only an entry that admits every
     * supported operation, so an entry restricted to CREATE does not fire there.
     */
    public boolean matchesOperation(String operation) {
        if (operation == null || operation.isEmpty()) {
            return effectiveOperations().equals(SUPPORTED_OPERATIONS);
        }
        return effectiveOperations().contains(operation);
    }

    /** The supported operations this entry selects, in Gatekeeper's order: what schema bindings are made of. */
    public List<String> effectiveOperations() {
        if (operations.isEmpty() || operations.contains(ALL_OPERATIONS)) {
            return SUPPORTED_OPERATIONS;
        }
        return SUPPORTED_OPERATIONS.stream().filter(operations::contains).toList();
    }

    /**
     * Whether one entry matches both the kind and the operation (an entry matching the kind and another matching the
     * operation is not enough); an empty operation as {@link #matchesOperation} treats it.
     */
    public static boolean appliesTo(List<ApplyTo> applyTo, GroupVersionKind gvk, String operation) {
        for (ApplyTo entry : applyTo) {
            if (entry.matches(gvk) && entry.matchesOperation(operation)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Every (group, version, kind, operation) the entries bind, in Gatekeeper's order: the distinct kinds sorted by
     * their Go text form ({@code group/version, Kind=kind}), each with the operations some entry listing it selects.
     */
    public static List<Binding> bindings(List<ApplyTo> applyTo) {
        Map<String, GroupVersionKind> kindsByText = new TreeMap<>();
        Map<GroupVersionKind, Set<String>> operationsByKind = new LinkedHashMap<>();
        for (ApplyTo entry : applyTo) {
            for (String group : entry.groups) {
                for (String version : entry.versions) {
                    for (String kind : entry.kinds) {
                        var gvk = new GroupVersionKind(group, version, kind);
                        kindsByText.put(group + "/" + version + ", Kind=" + kind, gvk);
                        operationsByKind.computeIfAbsent(gvk, k -> new LinkedHashSet<>())
                                .addAll(entry.effectiveOperations());
                    }
                }
            }
        }
        var out = new ArrayList<Binding>();
        for (GroupVersionKind gvk : kindsByText.values()) {
            Set<String> ops = operationsByKind.get(gvk);
            for (String op : SUPPORTED_OPERATIONS) {
                if (ops.contains(op)) {
                    out.add(new Binding(gvk, op));
                }
            }
        }
        return List.copyOf(out);
    }

    /** A kind and one operation an applyTo list binds. */
    public record Binding(GroupVersionKind gvk, String operation) {
    }
}
