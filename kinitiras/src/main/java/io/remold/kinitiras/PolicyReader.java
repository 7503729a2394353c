package io.remold.kinitiras;

import io.remold.api.AdmissionOperation;
import io.remold.api.JsonFields;
import io.remold.api.Reference;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads the three kinds of {@code policy.kcloudlabs.io/v1alpha1} (the fields of both kinitiras engine versions; the
 * newest adds {@code origin} and {@code fieldSelector}) into compiled {@link Policy}s, refusing a manifest with the
 * field at fault. A form this build lacks ({@link Forms}) leaves the policy readable and unsupported.
 */
final class PolicyReader {
    static final String GROUP = "policy.kcloudlabs.io";
    static final String API_VERSION = GROUP + "/v1alpha1";
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final Set<String> PATCH_OPS = Set.of("add", "remove", "replace");
    /** A factor as Go's ParseFloat reads it, without its special forms (kinitiras fails on a factor it cannot read). */
    private static final Pattern FACTOR = Pattern.compile("[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?");
    private static final Map<String, OriginOverrider.MapField> MAP_ORIGINS = Map.of(
            "annotations", OriginOverrider.MapField.ANNOTATIONS, "labels", OriginOverrider.MapField.LABELS,
            "nodeSelector", OriginOverrider.MapField.NODE_SELECTOR);
    /** Origin types that set one pod spec field whole, with the member holding the value. */
    private static final Set<String> POD_SPEC_ORIGINS = Set.of("hostNetwork", "schedulerName", "affinity",
            "topologySpreadConstraints");

    private PolicyReader() {
    }

    /** Whether the manifest is of kinitiras's policy group (any version: a wrong one is refused, not ignored). */
    static boolean owns(JsonObject manifest) {
        return manifest.get("apiVersion") instanceof JsonString v && v.getString().startsWith(GROUP + "/");
    }

    static Policy read(JsonObject manifest, Forms forms) {
        String apiVersion = string(manifest, "apiVersion", "apiVersion", "");
        if (!apiVersion.equals(API_VERSION)) {
            throw new InvalidPolicyException("apiVersion", "must be " + API_VERSION);
        }
        String kindName = string(manifest, "kind", "kind", "");
        Policy.Kind kind;
        try {
            kind = Policy.Kind.valueOf(kindName);
        } catch (IllegalArgumentException e) {
            throw new InvalidPolicyException("kind", "must be OverridePolicy, ClusterOverridePolicy or"
                    + " ClusterValidatePolicy");
        }
        JsonObject metadata = object(manifest, "metadata", "metadata");
        String name = string(metadata, "name", "metadata.name", "");
        if (name.isEmpty()) {
            throw new InvalidPolicyException("metadata.name", "required");
        }
        String namespace = null;
        if (kind.namespaced()) {
            namespace = string(metadata, "namespace", "metadata.namespace", "");
            if (namespace.isEmpty()) {
                throw new InvalidPolicyException("metadata.namespace", "required: an OverridePolicy is namespaced");
            }
        }
        Forms itsForms = forms.of(namespace);
        JsonObject spec = object(manifest, "spec", "spec");
        List<ResourceSelector> selectors = new ArrayList<>();
        List<JsonObject> selectorItems = objects(spec, "resourceSelectors", "spec.resourceSelectors");
        for (int i = 0; i < selectorItems.size(); i++) {
            selectors.add(selector(selectorItems.get(i), "spec.resourceSelectors[" + i + "]"));
        }
        var overrides = new ArrayList<OverrideRule>();
        var validations = new ArrayList<ValidateRule>();
        if (kind == Policy.Kind.ClusterValidatePolicy) {
            List<JsonObject> rules = objects(spec, "validateRules", "spec.validateRules");
            for (int i = 0; i < rules.size(); i++) {
                validations.add(validateRule(rules.get(i), "spec.validateRules[" + i + "]", itsForms));
            }
        } else {
            List<JsonObject> rules = objects(spec, "overrideRules", "spec.overrideRules");
            for (int i = 0; i < rules.size(); i++) {
                overrides.add(overrideRule(rules.get(i), "spec.overrideRules[" + i + "]", itsForms));
            }
        }
        return new Policy(kind, namespace, name, selectors, overrides, validations, references(spec, kind));
    }

