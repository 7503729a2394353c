package io.remold.gatekeeper.match;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A mutator's {@code spec.match}: scope, kinds, namespaces and excludedNamespaces (prefix and suffix globs),
 * labelSelector, namespaceSelector, name (globs, generateName) and source. Immutable; compile once.
 *
 * <p>Criteria are checked in Gatekeeper's order (kinds, scope, namespaces, excludedNamespaces, labelSelector,
 * namespaceSelector, name, source) and the first that does not hold decides, so an error in a later criterion only
 * shows when the earlier ones hold. An unset criterion matches everything; a scope other than {@code Cluster} or
 * {@code Namespaced} too (Gatekeeper ignores typos there). A Namespace object is matched by its own name and labels
 * wherever the criteria speak of the object's namespace.
 */
public final class Match {
    private static final String ERROR = "failed to run Match criteria";
    private static final List<String> SOURCES = List.of("All", "Generated", "Original");

    /** One {@code kinds} entry; an empty list or {@code "*"} admits every group or kind. */
    private record KindSelector(List<String> apiGroups, List<String> kinds) {
        boolean matches(String group, String kind) {
            return admits(kinds, kind) && admits(apiGroups, group);
        }

        private static boolean admits(List<String> listed, String value) {
            return listed.isEmpty() || listed.contains("*") || listed.contains(value);
        }

        boolean admitsAny() {
            return kinds.isEmpty() || kinds.contains("*") || apiGroups.isEmpty() || apiGroups.contains("*");
        }
    }

    private final List<KindSelector> kinds;
    private final String scope;
    private final List<Glob> namespaces;
    private final List<Glob> excludedNamespaces;
    private final LabelSelector labelSelector;
    private final LabelSelector namespaceSelector;
    private final Glob name;
    private final Source source;
    /** See {@link #namespacesAdmitted()}; asked for every request, so computed once. */
    private final Set<String> namespacesAdmitted;

    private Match(List<KindSelector> kinds, String scope, List<Glob> namespaces, List<Glob> excludedNamespaces,
                  LabelSelector labelSelector, LabelSelector namespaceSelector, Glob name, Source source) {
        this.kinds = kinds;
        this.scope = scope;
        this.namespaces = namespaces;
        this.excludedNamespaces = excludedNamespaces;
        this.labelSelector = labelSelector;
        this.namespaceSelector = namespaceSelector;
        this.name = name;
        this.source = source;
        this.namespacesAdmitted = namespaces.isEmpty() || namespaces.stream().anyMatch(g -> g.pattern().contains("*"))
                ? null : namespaces.stream().map(Glob::pattern).collect(Collectors.toUnmodifiableSet());
    }

    /**
     * Parses {@code spec.match} (null or empty: matches everything Gatekeeper's empty match does). Refuses wrong JSON
     * types, names and namespaces the CRD's pattern refuses, and an unknown source, with {@link
     * InvalidMatchException} naming the field relative to the match block. Label selector contents (operators, keys,
     * values) are checked when they are used, as Gatekeeper does: {@link #matches} then fails.
     */
    public static Match parse(JsonObject match) {
        JsonObject m = match == null ? JsonValue.EMPTY_JSON_OBJECT : match;
        var kinds = new ArrayList<KindSelector>();
        JsonArray kindsArray = Fields.array(m, "kinds", "");
        for (int i = 0; i < kindsArray.size(); i++) {
            String at = "kinds[" + i + "]";
            JsonObject entry = Fields.element(kindsArray.get(i), at);
            kinds.add(new KindSelector(Fields.strings(entry, "apiGroups", at), Fields.strings(entry, "kinds", at)));
        }
        String nameText = Fields.string(m, "name", "");
        String sourceText = Fields.string(m, "source", "");
        if (!sourceText.isEmpty() && !SOURCES.contains(sourceText)) {
            throw new InvalidMatchException("source", "Unsupported value: \"" + sourceText
                    + "\": supported values: \"All\", \"Generated\", \"Original\"");
        }
        return new Match(List.copyOf(kinds), Fields.string(m, "scope", ""), globs(m, "namespaces"),
                globs(m, "excludedNamespaces"), selector(m, "labelSelector"), selector(m, "namespaceSelector"),
                nameText.isEmpty() ? null : Glob.parse(nameText, "name"),
                sourceText.isEmpty() ? Source.All : Source.valueOf(sourceText));
    }

