package io.remold.scripting;

import io.remold.engine.RuleFamily;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The module's entry point: reads js-admissions-controller's script rules ({@code JsAdmission} and {@code
 * ClusterJsAdmission} of {@value #GROUP}) and runs them on GraalJS in a sandbox ({@link ScriptHost}), as an engine
 * stage for mutation and validation. This class refers to no GraalJS type itself: reading a rule file or an outcome
 * name loads nothing of GraalJS, which is loaded when the first script is compiled or a host created.
 */
public final class Scripts {
    public static final String GROUP = "momiji.com";
    public static final String VERSION = "v1";
    public static final String NAMESPACED = "JsAdmission";
    public static final String CLUSTER = "ClusterJsAdmission";
    /** The resources (plural) of the two kinds, as the API server serves them. */
    public static final List<String> PLURALS = List.of("jsadmissions", "clusterjsadmissions");
    /** The family of the stage's outcomes, named as the webhook's warnings and audit annotation name them. */
    public static final RuleFamily FAMILY = new RuleFamily("script", "mutated by script(s)", "scripted-by");
    /** The function by which a script refuses objects, as a Reject rule does. */
    public static final String VALIDATE = Signatures.VALIDATE;
    private static final Set<String> MANAGED = Set.of(Signatures.MUTATE, Signatures.VALIDATE, Signatures.INIT,
            Signatures.CREATED, Signatures.UPDATED, Signatures.DELETED);

    private Scripts() {
    }

    /** The kind of the {@code remold.io} form: a ModRule of {@code type: Script}. */
    public static final String MODRULE = "ModRule";
    private static final String REMOLD_GROUP = "remold.io";
    /** What the ModRule CRD fills in: stored with every ModRule, so tolerated with their default values. */
    private static final Map<String, JsonValue> CRD_DEFAULTS = Map.of(
            "admissionOperations", Json.createArrayBuilder().add("CREATE").add("UPDATE").build(),
            "executionTier", Json.createValue(0));

    /**
     * Whether a manifest is a script rule: one of the two kinds ({@code momiji.com/...}) or a {@code remold.io}
     * ModRule of {@code type: Script}.
     */
    public static boolean isScript(JsonObject manifest) {
        return manifest.get("apiVersion") instanceof JsonString v && v.getString().startsWith(GROUP + "/")
                || isScriptModRule(manifest);
    }

    private static boolean isScriptModRule(JsonObject manifest) {
        return manifest.get("apiVersion") instanceof JsonString v && v.getString().startsWith(REMOLD_GROUP + "/")
                && manifest.get("kind") instanceof JsonString k && k.getString().equals(MODRULE)
                && manifest.get("spec") instanceof JsonObject spec
                && spec.get("type") instanceof JsonString t && t.getString().equals("Script");
    }

    /**
     * Reads and compiles a {@code JsAdmission} or {@code ClusterJsAdmission}; throws {@link InvalidScriptException}
     * naming the field: {@code apiVersion}, {@code kind}, {@code metadata.name}, {@code spec.kinds}, {@code spec.js}
     * (a syntax error with its line, a managed function's unknown parameter).
     */
    public static ScriptRule parse(JsonObject manifest) {
        if (isScriptModRule(manifest)) {
            return parseModRule(manifest);
        }
        if (!(manifest.get("apiVersion") instanceof JsonString v) || !v.getString().equals(GROUP + "/" + VERSION)) {
            throw new InvalidScriptException("apiVersion", "expected " + GROUP + "/" + VERSION);
        }
        String kind = manifest.get("kind") instanceof JsonString k ? k.getString() : "";
        if (!kind.equals(NAMESPACED) && !kind.equals(CLUSTER)) {
            throw new InvalidScriptException("kind", "expected " + NAMESPACED + " or " + CLUSTER + ", got \"" + kind
                    + "\"");
        }
        JsonObject metadata = manifest.get("metadata") instanceof JsonObject m ? m : JsonValue.EMPTY_JSON_OBJECT;
        if (!(metadata.get("name") instanceof JsonString name) || name.getString().isEmpty()) {
            throw new InvalidScriptException("metadata.name", "required");
        }
        String namespace = kind.equals(NAMESPACED) && metadata.get("namespace") instanceof JsonString ns
                && !ns.getString().isEmpty() ? ns.getString() : null;
        if (!(manifest.get("spec") instanceof JsonObject spec)) {
            throw new InvalidScriptException("spec", "required");
        }
        return compile(kind, namespace, name.getString(), spec, "spec.");
    }

    /**
     * A {@code remold.io} ModRule of {@code type: Script} ({@code spec.kinds}, {@code spec.js}): applies in its own
     * namespace, or everywhere when read from a file without one; ModRule fields other than {@code type} are refused
     * (they do not apply to a script).
     */
    private static ScriptRule parseModRule(JsonObject manifest) {
        JsonObject metadata = manifest.get("metadata") instanceof JsonObject m ? m : JsonValue.EMPTY_JSON_OBJECT;
        if (!(metadata.get("name") instanceof JsonString name) || name.getString().isEmpty()) {
            throw new InvalidScriptException("metadata.name", "required");
        }
        String namespace = metadata.get("namespace") instanceof JsonString ns && !ns.getString().isEmpty()
                ? ns.getString() : null;
        JsonObject spec = manifest.getJsonObject("spec");
        for (var field : spec.entrySet()) {
            // mode and existing are every rule's controls (RuleControls), not the script's
            if (!Set.of("type", "kinds", "js", "mode", "existing").contains(field.getKey())
                    && !field.getValue().equals(CRD_DEFAULTS.get(field.getKey()))) {
                throw new InvalidScriptException("spec." + field.getKey(),
                        "not a field of a ModRule of type Script (kinds, js)");
            }
        }
        return compile(MODRULE, namespace, name.getString(), spec, "spec.");
    }

    /**
     * Compiles the script part of a rule ({@code kinds} and {@code js} under {@code spec}, whose fields are named
     * with {@code prefix}): for the {@code remold.io} form, whose rule kind and scope the caller gives.
     */
    public static ScriptRule compile(String kind, String namespace, String name, JsonObject spec, String prefix) {
        var kinds = new ArrayList<String>();
        JsonValue kindsValue = spec.get("kinds");
        if (kindsValue != null && kindsValue != JsonValue.NULL) {
            if (!(kindsValue instanceof JsonArray array)) {
                throw new InvalidScriptException(prefix + "kinds", "expected a list of resources, as pods");
            }
            for (int i = 0; i < array.size(); i++) {
                if (!(array.get(i) instanceof JsonString s) || s.getString().isBlank()) {
                    throw new InvalidScriptException(prefix + "kinds[" + i + "]", "expected a resource name, as pods");
                }
                kinds.add(s.getString());
            }
        }
        if (!(spec.get("js") instanceof JsonString js) || js.getString().isBlank()) {
            throw new InvalidScriptException(prefix + "js", "required: the script");
        }
        Map<String, List<String>> functions;
        try {
            functions = Signatures.of(js.getString());
        } catch (InvalidScriptException e) {
            throw new InvalidScriptException(prefix + "js", e.reason());
        }
        if (functions.keySet().stream().noneMatch(MANAGED::contains)) {
            throw new InvalidScriptException(prefix + "js", "declares none of the functions jsa_mutate, jsa_validate,"
                    + " jsa_init, jsa_created, jsa_updated, jsa_deleted");
        }
        Sandbox.checkSyntax(js.getString(), prefix + "js");
        return new ScriptRule(kind, namespace, name, kinds, js.getString(), functions);
    }

    /** A host that runs script rules within {@code limits}; close it to stop its threads. */
    public static ScriptHost host(ScriptLimits limits) {
        return new ScriptHost(limits);
    }
}