    /**
     * The k8s and http references of the policy's templates, which have been read (so are well formed): a template
     * holds them in {@code valueRef}, a validate template in {@code condition.dataRef} and {@code condition.valueRef}.
     */
    private static List<FetchedReference> references(JsonObject spec, Policy.Kind kind) {
        var references = new ArrayList<FetchedReference>();
        boolean validate = kind == Policy.Kind.ClusterValidatePolicy;
        String rulesKey = validate ? "validateRules" : "overrideRules";
        List<JsonObject> rules = objects(spec, rulesKey, "spec." + rulesKey);
        for (int i = 0; i < rules.size(); i++) {
            String at = "spec." + rulesKey + "[" + i + "]" + (validate ? "" : ".overriders");
            JsonObject owner = validate ? rules.get(i) : rules.get(i).getJsonObject("overriders");
            if (!(owner.get("template") instanceof JsonObject template)) {
                continue;
            }
            fetched(template, at + ".template", "valueRef", references);
            if (template.get("condition") instanceof JsonObject condition) {
                fetched(condition, at + ".template.condition", "dataRef", references);
                fetched(condition, at + ".template.condition", "valueRef", references);
            }
        }
        return references;
    }

    private static void fetched(JsonObject owner, String field, String key, List<FetchedReference> into) {
        if (owner.get(key) instanceof JsonObject reference && reference.get("from") instanceof JsonString from
                && reference.get(from.getString()) instanceof JsonObject target
                && (from.getString().equals(FetchedReference.K8S) || from.getString().equals(FetchedReference.HTTP))) {
            into.add(new FetchedReference(field + "." + key + "." + from.getString(), from.getString(), target));
        }
    }

    /** A {@code ResourceSelector}, also the form of a {@code k8s} valueRef. */
    static ResourceSelector selector(JsonObject item, String field) {
        String apiVersion = string(item, "apiVersion", field + ".apiVersion", "");
        String kind = string(item, "kind", field + ".kind", "");
        if (apiVersion.isEmpty()) {
            throw new InvalidPolicyException(field + ".apiVersion", "required");
        }
        if (kind.isEmpty()) {
            throw new InvalidPolicyException(field + ".kind", "required");
        }
        JsonObject labels = optionalObject(item, "labelSelector", field + ".labelSelector");
        JsonObject fields = optionalObject(item, "fieldSelector", field + ".fieldSelector");
        return new ResourceSelector(apiVersion, kind, string(item, "namespace", field + ".namespace", ""),
                string(item, "name", field + ".name", ""),
                Optional.ofNullable(labels).map(l -> labelSelector(l, field + ".labelSelector")),
                Optional.ofNullable(fields).map(f -> fieldSelector(f, field + ".fieldSelector")));
    }

    /**
     * A Kubernetes label selector. kinitiras accepts any and lets one Kubernetes refuses (an unknown operator, In
     * without values, Exists with values) match nothing; Remold refuses the policy, naming the field.
     */
    static Reference.Selector labelSelector(JsonObject selector, String field) {
        Map<String, String> matchLabels = stringMap(selector, "matchLabels", field + ".matchLabels");
        var requirements = new ArrayList<Reference.Requirement>();
        List<JsonObject> expressions = objects(selector, "matchExpressions", field + ".matchExpressions");
        for (int i = 0; i < expressions.size(); i++) {
            String at = field + ".matchExpressions[" + i + "]";
            JsonObject e = expressions.get(i);
            String key = string(e, "key", at + ".key", "");
            Reference.Operator operator = labelOperator(string(e, "operator", at + ".operator", ""), at + ".operator");
            List<String> values = strings(e, "values", at + ".values");
            boolean needsValues = operator == Reference.Operator.In || operator == Reference.Operator.NotIn;
            if (needsValues == values.isEmpty()) {
                throw new InvalidPolicyException(at + ".values", needsValues ? "must be non-empty for " + operator
                        : "must be empty for " + operator);
            }
            requirements.add(new Reference.Requirement(key, operator, values));
        }
        return new Reference.Selector(matchLabels, requirements);
    }

    private static Reference.Operator labelOperator(String operator, String field) {
        try {
            return Reference.Operator.valueOf(operator);
        } catch (IllegalArgumentException e) {
            throw new InvalidPolicyException(field, "must be In, NotIn, Exists or DoesNotExist");
        }
    }

