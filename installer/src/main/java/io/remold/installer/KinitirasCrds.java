package io.remold.installer;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * kinitiras's three policy CRDs ({@code policy.kcloudlabs.io/v1alpha1}) for {@code --kinitiras-compat}, built from
 * the fields of kinitiras's Go types: the same fields, types, formats, enums and required members as the CRDs
 * kinitiras's chart ships (its newest engine: {@code origin} overriders and field selectors), so that what its CRD
 * refuses the API server refuses here too ({@code KinitirasCrdsTest} compares them). Added: a status subresource with
 * Remold's Ready condition (kinitiras's CRDs have none; the server writes none where a CRD lacks it).
 */
final class KinitirasCrds {
    static final String GROUP = "policy.kcloudlabs.io";
    static final String VERSION = "v1alpha1";
    /** The plurals, as the server's RBAC and the validating webhook name them. */
    static final List<String> PLURALS = List.of("clusteroverridepolicies", "clustervalidatepolicies",
            "overridepolicies");
    /** A Kubernetes quantity, as the API server's own schema for {@code resource.Quantity} accepts one. */
    private static final String QUANTITY = "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]"
            + "|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

    private KinitirasCrds() {
    }

    static List<Object> all() {
        return List.of(
                crd("ClusterOverridePolicy", "clusteroverridepolicies", "cop", "Cluster", overrideSpec(), true,
                        "Changes objects of any namespace, and cluster-scoped objects, as they are admitted."),
                crd("ClusterValidatePolicy", "clustervalidatepolicies", "cvp", "Cluster", validateSpec(), false,
                        "Refuses objects that fail its rules, as they are admitted or deleted."),
                crd("OverridePolicy", "overridepolicies", "op", "Namespaced", overrideSpec(), false,
                        "Changes objects of its own namespace as they are admitted."));
    }

    private static Map<String, Object> crd(String kind, String plural, String shortName, String scope,
                                           Map<String, Object> spec, boolean specRequired, String description) {
        var root = object(description, "apiVersion", string(), "kind", string(), "metadata", object(null),
                "spec", spec, "status", status());
        if (specRequired) {
            // as kinitiras's CRDs: only the ClusterOverridePolicy requires a spec
            required(root, "spec");
        }
        var version = new LinkedHashMap<String, Object>();
        version.put("name", VERSION);
        version.put("served", true);
        version.put("storage", true);
        version.put("subresources", Map.of("status", Map.of()));
        version.put("additionalPrinterColumns", List.of(
                Map.of("name", "Ready", "type", "string", "jsonPath", ".status.conditions[?(@.type==\"Ready\")].status"),
                Map.of("name", "Age", "type", "date", "jsonPath", ".metadata.creationTimestamp")));
        version.put("schema", Map.of("openAPIV3Schema", root));
        var names = new LinkedHashMap<String, Object>();
        names.put("kind", kind);
        names.put("listKind", kind + "List");
        names.put("plural", plural);
        names.put("singular", kind.toLowerCase(Locale.ROOT));
        names.put("shortNames", List.of(shortName));
        names.put("categories", List.of("kinitiras"));
        var crdSpec = new LinkedHashMap<String, Object>();
        crdSpec.put("group", GROUP);
        crdSpec.put("names", names);
        crdSpec.put("scope", scope);
        crdSpec.put("versions", List.of(version));
        var crd = new LinkedHashMap<String, Object>();
        crd.put("apiVersion", "apiextensions.k8s.io/v1");
        crd.put("kind", "CustomResourceDefinition");
        crd.put("metadata", Map.of("name", plural + "." + GROUP));
        crd.put("spec", crdSpec);
        return crd;
    }

    // ---- the policies ----

    private static Map<String, Object> overrideSpec() {
        var rule = object("One step of the policy: what it changes, for which operations.",
                "overriders", overriders(), "targetOperations", operations());
        return required(object("What the policy selects and how it changes it.",
                "overrideRules", array(required(rule, "overriders")),
                "resourceSelectors", resourceSelectors()), "overrideRules");
    }

    private static Map<String, Object> overriders() {
        var plaintext = required(object("A JSON patch operation.",
                "op", enumOf("add", "remove", "replace"), "path", string(), "value", anyValue()), "op", "path");
        return object("The forms of one rule, applied in kinitiras's order.",
                "cue", string("CUE whose patches are applied to the object."),
                "origin", array(originOverrider()),
                "plaintext", array(plaintext),
                "renderedCue", string("The CUE a template renders to, written when the policy is admitted."),
                "template", templateOverrider());
    }

