package io.remold.api;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads ModRules from YAML or JSON text (multi-document; {@code List}/{@code ModRuleList} documents are unpacked) or
 * from a {@code jakarta.json} object. Both {@code remold.io/v1beta1} and {@code api.kubemod.io/v1beta1} are
 * accepted. Every problem is a {@link ModRuleException} naming source, document, field and position.
 */
public final class ModRules {
    private static final Set<String> SPEC_FIELDS = Set.of("type", "admissionOperations", "executionTier",
            "targetNamespaceRegex", "rejectMessage", "match", "patch", "references", "mode", "existing");
    private static final Set<String> MATCH_FIELDS = Set.of("select", "matchFor", "matchValue", "matchValues",
            "matchRegex", "negate");
    private static final Set<String> PATCH_FIELDS = Set.of("op", "select", "path", "value");
    private static final Set<String> REFERENCE_FIELDS = Set.of("name", "apiVersion", "kind", "objectName",
            "namespace", "labelSelector", "onMissing");
    private static final Set<String> SELECTOR_FIELDS = Set.of("matchLabels", "matchExpressions");
    private static final Set<String> REQUIREMENT_FIELDS = Set.of("key", "operator", "values");

    private ModRules() {
    }

    /** All ModRules of a file. */
    public static List<ModRule> read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ModRuleException(file.toString(), 0, "", 0, 0, "cannot read: " + e.getMessage());
        }
        return parse(text, file.toString());
    }

    /** All ModRules of a YAML or JSON text; {@code source} names it in errors. */
    public static List<ModRule> parse(String text, String source) {
        var out = new ArrayList<ModRule>();
        List<YamlJson.Document> docs = YamlJson.documents(text, source);
        for (int i = 0; i < docs.size(); i++) {
            out.addAll(fromDocument(docs.get(i), i + 1, source));
        }
        return out;
    }

    /**
     * The ModRules of one document of a text ({@code number}: its 1-based place among the non-empty documents, as
     * errors name it); a {@code List} document yields one rule per item.
     */
    public static List<ModRule> fromDocument(YamlJson.Document doc, int number, String source) {
        var out = new ArrayList<ModRule>();
        new Reader(source, number, doc).document(doc.value(), out);
        return out;
    }

    /** One ModRule from a JSON object (for example from the API server). */
    public static ModRule fromJson(JsonObject object, String source) {
        var reader = new Reader(source, 0, null);
        return reader.rule(object, "");
    }

    /** Binds one document, turning every problem into a positioned {@link ModRuleException}. */
    private record Reader(String source, int document, YamlJson.Document doc) {

        void document(JsonValue value, List<ModRule> out) {
            JsonObject object = object(value, "");
            String kind = optString(object, "kind", "");
            if ("List".equals(kind) || "ModRuleList".equals(kind)) {
                JsonArray items = array(object.get("items"), "items");
                for (int i = 0; i < items.size(); i++) {
                    out.add(rule(object(items.get(i), "items[" + i + "]"), "items[" + i + "]."));
                }
            } else {
                out.add(rule(object, ""));
            }
        }

        ModRule rule(JsonObject object, String prefix) {
            String apiVersion = optString(object, "apiVersion", prefix + "apiVersion");
            if (!ModRule.REMOLD_API_VERSION.equals(apiVersion) && !ModRule.KUBEMOD_API_VERSION.equals(apiVersion)) {
                throw error(prefix + "apiVersion", "expected " + ModRule.REMOLD_API_VERSION + " or "
                        + ModRule.KUBEMOD_API_VERSION + ", got " + describe(object.get("apiVersion")));
            }
            String kind = optString(object, "kind", prefix + "kind");
            if (!"ModRule".equals(kind)) {
                throw error(prefix + "kind", "expected ModRule, got " + describe(object.get("kind")));
            }
            JsonObject metadata = object(required(object, "metadata", prefix), prefix + "metadata");
            String name = optString(metadata, "name", prefix + "metadata.name");
            if (name == null || name.isEmpty()) {
                throw error(prefix + "metadata.name", "required");
            }
            String namespace = optString(metadata, "namespace", prefix + "metadata.namespace");
            String uid = optString(metadata, "uid", prefix + "metadata.uid");
            String resourceVersion = optString(metadata, "resourceVersion", prefix + "metadata.resourceVersion");
            JsonValue generation = metadata.get("generation");
            long gen = generation instanceof JsonNumber n ? n.longValue() : 0;
            JsonObject spec = object(required(object, "spec", prefix), prefix + "spec");
            ModRuleSpec bound = spec(spec, prefix + "spec");
            if (!bound.references().isEmpty() && ModRule.KUBEMOD_API_VERSION.equals(apiVersion)) {
                throw error(prefix + "spec.references", "only " + ModRule.REMOLD_API_VERSION + " rules have references");
            }
            controls(object, spec, apiVersion, bound.type() != RuleType.Patch, prefix);
            return new ModRule(apiVersion, namespace, name, uid, resourceVersion, gen, bound);
        }

        /** Checks the rule's mode and existing policy (RuleControls reads them where they are used). */
        void controls(JsonObject object, JsonObject spec, String apiVersion, boolean canRefuse, String prefix) {
            for (String field : List.of("mode", "existing")) {
                if (spec.containsKey(field) && ModRule.KUBEMOD_API_VERSION.equals(apiVersion)) {
                    throw error(prefix + "spec." + field, "only " + ModRule.REMOLD_API_VERSION + " rules have it;"
                            + " an " + ModRule.KUBEMOD_API_VERSION + " rule takes the annotation remold.io/" + field);
                }
            }
            try {
                RuleControls.read(object, canRefuse);
            } catch (RuleControls.InvalidControlException e) {
                throw error(prefix + e.field(), e.reason());
            }
        }

        ModRuleSpec spec(JsonObject spec, String at) {
            unknownFields(spec, SPEC_FIELDS, at);
            RuleType type = enumValue(required(spec, "type", at + "."), at + ".type", RuleType.class);
            List<AdmissionOperation> ops = list(spec, "admissionOperations", at, (v, f) -> {
                AdmissionOperation op = enumValue(v, f, AdmissionOperation.class);
                if (!op.allowedInRules()) {
                    throw error(f, "expected CREATE, UPDATE or DELETE");
                }
                return op;
            });
            int tier = 0;
            JsonValue tierValue = spec.get("executionTier");
            if (tierValue != null && tierValue != JsonValue.NULL) {
                if (!(tierValue instanceof JsonNumber n) || !n.isIntegral()) {
                    throw error(at + ".executionTier", "expected an integer, got " + describe(tierValue));
                }
                long t = n.bigIntegerValue().max(java.math.BigInteger.valueOf(Integer.MIN_VALUE))
                        .min(java.math.BigInteger.valueOf(Integer.MAX_VALUE)).longValue();
                if (t < ModRuleSpec.MIN_TIER || t > ModRuleSpec.MAX_TIER) {
                    throw error(at + ".executionTier", "expected a value from " + ModRuleSpec.MIN_TIER + " to "
                            + ModRuleSpec.MAX_TIER + ", got " + n);
                }
                tier = (int) t;
            }
            String regex = optString(spec, "targetNamespaceRegex", at + ".targetNamespaceRegex");
            String message = optString(spec, "rejectMessage", at + ".rejectMessage");
            if (!spec.containsKey("match")) {
                throw error(at + ".match", "required");
            }
            List<MatchItem> match = list(spec, "match", at, this::matchItem);
            if (match.isEmpty()) {
                throw error(at + ".match", "needs at least one item");
            }
            List<PatchOperation> patch = list(spec, "patch", at, this::patchOperation);
            List<Reference> references = list(spec, "references", at, this::reference);
            return new ModRuleSpec(type, ops, tier, regex, message, match, patch, references);
        }

        MatchItem matchItem(JsonValue value, String at) {
            JsonObject item = object(value, at);
            unknownFields(item, MATCH_FIELDS, at);
            String select = optString(item, "select", at + ".select");
            if (select == null || select.isBlank()) {
                throw error(at + ".select", "required");
            }
            JsonValue matchFor = item.get("matchFor");
            MatchFor mf = matchFor == null || matchFor == JsonValue.NULL || "".equals(text(matchFor))
                    ? MatchFor.Any : enumValue(matchFor, at + ".matchFor", MatchFor.class);
            List<String> values = list(item, "matchValues", at, (v, f) -> {
                String s = text(v);
                if (s == null) {
                    throw error(f, "expected a string, got " + describe(v));
                }
                return s;
            });
            JsonValue negate = item.get("negate");
            boolean neg = false;
            if (negate != null && negate != JsonValue.NULL) {
                if (negate != JsonValue.TRUE && negate != JsonValue.FALSE) {
                    throw error(at + ".negate", "expected true or false, got " + describe(negate));
                }
                neg = negate == JsonValue.TRUE;
            }
            return new MatchItem(select, mf, optString(item, "matchValue", at + ".matchValue"), values,
                    optString(item, "matchRegex", at + ".matchRegex"), neg);
        }

        PatchOperation patchOperation(JsonValue value, String at) {
            JsonObject item = object(value, at);
            unknownFields(item, PATCH_FIELDS, at);
            PatchOp op = enumValue(required(item, "op", at + "."), at + ".op", PatchOp.class);
            String path = optString(item, "path", at + ".path");
            if (path == null) {
                throw error(at + ".path", "required");
            }
            return new PatchOperation(op, optString(item, "select", at + ".select"), path,
                    optString(item, "value", at + ".value"));
        }

        Reference reference(JsonValue value, String at) {
            JsonObject item = object(value, at);
            unknownFields(item, REFERENCE_FIELDS, at);
            String name = requiredString(item, "name", at);
            String apiVersion = requiredString(item, "apiVersion", at);
            String kind = requiredString(item, "kind", at);
            String objectName = optString(item, "objectName", at + ".objectName");
            JsonValue selector = item.get("labelSelector");
            boolean hasSelector = selector != null && selector != JsonValue.NULL;
            if ((objectName == null) == !hasSelector) {
                throw error(at + (objectName == null ? "" : ".labelSelector"),
                        "give exactly one of objectName and labelSelector");
            }
            OnMissing onMissing = enumValue(required(item, "onMissing", at + "."), at + ".onMissing", OnMissing.class);
            return new Reference(name, apiVersion, kind, objectName, optString(item, "namespace", at + ".namespace"),
                    hasSelector ? selector(selector, at + ".labelSelector") : null, onMissing);
        }

        Reference.Selector selector(JsonValue value, String at) {
            JsonObject selector = object(value, at);
            unknownFields(selector, SELECTOR_FIELDS, at);
            var labels = new java.util.TreeMap<String, String>();
            JsonValue matchLabels = selector.get("matchLabels");
            if (matchLabels != null && matchLabels != JsonValue.NULL) {
                JsonObject map = object(matchLabels, at + ".matchLabels");
                for (String key : map.keySet()) {
                    labels.put(key, requiredString(map, key, at + ".matchLabels"));
                }
            }
            List<Reference.Requirement> expressions = list(selector, "matchExpressions", at, (v, f) -> {
                JsonObject requirement = object(v, f);
                unknownFields(requirement, REQUIREMENT_FIELDS, f);
                Reference.Operator operator = enumValue(required(requirement, "operator", f + "."), f + ".operator",
                        Reference.Operator.class);
                List<String> values = list(requirement, "values", f, (s, g) -> requiredText(s, g));
                boolean takesValues = operator == Reference.Operator.In || operator == Reference.Operator.NotIn;
                if (takesValues == values.isEmpty()) {
                    throw error(f + ".values", takesValues ? "In and NotIn need at least one value"
                            : "Exists and DoesNotExist take no values");
                }
                return new Reference.Requirement(requiredString(requirement, "key", f), operator, values);
            });
            return new Reference.Selector(labels, expressions);
        }

        String requiredString(JsonObject object, String key, String at) {
            return requiredText(required(object, key, at + "."), at + "." + key);
        }

        String requiredText(JsonValue v, String at) {
            String s = text(v);
            if (s == null || s.isEmpty()) {
                throw error(at, s == null ? "expected a string, got " + describe(v) : "must not be empty");
            }
            return s;
        }

        <T> List<T> list(JsonObject parent, String key, String at, Binder<T> binder) {
            JsonValue v = parent.get(key);
            if (v == null || v == JsonValue.NULL) {
                return List.of();
            }
            JsonArray array = array(v, at + "." + key);
            var out = new ArrayList<T>(array.size());
            for (int i = 0; i < array.size(); i++) {
                out.add(binder.bind(array.get(i), at + "." + key + "[" + i + "]"));
            }
            return out;
        }

        <E extends Enum<E>> E enumValue(JsonValue v, String at, Class<E> type) {
            String s = text(v);
            for (E e : type.getEnumConstants()) {
                if (e.name().equals(s)) {
                    return e;
                }
            }
            var names = new ArrayList<String>();
            for (E e : type.getEnumConstants()) {
                if (!(e instanceof AdmissionOperation o) || o.allowedInRules()) {
                    names.add(e.name());
                }
            }
            String expected = names.size() == 2 ? names.get(0) + " or " + names.get(1)
                    : String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.getLast();
            throw error(at, "expected " + expected + ", got " + describe(v));
        }

        void unknownFields(JsonObject object, Set<String> known, String at) {
            for (String key : object.keySet()) {
                if (!known.contains(key)) {
                    throw error(at + "." + key, "unknown field (expected one of " + known.stream().sorted().toList() + ")");
                }
            }
        }

        JsonValue required(JsonObject object, String key, String prefix) {
            JsonValue v = object.get(key);
            if (v == null || v == JsonValue.NULL) {
                throw error(prefix + key, "required");
            }
            return v;
        }

        JsonObject object(JsonValue v, String at) {
            if (v instanceof JsonObject o) {
                return o;
            }
            throw error(at, "expected an object, got " + describe(v));
        }

        JsonArray array(JsonValue v, String at) {
            if (v instanceof JsonArray a) {
                return a;
            }
            throw error(at, "expected a list, got " + describe(v));
        }

        String optString(JsonObject object, String key, String at) {
            JsonValue v = object.get(key);
            if (v == null || v == JsonValue.NULL) {
                return null;
            }
            String s = text(v);
            if (s == null) {
                throw error(at, "expected a string, got " + describe(v));
            }
            return s;
        }

        ModRuleException error(String field, String problem) {
            int[] pos = doc == null ? new int[] {0, 0} : doc.position(field);
            return new ModRuleException(source, document, field, pos[0], pos[1], problem);
        }
    }

    @FunctionalInterface
    private interface Binder<T> {
        T bind(JsonValue value, String at);
    }

    /** Scalars as text (YAML may type {@code '8080'} unquoted as a number); null for objects and lists. */
    private static String text(JsonValue v) {
        return switch (v) {
            case JsonString s -> s.getString();
            case JsonNumber n -> n.toString();
            default -> v == JsonValue.TRUE ? "true" : v == JsonValue.FALSE ? "false" : null;
        };
    }

    private static String describe(JsonValue v) {
        if (v == null || v == JsonValue.NULL) {
            return "nothing";
        }
        return switch (v.getValueType()) {
            case OBJECT -> "an object";
            case ARRAY -> "a list";
            default -> v.toString();
        };
    }

}