    private static FieldSelector fieldSelector(JsonObject selector, String field) {
        Map<String, String> matchFields = stringMap(selector, "matchFields", field + ".matchFields");
        var requirements = new ArrayList<FieldSelector.Requirement>();
        List<JsonObject> expressions = objects(selector, "matchExpressions", field + ".matchExpressions");
        for (int i = 0; i < expressions.size(); i++) {
            String at = field + ".matchExpressions[" + i + "]";
            JsonObject e = expressions.get(i);
            String operator = string(e, "operator", at + ".operator", "");
            FieldSelector.Operator op;
            try {
                op = FieldSelector.Operator.valueOf(operator);
            } catch (IllegalArgumentException x) {
                throw new InvalidPolicyException(at + ".operator", "must be In, NotIn, Exists or DoesNotExist");
            }
            requirements.add(new FieldSelector.Requirement(string(e, "field", at + ".field", ""), op,
                    strings(e, "value", at + ".value")));
        }
        return new FieldSelector(matchFields, requirements);
    }

    private static TargetOperations operations(JsonObject rule, String field) {
        var operations = new LinkedHashSet<AdmissionOperation>();
        List<String> names = strings(rule, "targetOperations", field);
        for (int i = 0; i < names.size(); i++) {
            try {
                operations.add(AdmissionOperation.valueOf(names.get(i)));
            } catch (IllegalArgumentException e) {
                throw new InvalidPolicyException(field + "[" + i + "]", "must be CREATE, UPDATE, DELETE or CONNECT");
            }
        }
        return new TargetOperations(operations);
    }

    /**
     * kinitiras's order: the template (as its renderedCue), the cue, then origin, which when present (even empty)
     * makes kinitiras ignore plaintext; else plaintext. A renderedCue without a template is never run by kinitiras.
     */
    private static OverrideRule overrideRule(JsonObject rule, String field, Forms made) {
        TargetOperations operations = operations(rule, field + ".targetOperations");
        JsonObject overriders = object(rule, "overriders", field + ".overriders");
        String at = field + ".overriders";
        var forms = new ArrayList<Overrider>();
        templateAndCue(overriders, at, made::overrideTemplate, made::overrideCue, forms);
        JsonArray origin = JsonFields.member(overriders, "origin", JsonArray.class, null,
                v -> new InvalidPolicyException(at + ".origin", "must be a list"));
        if (origin != null) {
            forms.add(origin(origin, at + ".origin"));
        } else {
            List<JsonObject> plaintext = objects(overriders, "plaintext", at + ".plaintext");
            if (plaintext.size() > GoJsonPatch.MAX_OPERATIONS) {
                throw new InvalidPolicyException(at + ".plaintext", "at most " + GoJsonPatch.MAX_OPERATIONS
                        + " operations");
            }
            var operationsWritten = new ArrayList<JsonObject>();
            for (int i = 0; i < plaintext.size(); i++) {
                operationsWritten.add(plaintextOperation(plaintext.get(i), at + ".plaintext[" + i + "]"));
            }
            if (!operationsWritten.isEmpty()) {
                forms.add(new PlaintextOverrider(operationsWritten));
            }
        }
        return new OverrideRule(operations, forms);
    }

    private static JsonObject plaintextOperation(JsonObject item, String field) {
        String path = string(item, "path", field + ".path", "");
        String op = string(item, "op", field + ".op", "");
        if (!PATCH_OPS.contains(op)) {
            throw new InvalidPolicyException(field + ".op", "must be add, remove or replace");
        }
        return JSON.createObjectBuilder().add("op", op).add("path", path)
                .add("value", item.getOrDefault("value", JsonValue.NULL)).build();
    }

    private static OriginOverrider origin(JsonArray items, String field) {
        var origins = new ArrayList<OriginOverrider.Origin>();
        for (int i = 0; i < items.size(); i++) {
            String at = field + "[" + i + "]";
            if (!(items.get(i) instanceof JsonObject item)) {
                throw new InvalidPolicyException(at, "must be an object");
            }
            String type = string(item, "type", at + ".type", "");
            String operation = string(item, "operation", at + ".operation", "");
            if (!operation.isEmpty() && !PATCH_OPS.contains(operation)) {
                throw new InvalidPolicyException(at + ".operation", "must be add, remove or replace");
            }
            boolean replace = JsonFields.member(item, "replace", JsonValue.class, JsonValue.FALSE,
                    v -> new InvalidPolicyException(at + ".replace", "must be a boolean")) == JsonValue.TRUE;
            origins.add(originOf(item, type, operation, replace, at));
        }
        refuseOversellOfSetResources(items, field);
        return new OriginOverrider(origins);
    }

