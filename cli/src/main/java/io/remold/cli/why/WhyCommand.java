package io.remold.cli.why;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRuleException;
import io.remold.cli.UsageException;
import io.remold.cli.eval.FieldsSection;
import io.remold.cli.eval.Manifests;
import io.remold.cli.eval.OfflineAdmission;
import io.remold.cli.eval.OfflineRules;
import io.remold.cli.eval.RuleFiles;
import io.remold.cli.preview.ClusterConnector;
import io.remold.cli.preview.ObjectSource;
import io.remold.engine.Family;
import io.remold.engine.Family.TargetKind;
import io.remold.engine.FieldChange;
import io.remold.engine.Provenance;
import io.remold.json.JsonTree;
import io.remold.rules.Families;
import io.remold.rules.RuleSet;
import io.remold.rules.Snapshot;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParsingException;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code remold why}: which rule changed a field of an object, and why. It reads the object's
 * {@link Provenance#ANNOTATION} (what the server recorded when it patched it), then re-evaluates the rules on the
 * object as stored, as a CREATE of it, and names each rule whose own operations write the field, with the match
 * items that held ({@link Provenance#writers}). Exit codes: 0 a rule was found, 1 none, 2 usage, input or cluster
 * error.
 */
public final class WhyCommand {
    static final int FOUND = 0;
    static final int NONE = 1;
    static final int INPUT_ERROR = 2;
    /** Reading one object and the rules: a few requests, paced as preview's default. */
    private static final double QPS = 20;
    /** The kinds of ModRules, beside the families' resources. */
    private static final List<TargetKind> MODRULE_KINDS = List.of(new TargetKind("remold.io", "ModRule", null),
            new TargetKind("api.kubemod.io", "ModRule", null));

    private WhyCommand() {
    }

    /** Runs {@code why} with the arguments after the command name; {@code cluster} reads KIND/NAME. */
    public static int run(String[] args, PrintStream out, PrintStream err, ClusterConnector cluster) {
        try {
            WhyOptions options = WhyOptions.parse(args);
            if (options.help()) {
                out.println(WhyOptions.USAGE);
                return FOUND;
            }
            if (options.resource() != null) {
                JsonObject object = Manifests.object("--resource", options.resource());
                String namespace = options.namespace() != null ? options.namespace() : Manifests.namespaceOf(object);
                return answer(options, object, namespace, null, RuleFiles.load(options.rules()), out);
            }
            Target target = Target.parse(options.target());
            try (ObjectSource source = cluster.connect(options.kubeconfig(), options.context(), QPS)) {
                JsonObject object = find(source, target,
                        options.namespace() != null ? options.namespace() : "default");
                String namespace = Manifests.namespaceOf(object);
                return answer(options, object, namespace, namespace.isEmpty() ? null : source.namespace(namespace),
                        options.rules().isEmpty() ? clusterRules(source) : RuleFiles.load(options.rules()), out);
            }
        } catch (UsageException | ModRuleException e) {
            e.getMessage().lines().forEach(line -> err.println("remold why: " + line));
            return INPUT_ERROR;
        }
    }

    /** {@code namespaceRef}: the object's Namespace as the rules read it, or null. */
    private static int answer(WhyOptions options, JsonObject object, String namespace, JsonObject namespaceRef,
                              RuleFiles.Loaded loaded, PrintStream out) {
        String field = options.field();
        JsonObject metadata = object.getJsonObject("metadata");
        out.println("field " + field + " of " + object.getString("kind", "object") + " "
                + (namespace.isEmpty() ? "" : namespace + "/") + (metadata == null ? "" : metadata.getString("name", "")));
        boolean annotated = annotation(metadata, field, out);
        try (var rules = OfflineRules.open(loaded, options.ruleOptions())) {
            Snapshot snapshot = rules.assembly().assemble(RuleSet.of(loaded.entries()));
            OfflineAdmission.Answer answer = OfflineAdmission.decide(snapshot, new OfflineAdmission.Request(
                    AdmissionOperation.CREATE, namespace, object, null, namespaceRef, null, "", true));
            List<FieldChange> writers = Provenance.writers(answer.mutation(), field, loaded.generations());
            out.println("re-evaluated (a CREATE of the object as stored, with the rules in force):");
            if (writers.isEmpty()) {
                out.println("  no rule's operations write it");
            }
            for (int i = 0; i < writers.size(); i++) {
                FieldsSection.writer(writers, i, "  ", out);
            }
            return annotated || !writers.isEmpty() ? FOUND : NONE;
        }
    }

    /** Prints what the object's annotation says of {@code field}; whether it names a rule for it. */
    private static boolean annotation(JsonObject metadata, String field, PrintStream out) {
        String prefix = "annotation " + Provenance.ANNOTATION + ": ";
        JsonObject annotations = metadata != null && metadata.get("annotations") instanceof JsonObject a ? a : null;
        if (annotations == null || !(annotations.get(Provenance.ANNOTATION) instanceof JsonString value)) {
            out.println(prefix + "none on the object (a server run with provenance-annotation sets it when a"
                    + " mutation changes the object)");
            return false;
        }
        JsonValue parsed;
        try {
            parsed = JsonTree.parse(value.getString().getBytes(StandardCharsets.UTF_8));
        } catch (JsonParsingException e) {
            parsed = null;
        }
        if (!(parsed instanceof JsonObject pairs)) {
            out.println(prefix + "not Remold's (not a JSON object of rule to paths)");
            return false;
        }
        boolean found = false;
        int others = 0;
        long leftOut = 0;
        for (var pair : pairs.entrySet()) {
            if (pair.getKey().equals(Provenance.MORE)) {
                leftOut = pair.getValue() instanceof JsonNumber n ? n.longValue() : 0;
                continue;
            }
            for (JsonValue path : pair.getValue() instanceof JsonArray paths ? paths : JsonValue.EMPTY_JSON_ARRAY) {
                if (path instanceof JsonString p && Provenance.related(p.getString(), field)) {
                    out.println(prefix + pair.getKey() + " set " + p.getString());
                    found = true;
                } else {
                    others++;
                }
            }
        }
        if (!found) {
            out.println(prefix + "no entry for " + field + " (it names " + others + " other field"
                    + (others == 1 ? "" : "s") + (leftOut > 0 ? "; " + leftOut + " changed fields were left out of it"
                    : "") + ")");
        }
        return found;
    }

    /** {@code KIND/NAME} as written: the kind (any group, or {@code group/Kind}; core is {@code ""}) and the name. */
    private record Target(TargetKind kind, String name, String written) {
        static Target parse(String written) {
            int slash = written.lastIndexOf('/');
            String kind = slash < 0 ? "" : written.substring(0, slash);
            String name = written.substring(slash + 1);
            int group = kind.indexOf('/');
            if (name.isEmpty() || group + 1 >= kind.length() || !Character.isUpperCase(kind.charAt(group + 1))) {
                throw new UsageException("expected KIND/NAME (Pod/web, apps/Deployment/api), got \"" + written + "\"");
            }
            String apiGroup = group < 0 ? null : kind.substring(0, group);
            return new Target(new TargetKind("core".equals(apiGroup) ? "" : apiGroup, kind.substring(group + 1), null),
                    name, written);
        }
    }

    /** The object {@code target} of {@code namespace} (cluster-scoped kinds are found in any). */
    private static JsonObject find(ObjectSource source, Target target, String namespace) {
        var found = new ArrayList<JsonObject>();
        // the namespace's objects; then, if none is it, the cluster-scoped ones of the kind
        for (Set<String> namespaces : List.of(Set.of(namespace), Set.<String>of())) {
            if (found.isEmpty()) {
                source.list(Set.of(target.kind()), namespaces, named(target.name(), namespace, found));
            }
        }
        if (found.isEmpty()) {
            throw new UsageException(target.written() + " not found in namespace " + namespace);
        }
        return found.getFirst();
    }

    /** A listing that keeps the objects called {@code name} in {@code namespace} (or cluster-scoped). */
    private static ObjectSource.Listing named(String name, String namespace, List<JsonObject> found) {
        return new ObjectSource.Listing() {
            @Override
            public void start(String what) {
                found.clear();
            }

            @Override
            public void page(List<JsonObject> objects) {
                for (JsonObject o : objects) {
                    JsonObject metadata = o.getJsonObject("metadata");
                    if (name.equals(metadata.getString("name", "")) && namespace.equals(metadata.getString(
                            "namespace", namespace))) {
                        found.add(o);
                    }
                }
            }
        };
    }

    /** The rules the cluster holds, of every family Remold serves, read as files are (a temporary one). */
    private static RuleFiles.Loaded clusterRules(ObjectSource source) {
        var kinds = new LinkedHashSet<>(MODRULE_KINDS);
        for (Family<?> family : Families.create()) {
            family.resources().forEach(r -> kinds.add(new TargetKind(r.group(), r.kind(), null)));
            try {
                family.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        var text = new StringBuilder();
        for (TargetKind kind : kinds) {
            var ofKind = new StringBuilder();
            source.list(Set.of(kind), Set.of(), new ObjectSource.Listing() {
                @Override
                public void start(String what) {
                    // a list started over gives every rule again: a rule read twice would be refused as a duplicate
                    ofKind.setLength(0);
                }

                @Override
                public void page(List<JsonObject> objects) {
                    objects.forEach(o -> ofKind.append("---\n").append(o).append('\n'));
                }
            });
            text.append(ofKind);
        }
        try {
            Path file = Files.createTempFile("cluster-rules", ".yaml");
            file.toFile().deleteOnExit();
            Files.writeString(file, text);
            return RuleFiles.load(List.of(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