    private static List<Glob> globs(JsonObject match, String key) {
        List<String> patterns = Fields.strings(match, key, "");
        var out = new ArrayList<Glob>(patterns.size());
        for (int i = 0; i < patterns.size(); i++) {
            out.add(Glob.parse(patterns.get(i), key + "[" + i + "]"));
        }
        return List.copyOf(out);
    }

    private static LabelSelector selector(JsonObject match, String key) {
        JsonObject selector = Fields.object(match, key, "");
        return selector == null ? null : LabelSelector.parse(selector, key);
    }

    /**
     * The groups and kinds of object this match can hold for, or null when it admits every kind (no {@code kinds},
     * or a wildcard in one). The kinds are checked first and never fail, so an object of another kind never matches
     * and never errs: the mutation system may skip the mutator for it.
     */
    public Set<GroupKind> kindsAdmitted() {
        if (kinds.isEmpty() || kinds.stream().anyMatch(KindSelector::admitsAny)) {
            return null;
        }
        var admitted = new HashSet<GroupKind>();
        for (KindSelector selector : kinds) {
            for (String group : selector.apiGroups()) {
                for (String kind : selector.kinds()) {
                    admitted.add(new GroupKind(group, kind));
                }
            }
        }
        return Set.copyOf(admitted);
    }

    /**
     * The namespaces an object must be in (its effective namespace, see {@link #effectiveNamespace}) for this match to
     * hold, or null when any will do (no {@code namespaces}, or a glob among them). A cluster-scoped object passes
     * the namespace lists. They are checked right after kinds and scope, which never fail, so an object elsewhere
     * never matches and never errs: the mutation system may skip the mutator for it.
     */
    public Set<String> namespacesAdmitted() {
        return namespacesAdmitted;
    }

    /**
     * The namespace the namespace lists are checked against: a Namespace's own name, else the Namespace object's
     * ({@code namespace}, may be null), else the one the object declares; null for a cluster-scoped object.
     */
    public static String effectiveNamespace(JsonObject object, JsonObject namespace) {
        return new Target(object, namespace).effectiveNamespace();
    }

    /**
     * Whether the criteria hold for {@code object} in {@code namespace} (the Namespace object, null for a
     * cluster-scoped object or when unknown) coming from {@code source} (null: the caller does not know, which only
     * a match with a source other than {@code All} minds). Throws {@code failed to run Match criteria: ...} for a
     * null object, an invalid label selector, a namespaceSelector on a namespaced object whose Namespace is missing,
     * and a source the match needs but the caller did not give.
     */
    public boolean matches(JsonObject object, JsonObject namespace, Source source) throws MatchException {
        if (object == null) {
            throw new MatchException(ERROR + ": obj must be non-nil");
        }
        var target = new Target(object, namespace);
        return kindsMatch(target) && scopeMatch(target) && namespacesMatch(target) && excludedNamespacesMatch(target)
                && labelSelectorMatch(target) && namespaceSelectorMatch(target) && nameMatch(target)
                && sourceMatch(target, source);
    }

    private boolean kindsMatch(Target target) {
        return kinds.isEmpty() || kinds.stream().anyMatch(k -> k.matches(target.group, target.kind));
    }

    private boolean scopeMatch(Target target) {
        boolean hasNamespace = !target.namespace.isEmpty() || target.namespaceObject != null;
        return switch (scope) {
            case "Cluster" -> target.isNamespace || !hasNamespace;
            case "Namespaced" -> !target.isNamespace && hasNamespace;
            default -> true;
        };
    }

