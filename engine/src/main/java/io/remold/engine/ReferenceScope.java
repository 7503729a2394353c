package io.remold.engine;

import io.remold.api.ModRule;
import io.remold.api.Reference;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The scope and order rules of references, one set for every source: the server's caches and {@code eval}'s
 * {@code --ref} files refuse, find and sort alike, so that a rule tried offline behaves as it will in the cluster.
 */
public final class ReferenceScope {
    /** Kinds the API server never puts in a namespace (core, RBAC, storage, admission, scheduling, CRDs). */
    public static final Set<String> BUILT_IN_CLUSTER_SCOPED_KINDS = Set.of("Namespace", "Node", "PersistentVolume",
            "ClusterRole", "ClusterRoleBinding", "StorageClass", "CSIDriver", "CSINode", "VolumeAttachment",
            "PriorityClass", "RuntimeClass", "IngressClass", "CustomResourceDefinition", "APIService",
            "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding", "CertificateSigningRequest");

    private ReferenceScope() {
    }

    /** Why a source refuses a rule's reference to a kind, when it can tell without an object. */
    @FunctionalInterface
    public interface Refusal {
        Refusal NONE = (apiVersion, kind, clusterWide) -> Optional.empty();

        /** Empty when a rule ({@code clusterWide} or not) may reference {@code apiVersion kind}. */
        Optional<String> refusal(String apiVersion, String kind, boolean clusterWide);
    }

    /** The refusal of a cluster-scoped resource (plural, as {@code namespaces}) to a namespaced rule. */
    public static String clusterScoped(String resource) {
        return resource + " are cluster-scoped: only rules in the system namespace may reference them";
    }

    /** The built-in cluster-scoped kinds refused to namespaced rules ({@code eval}, which has no discovery). */
    public static Optional<String> builtInRefusal(String apiVersion, String kind, boolean clusterWide) {
        if (clusterWide || !BUILT_IN_CLUSTER_SCOPED_KINDS.contains(kind)) {
            return Optional.empty();
        }
        String lower = kind.toLowerCase(Locale.ROOT);
        return Optional.of(clusterScoped(lower.endsWith("s") ? lower + "es"
                : lower.endsWith("y") ? lower.substring(0, lower.length() - 1) + "ies" : lower + "s"));
    }

    /**
     * Compiles a rule as an engine with this system namespace would, and refuses the references {@code refusal}
     * refuses, each problem with its field.
     */
    public static RuleCompilation compile(ModRule rule, String systemNamespace, Refusal refusal) {
        return compile(rule, systemNamespace, refusal, new CompiledRules());
    }

    /** The same, keeping the compilation in {@code compiled} for the engines built with it. */
    public static RuleCompilation compile(ModRule rule, String systemNamespace, Refusal refusal,
                                          CompiledRules compiled) {
        RuleCompilation compilation = Engine.compile(rule, systemNamespace, compiled);
        List<Reference> references = rule.spec().references();
        if (references.isEmpty()) {
            return compilation;
        }
        boolean clusterWide = Engine.clusterWide(rule.namespace(), systemNamespace);
        var problems = new ArrayList<>(compilation.errors());
        for (int i = 0; i < references.size(); i++) {
            int at = i;
            refusal.refusal(references.get(i).apiVersion(), references.get(i).kind(), clusterWide).ifPresent(why ->
                    problems.add(new RuleCompilation.Problem("spec.references[" + at + "].kind", 0, why)));
        }
        return new RuleCompilation(compilation.rule(), problems);
    }

    /**
     * Whether a query of a namespaced kind has no namespace to look in: only a {@code namespace} template that
     * renders empty leaves it so, and that finds nothing, never every namespace.
     */
    public static boolean noNamespace(ReferenceQuery query) {
        return query.namespace() == null || query.namespace().isEmpty();
    }

    /** A selector reference's objects, sorted by name. */
    public static JsonArray byName(Stream<JsonObject> objects) {
        JsonArrayBuilder list = Json.PROVIDER.createArrayBuilder();
        objects.sorted(Comparator.comparing(ReferenceScope::name)).forEach(list::add);
        return list.build();
    }

    private static String name(JsonObject object) {
        return object.get("metadata") instanceof JsonObject metadata && metadata.get("name") instanceof JsonString name
                ? name.getString() : "";
    }
}
