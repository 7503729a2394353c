package io.remold.cli.suite;

import io.remold.api.AdmissionOperation;
import io.remold.api.AllowedUrls;
import io.remold.api.ModRuleException;
import io.remold.api.YamlJson;
import io.remold.cli.UsageException;
import io.remold.cli.eval.Manifests;
import io.remold.cli.eval.RuleOptions;
import io.remold.kinitiras.KinitirasOptions;
import io.remold.rules.TenantScripts;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads a suite file strictly: an unknown field, a wrong type, a missing file or an expectation that cannot hold is
 * a {@link UsageException} naming the suite file, the line and column, and the field ({@code results[2].operation}).
 */
final class SuiteReader {
    static final String API_VERSION = "cli.remold.io/v1alpha1";
    private static final Set<String> TOP = Set.of("apiVersion", "kind", "metadata", "rules", "resources", "options",
            "results");
    private static final Set<String> OPTIONS = Set.of("kubemodSystemNamespace", "tenantScripts", "allowHttpRef",
            "kinitirasCrossNamespaceOverrides", "kinitirasWebhookLabel");
    private static final Set<String> RESULT = Set.of("name", "resources", "kind", "operation", "oldResource",
            "namespace", "namespaceLabels", "userInfo", "mocks", "patchedResource", "result", "message",
            "exactMessage", "warnings");
    private static final Set<String> MOCKS = Set.of("references", "cluster", "externalData", "http", "state");

    private final Path file;
    private final Path folder;
    private final YamlJson.Document document;

    private SuiteReader(Path file, YamlJson.Document document) {
        this.file = file;
        this.folder = file.toAbsolutePath().getParent();
        this.document = document;
    }