    private boolean namespacesMatch(Target target) {
        String ns = target.effectiveNamespace();
        return namespaces.isEmpty() || ns == null || namespaces.stream().anyMatch(g -> g.matches(ns));
    }

    private boolean excludedNamespacesMatch(Target target) {
        String ns = target.effectiveNamespace();
        return ns == null || excludedNamespaces.stream().noneMatch(g -> g.matches(ns));
    }

    private boolean labelSelectorMatch(Target target) throws MatchException {
        return labelSelector == null || valid(labelSelector).matches(labels(target.object));
    }

    private boolean namespaceSelectorMatch(Target target) throws MatchException {
        if (namespaceSelector == null) {
            return true;
        }
        if (!target.isNamespace && target.namespaceObject == null && target.namespace.isEmpty()) {
            return true; // a cluster-scoped object other than a Namespace has no namespace to select by
        }
        LabelSelector selector = valid(namespaceSelector);
        if (target.isNamespace) {
            return selector.matches(labels(target.object));
        }
        if (target.namespaceObject == null) {
            throw new MatchException(ERROR + ": namespace selector for namespace-scoped object but missing "
                    + "Namespace");
        }
        return selector.matches(labels(target.namespaceObject));
    }

    private boolean nameMatch(Target target) {
        return name == null || name.matches(metadataString(target.object, "name"))
                || name.matchesGenerateName(metadataString(target.object, "generateName"));
    }

    private boolean sourceMatch(Target target, Source given) throws MatchException {
        if (source == Source.All) {
            return true;
        }
        if (given == null) {
            throw new MatchException(ERROR + ": source field not specified for resource "
                    + metadataString(target.object, "name"));
        }
        return source == given;
    }

    private static LabelSelector valid(LabelSelector selector) throws MatchException {
        if (selector.error() != null) {
            throw new MatchException(ERROR + ": " + selector.error());
        }
        return selector;
    }

    /** What the criteria read of the object: its kind, namespace, and whether it is itself a Namespace. */
    private static final class Target {
        final JsonObject object;
        final JsonObject namespaceObject;
        final String group;
        final String kind;
        final String namespace;
        final boolean isNamespace;

        Target(JsonObject object, JsonObject namespaceObject) {
            this.object = object;
            this.namespaceObject = namespaceObject;
            GroupVersionKind gvk = GroupVersionKind.of(object);
            this.group = gvk.group();
            this.kind = gvk.kind();
            this.namespace = metadataString(object, "namespace");
            this.isNamespace = kind.equals("Namespace") && group.isEmpty();
        }

        /**
         * The namespace the namespace lists are checked against: a Namespace's own name, else the Namespace
         * object's, else the one the object declares; null for a cluster-scoped object, which they cannot exclude.
         */
        String effectiveNamespace() {
            if (isNamespace) {
                return metadataString(object, "name");
            }
            if (namespaceObject != null) {
                return metadataString(namespaceObject, "name");
            }
            return namespace.isEmpty() ? null : namespace;
        }
    }

    private static String metadataString(JsonObject object, String key) {
        return object.get("metadata") instanceof JsonObject metadata && metadata.get(key) instanceof JsonString s
                ? s.getString() : "";
    }

    /** {@code metadata.labels}; like Kubernetes, none at all when a value is not a string. */
    private static Map<String, String> labels(JsonObject object) {
        if (!(object.get("metadata") instanceof JsonObject metadata)
                || !(metadata.get("labels") instanceof JsonObject labels)) {
            return Map.of();
        }
        var out = new HashMap<String, String>();
        for (var e : labels.entrySet()) {
            if (!(e.getValue() instanceof JsonString s)) {
                return Map.of();
            }
            out.put(e.getKey(), s.getString());
        }
        return out;
    }
}