    private static Map<String, Object> originOverrider() {
        return object("A change to a Pod's or Deployment's scheduling, resources or metadata.",
                "affinity", affinity(),
                "annotations", stringMap(),
                "containerCount", Map.of("type", "integer"),
                "hostNetwork", bool(),
                "labels", stringMap(),
                "nodeSelector", atomic(stringMap()),
                "operation", enumOf("add", "replace", "remove"),
                "replace", bool(),
                "resourceRequirements", resourceRequirements(),
                "resourcesOversell", mapOf(stringMap()),
                "schedulerName", string(),
                "tolerations", array(toleration()),
                "topologySpreadConstraints", topologySpreadConstraints(),
                // "resourceOversell": kinitiras's spelling for origin overriders (templates say "resourcesOversell")
                "type", enumOf("annotations", "labels", "nodeSelector", "hostNetwork", "schedulerName",
                        "resourceRequirements", "resourceOversell", "affinity", "tolerations",
                        "topologySpreadConstraints"));
    }

    private static Map<String, Object> templateOverrider() {
        var oversell = object(null, "cpuFactor", string(), "diskFactor", string(), "memoryFactor", string());
        return object("A change described by its type, rendered by the policy webhook.",
                "affinity", affinity(),
                "operation", enumOf("add", "replace", "remove"),
                "path", string(),
                "resources", resourceRequirements(),
                "resourcesOversell", oversell,
                "tolerations", array(toleration()),
                "type", enumOf("annotations", "labels", "resourcesOversell", "resources", "affinity", "tolerations"),
                "value", constantValue(),
                "valueRef", valueReference());
    }

    private static Map<String, Object> validateSpec() {
        var condition = object("What the template compares, and what it answers when the comparison holds.",
                "affectMode", enumOf("reject", "allow"),
                "cond", enumOf("Equal", "NotEqual", "Exist", "NotExist", "In", "NotIn", "Gt", "Gte", "Lt", "Lte"),
                "dataRef", valueReference(),
                "message", string(),
                "value", constantValue(),
                "valueProcess", object(null, "operation", string(), "operationWith", intOrString()),
                "valueRef", valueReference());
        var rule = object("One check of the policy, for which operations.",
                "cue", string("CUE whose validate.valid decides, validate.reason explains."),
                "renderedCue", string("The CUE a template renders to, written when the policy is admitted."),
                "targetOperations", operations(),
                "template", object(null, "condition", condition, "type", enumOf("condition")));
        return required(object("What the policy selects and how it checks it.",
                "resourceSelectors", resourceSelectors(),
                "validateRules", array(rule)), "validateRules");
    }

    private static Map<String, Object> operations() {
        return array(string());
    }

    // ---- selectors and value sources ----

    /** A resource selector and a k8s value reference have the same fields. */
    private static Map<String, Object> objectSelector(String description) {
        return required(object(description,
                "apiVersion", string(), "fieldSelector", fieldSelector(), "kind", string(),
                "labelSelector", labelSelector(), "name", string(), "namespace", string()), "apiVersion", "kind");
    }

    private static Map<String, Object> resourceSelectors() {
        return array(objectSelector("Objects the policy applies to: all of its fields must match."));
    }

    private static Map<String, Object> fieldSelector() {
        var expression = required(object(null, "field", string(), "operator", string(), "value", array(string())),
                "field", "operator");
        return object(null, "matchExpressions", array(expression), "matchFields", stringMap());
    }

    private static Map<String, Object> valueReference() {
        var auth = object(null, "authUrl", string(), "expireAt", Map.of("type", "string", "format", "date-time"),
                "expireDuration", string(), "password", string(), "staticToken", string(), "token", string(),
                "username", string());
        var http = object("An HTTP request whose answer is the value (only to URL prefixes the server allows).",
                "auth", auth, "body", anyValue(), "header", stringMap(), "method", enumOf("GET", "POST"),
                "params", stringMap(), "url", string());
        return object("Where a value is read from: the object itself, its old version, the cluster or HTTP.",
                "from", enumOf("current", "old", "k8s", "owner", "http"), "http", http,
                "k8s", objectSelector("The cluster object the value is read from."), "path", string());
    }

    private static Map<String, Object> constantValue() {
        var int64 = Map.<String, Object>of("type", "integer", "format", "int64");
        return object("A constant value: one of its members.",
                "boolean", bool(), "float", string(), "floatSlice", array(string()), "integer", int64,
                "integerSlice", array(int64), "string", string(), "stringMap", stringMap(),
                "stringSlice", array(string()));
    }

    // ---- Kubernetes types that overriders carry (core/v1 and meta/v1) ----

    private static Map<String, Object> labelSelector() {
        return atomic(object(null, "matchExpressions", array(requirement("values")), "matchLabels", stringMap()));
    }

    private static Map<String, Object> requirement(String valuesField) {
        return required(object(null, "key", string(), "operator", string(), valuesField, array(string())),
                "key", "operator");
    }

    private static Map<String, Object> nodeSelectorTerm() {
        return atomic(object(null, "matchExpressions", array(requirement("values")),
                "matchFields", array(requirement("values"))));
    }

    private static Map<String, Object> podAffinityTerm() {
        return required(object(null, "labelSelector", labelSelector(), "namespaceSelector", labelSelector(),
                "namespaces", array(string()), "topologyKey", string()), "topologyKey");
    }