    static Suite read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UsageException(file + ": cannot read (" + e.getClass().getSimpleName() + ": " + e.getMessage()
                    + ")");
        }
        List<YamlJson.Document> documents;
        try {
            documents = YamlJson.documents(text, file.toString());
        } catch (ModRuleException e) {
            throw new UsageException(e.getMessage());
        }
        if (documents.size() != 1) {
            throw new UsageException(file + ": expected one YAML document, found " + documents.size());
        }
        return new SuiteReader(file, documents.getFirst()).suite();
    }

    private Suite suite() {
        JsonObject top = object(document.value(), "");
        known(top, "", TOP);
        String apiVersion = string(top, "", "apiVersion");
        if (apiVersion != null && !apiVersion.equals(API_VERSION)) {
            throw problem("apiVersion", "expected " + API_VERSION + ", got \"" + apiVersion + "\"");
        }
        String kind = string(top, "", "kind");
        if (kind != null && !kind.equals("Test")) {
            throw problem("kind", "expected Test, got \"" + kind + "\"");
        }
        String name = null;
        if (top.containsKey("metadata")) {
            JsonObject metadata = object(top.get("metadata"), "metadata");
            known(metadata, "metadata", Set.of("name"));
            name = string(metadata, "metadata", "name");
        }
        if (name == null) {
            name = folder.getFileName() == null ? file.toString() : folder.getFileName().toString();
        }
        List<Path> rules = new ArrayList<>();
        List<String> ruleNames = strings(top, "", "rules", true);
        for (int i = 0; i < ruleNames.size(); i++) {
            rules.add(path("rules[" + i + "]", ruleNames.get(i)));
        }
        List<Suite.Resource> resources = new ArrayList<>();
        List<String> resourceNames = strings(top, "", "resources", true);
        for (int i = 0; i < resourceNames.size(); i++) {
            resources.addAll(objects("resources[" + i + "]", resourceNames.get(i)));
        }
        RuleOptions options = options(top);
        JsonArray results = array(top, "", "results", true);
        List<Suite.Case> cases = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < results.size(); i++) {
            Suite.Case c = result(results.get(i), "results[" + i + "]", resources, options);
            if (!names.add(c.name())) {
                throw problem(c.field() + ".name", "two results are named \"" + c.name() + "\"");
            }
            cases.add(c);
        }
        return new Suite(file, name, List.copyOf(rules), List.copyOf(resources), List.copyOf(cases));
    }

    /** The server options of {@code options}, as RuleOptions without mocks (each result adds its own). */
    private RuleOptions options(JsonObject top) {
        if (!top.containsKey("options")) {
            return RuleOptions.NONE;
        }
        JsonObject options = object(top.get("options"), "options");
        known(options, "options", OPTIONS);
        String tenants = string(options, "options", "tenantScripts");
        TenantScripts tenantScripts = tenants == null ? null : TenantScripts.parse(tenants);
        AllowedUrls allowed = AllowedUrls.ANY;
        if (options.containsKey("allowHttpRef")) {
            try {
                allowed = AllowedUrls.parse(strings(options, "options", "allowHttpRef", true));
            } catch (IllegalArgumentException e) {
                throw problem("options.allowHttpRef", e.getMessage());
            }
        }
        return new RuleOptions(Map.of(), List.of(), Map.of(), allowed, Map.of(),
                string(options, "options", "kubemodSystemNamespace"), tenantScripts, null,
                new KinitirasOptions(bool(options, "options", "kinitirasCrossNamespaceOverrides"),
                        bool(options, "options", "kinitirasWebhookLabel")));
    }

    private Suite.Case result(JsonValue value, String field, List<Suite.Resource> all, RuleOptions options) {
        JsonObject result = object(value, field);
        known(result, field, RESULT);
        String name = string(result, field, "name");
        name = name == null ? field : name;
        List<Suite.Resource> resources = selected(result, field, all);

        AdmissionOperation operation = operation(result, field);
        List<Suite.Resource> old = null;
        String oldFile = string(result, field, "oldResource");
        if (oldFile != null) {
            if (operation != null && operation != AdmissionOperation.UPDATE) {
                throw problem(field + ".oldResource", "only an UPDATE has an old object (for DELETE, resources are"
                        + " the objects being deleted)");
            }
            operation = AdmissionOperation.UPDATE;
            old = objects(field + ".oldResource", oldFile);
            for (Suite.Resource r : resources) {
                match(field + ".oldResource", old, r);
            }
        } else if (operation == AdmissionOperation.UPDATE) {
            throw problem(field + ".operation", "an UPDATE needs oldResource, the object before the change");
        }
        operation = operation == null ? AdmissionOperation.CREATE : operation;

        String namespace = string(result, field, "namespace");
        Map<String, String> labels = result.containsKey("namespaceLabels")
                ? stringMap(result, field, "namespaceLabels") : null;
        String userName = null;
        if (result.containsKey("userInfo")) {
            JsonObject userInfo = object(result.get("userInfo"), field + ".userInfo");
            if (userInfo.containsKey("groups")) {
                throw problem(field + ".userInfo.groups", "no rule family reads the requester's groups at admission"
                        + " (userInfo.username is read, by Gatekeeper's externalData with dataSource: Username)");
            }
            known(userInfo, field + ".userInfo", Set.of("username"));
            userName = string(userInfo, field + ".userInfo", "username");
        }

        Path namespaceFile = null;
        Path nodeFile = null;
        RuleOptions withMocks = options;
        if (result.containsKey("mocks")) {
            String at = field + ".mocks";
            JsonObject mocks = object(result.get("mocks"), at);
            known(mocks, at, MOCKS);
            var references = new LinkedHashMap<>(paths(mocks, at, "references"));
            namespaceFile = references.remove("namespace");
            nodeFile = references.remove("node");
            List<Path> cluster = new ArrayList<>();
            List<String> clusterFiles = mocks.containsKey("cluster") ? strings(mocks, at, "cluster", true) : List.of();
            for (int i = 0; i < clusterFiles.size(); i++) {
                cluster.add(path(at + ".cluster[" + i + "]", clusterFiles.get(i)));
            }
            String state = string(mocks, at, "state");
            withMocks = new RuleOptions(Map.copyOf(references), List.copyOf(cluster), paths(mocks, at, "http"),
                    options.allowHttpRef(), paths(mocks, at, "externalData"), options.kubemodSystemNamespace(),
                    options.tenantScripts(), state == null ? null : path(at + ".state", state), options.kinitiras());
        }
        if (labels != null && namespaceFile != null) {
            throw problem(field + ".namespaceLabels", "give the namespace's labels or its object"
                    + " (mocks.references.namespace), not both");
        }
        int[] at = document.position(field);
        String origin = file + " (line " + at[0] + ", column " + at[1] + "): " + field;
        return new Suite.Case(name, field, origin, resources, operation, old, namespace, labels, namespaceFile, nodeFile,
                userName, withMocks, expectation(result, field, operation, resources));
    }

    private Suite.Expectation expectation(JsonObject result, String field, AdmissionOperation operation,
                                          List<Suite.Resource> resources) {
        String verdict = string(result, field, "result");
        if (verdict != null && !verdict.equals("allowed") && !verdict.equals("denied")) {
            throw problem(field + ".result", "expected allowed or denied, got \"" + verdict + "\"");
        }
        String patchedFile = string(result, field, "patchedResource");
        String message = string(result, field, "message");
        String exact = string(result, field, "exactMessage");
        List<String> warnings = result.containsKey("warnings") ? strings(result, field, "warnings", false) : null;
        if (verdict == null && patchedFile == null) {
            throw problem(field, "expects nothing: give result (allowed or denied) or patchedResource");
        }
        boolean allowed = verdict == null || verdict.equals("allowed");
        if (patchedFile != null && !allowed) {
            throw problem(field + ".patchedResource", "a denied request has no patched resource");
        }
        if (patchedFile != null && operation == AdmissionOperation.DELETE) {
            throw problem(field + ".patchedResource", "a DELETE is never patched");
        }
        if ((message != null || exact != null) && allowed) {
            throw problem(field + (message != null ? ".message" : ".exactMessage"),
                    "only a denied result has a message");
        }
        if (message != null && exact != null) {
            throw problem(field + ".exactMessage", "give message (contained) or exactMessage, not both");
        }
        List<Suite.Resource> patched = null;
        Path patchedPath = null;
        if (patchedFile != null) {
            patchedPath = path(field + ".patchedResource", patchedFile);
            List<Suite.Resource> documents = objects(field + ".patchedResource", patchedFile);
            patched = new ArrayList<>();
            for (Suite.Resource r : resources) {
                // one expected object for one resource, whatever its name (a rule may rename); else by identity
                patched.add(documents.size() == 1 && resources.size() == 1 ? documents.getFirst()
                        : match(field + ".patchedResource", documents, r));
            }
        }
        return new Suite.Expectation(allowed, patched == null ? null : List.copyOf(patched), patchedPath,
                exact != null ? exact : message, exact != null, warnings);
    }

    /** The resources a result names ({@code NAME} or {@code NAMESPACE/NAME}, of {@code kind}); all by default. */
    private List<Suite.Resource> selected(JsonObject result, String field, List<Suite.Resource> all) {
        String kind = string(result, field, "kind");
        List<Suite.Resource> ofKind = all.stream().filter(r -> kind == null || r.kind().equals(kind)).toList();
        if (!result.containsKey("resources")) {
            if (ofKind.isEmpty()) {
                throw problem(field + ".kind", "no resource of the suite is a " + kind);
            }
            return ofKind;
        }
        List<String> names = strings(result, field, "resources", true);
        var selected = new ArrayList<Suite.Resource>();
        for (int i = 0; i < names.size(); i++) {
            String wanted = names.get(i);
            List<Suite.Resource> found = ofKind.stream().filter(r -> r.name().equals(wanted)
                    || (r.namespace() + "/" + r.name()).equals(wanted)).toList();
            if (found.isEmpty()) {
                throw problem(field + ".resources[" + i + "]", "no resource " + (kind == null ? "" : "of kind "
                        + kind + " ") + "is named \"" + wanted + "\" (names: " + String.join(", ",
                        ofKind.stream().map(Suite.Resource::name).distinct().toList()) + ")");
            }
            found.stream().filter(r -> !selected.contains(r)).forEach(selected::add);
        }
        return List.copyOf(selected);
    }

    private AdmissionOperation operation(JsonObject result, String field) {
        String value = string(result, field, "operation");
        if (value == null) {
            return null;
        }
        for (AdmissionOperation op : AdmissionOperation.values()) {
            if (op.allowedInRules() && op.name().equals(value.toUpperCase(Locale.ROOT))) {
                return op;
            }
        }
        throw problem(field + ".operation", "expected CREATE, UPDATE or DELETE, got \"" + value + "\"");
    }

    /** The document of {@code documents} that is {@code resource} (same kind, namespace and name). */
    private Suite.Resource match(String field, List<Suite.Resource> documents, Suite.Resource resource) {
        return documents.stream().filter(d -> resource.same(d.object())).findFirst().orElseThrow(() -> problem(field,
                "no object of the file is " + resource.id()));
    }

    private List<Suite.Resource> objects(String field, String value) {
        Path path = path(field, value);
        try {
            return Manifests.objects("", path).stream().map(o -> new Suite.Resource(path, o)).toList();
        } catch (UsageException | ModRuleException e) {
            throw problem(field, e.getMessage().strip());
        }
    }

    /** A file named by the suite, relative to its folder; it must exist. */
    private Path path(String field, String value) {
        if (value.isEmpty()) {
            throw problem(field, "expected a file name");
        }
        Path path = file.resolveSibling(value).normalize();
        if (!Files.exists(path)) {
            throw problem(field, "no such file or folder: " + path);
        }
        return path;
    }

    /** A mapping of names to files, as eval's NAME=FILE flags; empty when absent. */
    private Map<String, Path> paths(JsonObject parent, String field, String key) {
        if (!parent.containsKey(key)) {
            return Map.of();
        }
        var paths = new LinkedHashMap<String, Path>();
        stringMap(parent, field, key).forEach((name, value) -> paths.put(name, path(field + "." + key + "." + name,
                value)));
        return paths;
    }

    private void known(JsonObject object, String field, Set<String> keys) {
        for (String key : object.keySet()) {
            if (!keys.contains(key)) {
                throw problem(join(field, key), "unknown field (known: " + String.join(", ",
                        keys.stream().sorted().toList()) + ")");
            }
        }
    }

    private JsonObject object(JsonValue value, String field) {
        if (value instanceof JsonObject object) {
            return object;
        }
        throw problem(field, "expected a mapping, got " + type(value));
    }

    private JsonArray array(JsonObject parent, String field, String key, boolean nonEmpty) {
        String at = join(field, key);
        JsonValue value = parent.get(key);
        if (value == null) {
            throw problem(at, "required");
        }
        if (!(value instanceof JsonArray array)) {
            throw problem(at, "expected a list, got " + type(value));
        }
        if (nonEmpty && array.isEmpty()) {
            throw problem(at, "expected at least one entry");
        }
        return array;
    }

    private List<String> strings(JsonObject parent, String field, String key, boolean nonEmpty) {
        JsonArray array = array(parent, field, key, nonEmpty);
        var out = new ArrayList<String>();
        for (int i = 0; i < array.size(); i++) {
            if (!(array.get(i) instanceof JsonString s)) {
                throw problem(join(field, key) + "[" + i + "]", "expected a string, got " + type(array.get(i)));
            }
            out.add(s.getString());
        }
        return List.copyOf(out);
    }

    private Map<String, String> stringMap(JsonObject parent, String field, String key) {
        String at = join(field, key);
        JsonObject object = object(parent.get(key), at);
        var out = new LinkedHashMap<String, String>();
        object.forEach((name, value) -> {
            if (!(value instanceof JsonString s)) {
                throw problem(at + "." + name, "expected a string, got " + type(value));
            }
            out.put(name, s.getString());
        });
        return out;
    }

    /** The string at {@code key}; null when absent. */
    private String string(JsonObject parent, String field, String key) {
        JsonValue value = parent.get(key);
        if (value == null) {
            return null;
        }
        if (!(value instanceof JsonString s)) {
            throw problem(join(field, key), "expected a string, got " + type(value));
        }
        return s.getString();
    }

    private boolean bool(JsonObject parent, String field, String key) {
        JsonValue value = parent.get(key);
        if (value == null) {
            return false;
        }
        if (value != JsonValue.TRUE && value != JsonValue.FALSE) {
            throw problem(join(field, key), "expected true or false, got " + type(value));
        }
        return value == JsonValue.TRUE;
    }

    private static String type(JsonValue value) {
        return value == null ? "nothing" : value.getValueType().name().toLowerCase(Locale.ROOT);
    }

    private static String join(String field, String key) {
        return field.isEmpty() ? key : field + "." + key;
    }

    /** A problem at {@code field}: the suite file, the field's line and column, the field, the message. */
    private UsageException problem(String field, String message) {
        int[] at = document.position(field);
        return new UsageException(new ModRuleException(file.toString(), 0, field, at[0], at[1], message)
                .getMessage());
    }
}