    /**
     * kinitiras's policy webhook (newest) refuses a rule whose {@code resourceOversell} has the {@code containerCount}
     * of one of its {@code resourceRequirements}: which of the two sets that container's resources is undefined.
     */
    private static void refuseOversellOfSetResources(JsonArray items, String field) {
        var requirements = new HashSet<Integer>();
        for (int i = 0; i < items.size(); i++) {
            if (items.getJsonObject(i).getString("type", "").equals("resourceRequirements")) {
                requirements.add(containerCount(items.getJsonObject(i), field + "[" + i + "]"));
            }
        }
        for (int i = 0; i < items.size(); i++) {
            String at = field + "[" + i + "]";
            if (items.getJsonObject(i).getString("type", "").equals("resourceOversell")
                    && requirements.contains(containerCount(items.getJsonObject(i), at))) {
                throw new InvalidPolicyException(at + ".containerCount", "a resourceRequirements of this rule sets"
                        + " the same container's resources");
            }
        }
    }

    private static OriginOverrider.Origin originOf(JsonObject item, String type, String operation, boolean replace,
                                                   String at) {
        if (MAP_ORIGINS.containsKey(type)) {
            stringMap(item, type, at + "." + type);
            return new OriginOverrider.MapOrigin(MAP_ORIGINS.get(type), item.getOrDefault(type, JsonValue.NULL),
                    replace, operation);
        }
        if (POD_SPEC_ORIGINS.contains(type)) {
            return new OriginOverrider.PodSpecValue(type, podSpecValue(item, type, at), operation);
        }
        return switch (type) {
            case "tolerations" -> {
                List<JsonObject> tolerations = objects(item, "tolerations", at + ".tolerations");
                for (int i = 0; i < tolerations.size(); i++) {
                    TolerationCheck.check(tolerations.get(i), at + ".tolerations[" + i + "]");
                }
                yield new OriginOverrider.TolerationsOrigin(item.getOrDefault("tolerations", JsonValue.NULL),
                        replace, operation);
            }
            case "resourceRequirements" -> new OriginOverrider.PodSpecValue(
                    "containers/" + containerCount(item, at) + "/resources",
                    optionalObject(item, "resourceRequirements", at + ".resourceRequirements") == null
                            ? JsonValue.EMPTY_JSON_OBJECT : item.getJsonObject("resourceRequirements"), operation);
            case "resourceOversell" -> new OriginOverrider.ResourceOversell(
                    oversellFactors(item, at + ".resourcesOversell"), containerCount(item, at), operation);
            default -> throw new InvalidPolicyException(at + ".type", "must be annotations, labels, nodeSelector,"
                    + " hostNetwork, schedulerName, resourceRequirements, resourceOversell, affinity, tolerations or"
                    + " topologySpreadConstraints");
        };
    }

    /** The value of a pod spec origin, as kinitiras's zero value when absent (false, "", null). */
    private static JsonValue podSpecValue(JsonObject item, String type, String at) {
        JsonValue value = item.get(type);
        return switch (type) {
            case "hostNetwork" -> value == null || value == JsonValue.NULL ? JsonValue.FALSE : typed(value,
                    value == JsonValue.TRUE || value == JsonValue.FALSE, at + "." + type, "must be a boolean");
            case "schedulerName" -> value == null || value == JsonValue.NULL ? JSON.createValue("") : typed(value,
                    value instanceof JsonString, at + "." + type, "must be a string");
            case "affinity" -> value == null ? JsonValue.NULL : typed(value,
                    value instanceof JsonObject || value == JsonValue.NULL, at + "." + type, "must be an object");
            default -> value == null ? JsonValue.NULL : typed(value,
                    value instanceof JsonArray || value == JsonValue.NULL, at + "." + type, "must be a list");
        };
    }

    private static JsonValue typed(JsonValue value, boolean ok, String field, String reason) {
        if (!ok) {
            throw new InvalidPolicyException(field, reason);
        }
        return value;
    }