    private static Map<String, Object> podAffinity() {
        var weighted = required(object(null, "podAffinityTerm", podAffinityTerm(), "weight", int32()),
                "podAffinityTerm", "weight");
        return object(null, "preferredDuringSchedulingIgnoredDuringExecution", array(weighted),
                "requiredDuringSchedulingIgnoredDuringExecution", array(podAffinityTerm()));
    }

    private static Map<String, Object> affinity() {
        var preferred = required(object(null, "preference", nodeSelectorTerm(), "weight", int32()),
                "preference", "weight");
        var requiredTerms = atomic(required(object(null, "nodeSelectorTerms", array(nodeSelectorTerm())),
                "nodeSelectorTerms"));
        var node = object(null, "preferredDuringSchedulingIgnoredDuringExecution", array(preferred),
                "requiredDuringSchedulingIgnoredDuringExecution", requiredTerms);
        return object("A Pod's affinity, as in a Pod's spec.", "nodeAffinity", node, "podAffinity", podAffinity(),
                "podAntiAffinity", podAffinity());
    }

    private static Map<String, Object> toleration() {
        return object(null, "effect", string(), "key", string(), "operator", string(),
                "tolerationSeconds", Map.of("type", "integer", "format", "int64"), "value", string());
    }

    private static Map<String, Object> topologySpreadConstraints() {
        var constraint = required(object(null, "labelSelector", labelSelector(), "maxSkew", int32(),
                "topologyKey", string(), "whenUnsatisfiable", string()), "maxSkew", "topologyKey", "whenUnsatisfiable");
        var list = array(constraint);
        list.put("x-kubernetes-list-map-keys", List.of("topologyKey", "whenUnsatisfiable"));
        list.put("x-kubernetes-list-type", "map");
        return list;
    }

    private static Map<String, Object> resourceRequirements() {
        var quantity = new LinkedHashMap<String, Object>(intOrString());
        quantity.put("pattern", QUANTITY);
        return object("Limits and requests, as in a container's resources.",
                "limits", mapOf(quantity), "requests", mapOf(quantity));
    }

    // ---- status: Remold's Ready condition ----

    private static Map<String, Object> status() {
        var condition = required(object(null, "lastTransitionTime", Map.of("type", "string", "format", "date-time"),
                "message", string(), "observedGeneration", Map.of("type", "integer", "format", "int64"),
                "reason", string(), "status", string(), "type", string()), "type", "status");
        return object("Written by Remold: whether the policy is in force, and why not.",
                "conditions", array(condition));
    }

    // ---- schema nodes ----

    /** An object schema with the given description (or none) and properties, as name, schema pairs. */
    private static Map<String, Object> object(String description, Object... properties) {
        var schema = new LinkedHashMap<String, Object>();
        schema.put("type", "object");
        if (description != null) {
            schema.put("description", description);
        }
        if (properties.length > 0) {
            var props = new LinkedHashMap<String, Object>();
            for (int i = 0; i < properties.length; i += 2) {
                props.put((String) properties[i], properties[i + 1]);
            }
            schema.put("properties", props);
        }
        return schema;
    }

    private static Map<String, Object> required(Map<String, Object> schema, String... members) {
        schema.put("required", List.of(members));
        return schema;
    }

    private static Map<String, Object> atomic(Map<String, Object> schema) {
        schema.put("x-kubernetes-map-type", "atomic");
        return schema;
    }

    private static Map<String, Object> array(Map<String, Object> items) {
        var schema = new LinkedHashMap<String, Object>();
        schema.put("type", "array");
        schema.put("items", items);
        return schema;
    }

    private static Map<String, Object> mapOf(Map<String, Object> values) {
        var schema = new LinkedHashMap<String, Object>();
        schema.put("type", "object");
        schema.put("additionalProperties", values);
        return schema;
    }

    private static Map<String, Object> stringMap() {
        return mapOf(string());
    }

    private static Map<String, Object> string() {
        return new LinkedHashMap<>(Map.of("type", "string"));
    }

    private static Map<String, Object> string(String description) {
        var schema = string();
        schema.put("description", description);
        return schema;
    }

    private static Map<String, Object> bool() {
        return Map.of("type", "boolean");
    }

    private static Map<String, Object> int32() {
        return Map.of("type", "integer", "format", "int32");
    }

    private static Map<String, Object> enumOf(String... values) {
        return Map.of("type", "string", "enum", List.of(values));
    }

    private static Map<String, Object> intOrString() {
        return Map.of("anyOf", List.of(Map.of("type", "integer"), Map.of("type", "string")),
                "x-kubernetes-int-or-string", true);
    }

    /** Any JSON value (a patch's value, an HTTP body). */
    private static Map<String, Object> anyValue() {
        return Map.of("x-kubernetes-preserve-unknown-fields", true);
    }
}