    /** {@code resourcesOversell}: per list ({@code requests}, {@code limits}) the factor of each resource. */
    private static Map<String, Map<String, Double>> oversellFactors(JsonObject item, String field) {
        JsonObject lists = optionalObject(item, "resourcesOversell", field);
        var result = new LinkedHashMap<String, Map<String, Double>>();
        if (lists == null) {
            return result;
        }
        for (String list : lists.keySet()) {
            var factors = new LinkedHashMap<String, Double>();
            stringMap(lists, list, field + "." + list).forEach((resource, factor) -> {
                if (!FACTOR.matcher(factor).matches()) {
                    throw new InvalidPolicyException(field + "." + list + "." + resource, "must be a decimal number");
                }
                factors.put(resource, Double.parseDouble(factor));
            });
            result.put(list, factors);
        }
        return result;
    }

    private static int containerCount(JsonObject item, String at) {
        JsonNumber count = JsonFields.member(item, "containerCount", JsonNumber.class, null,
                v -> new InvalidPolicyException(at + ".containerCount", "must be an integer"));
        if (count == null) {
            return 0;
        }
        if (!count.isIntegral() || count.longValue() < 0 || count.longValue() > 10_000) {
            throw new InvalidPolicyException(at + ".containerCount", "must be an integer from 0 to 10000");
        }
        return count.intValue();
    }

    private static ValidateRule validateRule(JsonObject rule, String field, Forms made) {
        TargetOperations operations = operations(rule, field + ".targetOperations");
        var forms = new ArrayList<Validator>();
        templateAndCue(rule, field, made::validateTemplate, made::validateCue, forms);
        return new ValidateRule(operations, forms);
    }

    /** How a form another part provides is made from its member: {@link Forms}. */
    @FunctionalInterface
    private interface FormFactory<F, S> {
        F make(S source, String field);
    }

    /**
     * The {@code template} then the {@code cue} of a rule, in kinitiras's order (its {@code renderedCue}, which
     * only runs with a template, is the template's).
     */
    private static <F> void templateAndCue(JsonObject owner, String field, FormFactory<F, JsonObject> template,
                                           FormFactory<F, String> cue, List<F> forms) {
        JsonObject templateSource = optionalObject(owner, "template", field + ".template");
        String cueSource = string(owner, "cue", field + ".cue", "");
        string(owner, "renderedCue", field + ".renderedCue", "");
        if (templateSource != null) {
            forms.add(template.make(templateSource, field + ".template"));
        }
        if (!cueSource.isEmpty()) {
            forms.add(cue.make(cueSource, field + ".cue"));
        }
    }

    // --- typed members, each refused with its field

    private static String string(JsonObject object, String key, String field, String absent) {
        return JsonFields.string(object, key, absent, v -> new InvalidPolicyException(field, "must be a string"));
    }

    private static JsonObject object(JsonObject object, String key, String field) {
        JsonObject found = optionalObject(object, key, field);
        if (found == null) {
            throw new InvalidPolicyException(field, "required");
        }
        return found;
    }

    private static JsonObject optionalObject(JsonObject object, String key, String field) {
        return JsonFields.member(object, key, JsonObject.class, null,
                v -> new InvalidPolicyException(field, "must be an object"));
    }

    private static List<JsonObject> objects(JsonObject object, String key, String field) {
        JsonArray list = JsonFields.member(object, key, JsonArray.class, JsonValue.EMPTY_JSON_ARRAY,
                v -> new InvalidPolicyException(field, "must be a list"));
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof JsonObject)) {
                throw new InvalidPolicyException(field + "[" + i + "]", "must be an object");
            }
        }
        return list.getValuesAs(JsonObject.class);
    }

    private static List<String> strings(JsonObject object, String key, String field) {
        JsonArray list = JsonFields.member(object, key, JsonArray.class, JsonValue.EMPTY_JSON_ARRAY,
                v -> new InvalidPolicyException(field, "must be a list"));
        var result = new ArrayList<String>(list.size());
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof JsonString s)) {
                throw new InvalidPolicyException(field + "[" + i + "]", "must be a string");
            }
            result.add(s.getString());
        }
        return result;
    }

    private static Map<String, String> stringMap(JsonObject object, String key, String field) {
        JsonObject map = optionalObject(object, key, field);
        var result = new LinkedHashMap<String, String>();
        if (map != null) {
            map.forEach((k, v) -> {
                if (!(v instanceof JsonString s)) {
                    throw new InvalidPolicyException(field + "." + k, "must be a string");
                }
                result.put(k, s.getString());
            });
        }
        return result;
    }
}
