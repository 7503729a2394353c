package io.remold.cli.eval;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.ModRuleException;
import io.remold.api.RuleType;
import io.remold.api.YamlJson;
import io.remold.cli.JsonText;
import io.remold.cli.UsageException;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.engine.ReferenceScope;
import io.remold.engine.RuleFamily;
import io.remold.engine.RuleOutcome;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.json.JsonTree;
import io.remold.kinitiras.KinitirasFamily;
import io.remold.kinitiras.Policy;
import io.remold.scripting.ScriptRule;
import io.remold.scripting.Scripts;
import io.remold.rules.RuleSet;
import io.remold.rules.Snapshot;
import io.remold.rules.impact.AdmissionVerdicts;
import io.remold.templating.ExternalData;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParsingException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code remold eval}: decides one admission request offline, as the server would, and prints the resulting
 * object or patch. Exit codes (the contract scripts rely on): 0 allowed (a failing Patch rule is reported on stderr), 1 rejected,
 * 2 usage or input error.
 */
public final class EvalCommand {
    static final int ALLOWED = 0;
    static final int REJECTED = 1;
    static final int INPUT_ERROR = 2;
    private EvalCommand() {
    }

    /** Runs {@code eval} with the arguments after the command name; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        EvalOptions options;
        try {
            options = EvalOptions.parse(args);
        } catch (UsageException e) {
            err.println("remold eval: " + e.getMessage());
            err.println("remold eval: usage: remold eval --help");
            return INPUT_ERROR;
        }
        if (options.help()) {
            out.println(EvalOptions.USAGE);
            return ALLOWED;
        }
        try {
            return evaluate(options, out, err);
        } catch (UsageException | ModRuleException e) {
            // One problem per line (a broken rule may have several), each line greppable by its prefix.
            e.getMessage().lines().forEach(line -> err.println("remold eval: " + line));
            return INPUT_ERROR;
        }
    }

    private static int evaluate(EvalOptions options, PrintStream out, PrintStream err) {
        RuleFiles.Loaded loaded = RuleFiles.load(options.rules());
        JsonObject resource = manifest("--resource", options.resource());
        JsonObject old = options.old() == null ? null : manifest("--old", options.old());
        JsonObject namespaceRef = options.namespaceRef() == null ? null
                : manifest("--ref namespace", options.namespaceRef());
        JsonObject nodeRef = options.nodeRef() == null ? null : manifest("--ref node", options.nodeRef());
        String namespace = options.namespace() != null ? options.namespace() : namespaceOf(resource);

        try (var rules = OfflineRules.open(loaded, options.ruleOptions())) {
            Snapshot snapshot = rules.assembly().assemble(RuleSet.of(loaded.entries()));
            // As the server's log says it, and its Ready condition: these rules do not run.
            snapshot.disabled().forEach((key, why) -> err.println("remold eval: the rule from " + key
                    + " is not in force: " + why));
            Engine engine = snapshot.engine();
            AdmissionOperation operation = options.effectiveOperation();
            boolean delete = operation == AdmissionOperation.DELETE;
            // A DELETE carries the object being deleted as the old object, as the API server sends it.
            var mutationRequest = new AdmissionRequest(operation, namespace, delete ? null : resource,
                    delete ? resource : old, namespaceRef, nodeRef, options.explain());
            Decision mutation = engine.mutate(mutationRequest);
            var validationRequest = new AdmissionRequest(operation, namespace, delete ? null : mutation.result(),
                    delete ? resource : old, namespaceRef, nodeRef, options.explain());
            Decision validation = engine.validate(validationRequest);

            if (options.explain()) {
                explain(loaded, operation, mutation, validation, err);
            }
            // As the server decides: Warn rules' refusals warn, Shadow rules are evaluated apart and change nothing.
            long deadline = System.nanoTime() + ExternalData.REQUEST_BUDGET.toNanos();
            ShadowSection.print(AdmissionVerdicts.mutate(snapshot, mutationRequest, mutation, deadline),
                    AdmissionVerdicts.validate(snapshot, validationRequest, deadline), options.output(), err);
            snapshot.warned(mutation).forEach(warning -> err.println("remold eval: warning: " + warning));
            snapshot.warned(validation).forEach(warning -> err.println("remold eval: warning: " + warning));
            mutation = snapshot.enforced(mutation);
            validation = snapshot.enforced(validation);
            for (RuleOutcome outcome : mutation.outcomes()) {
                if (outcome.error() != null) {
                    err.println("remold eval: rule " + outcome.rule() + " failed: " + outcome.error());
                }
            }
            if (!mutation.allowed()) {
                err.println(mutation.rejectionMessage()); // a script's jsa_mutate answered Allowed: false
                return REJECTED;
            }
            if (!validation.allowed()) {
                err.println(validation.rejectionMessage());
                return REJECTED;
            }
            out.print(switch (options.output()) {
                case yaml -> YamlJson.toYaml(mutation.result());
                case json -> JsonText.pretty(mutation.result());
                case patch -> JsonText.patchLines(mutation.patch());
            });
            out.flush();
            return ALLOWED;
        }
    }


    /** One object from a YAML or JSON file. */
    static JsonObject manifest(String flag, Path file) {
        List<JsonValue> documents = documents(flag, file);
        if (documents.size() != 1) {
            throw new UsageException(flag + " " + file + ": expected one YAML or JSON document, found "
                    + documents.size());
        }
        if (!(documents.getFirst() instanceof JsonObject object)) {
            throw new UsageException(flag + " " + file + ": expected an object, got "
                    + documents.getFirst().getValueType().name().toLowerCase());
        }
        return object;
    }

    /**
     * The YAML or JSON documents of a file given with {@code flag}; an unreadable file is an input error. JSON (a
     * {@code .json} file, or text that starts with { or [) is read as the server reads a request, into a compact
     * tree: YAML's node graph of a 3 MB object would not fit the heap.
     */
    public static List<JsonValue> documents(String flag, Path file) {
        String text;
        try {
            byte[] bytes = Files.readAllBytes(file);
            boolean jsonFile = file.getFileName().toString().endsWith(".json");
            if (jsonFile || looksLikeJson(bytes)) {
                try {
                    return List.of(JsonTree.parse(bytes));
                } catch (JsonParsingException e) {
                    if (jsonFile) {
                        throw new UsageException(flag + " " + file + ": " + e.getMessage());
                    }
                    // a YAML flow mapping ({kind: Pod}) starts like JSON too
                }
            }
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (IOException e) {
            throw new UsageException(flag + " " + file + ": cannot read (" + e.getClass().getSimpleName() + ": "
                    + e.getMessage() + ")");
        }
        return YamlJson.parse(text, file.toString());
    }

    private static boolean looksLikeJson(byte[] bytes) {
        for (byte b : bytes) {
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                return b == '{' || b == '[';
            }
        }
        return false;
    }

    /**
     * The object's own namespace; none ("") for the cluster-scoped built-in kinds, so that cluster-wide rules see
     * them as the API server would send them; else {@code default}, as kubectl would use.
     */
    private static String namespaceOf(JsonObject resource) {
        if (resource.get("metadata") instanceof JsonObject metadata
                && metadata.get("namespace") instanceof JsonString ns && !ns.getString().isEmpty()) {
            return ns.getString();
        }
        return ReferenceScope.BUILT_IN_CLUSTER_SCOPED_KINDS.contains(resource.getString("kind", "")) ? "" : "default";
    }

    private static void explain(RuleFiles.Loaded loaded, AdmissionOperation operation, Decision mutation,
                                Decision validation, PrintStream err) {
        List<ModRule> rules = loaded.rules();
        List<Mutator> loadedMutators = loaded.rulesOf(Mutator.class);
        Set<String> mutators = new HashSet<>();
        loadedMutators.forEach(m -> mutators.add(m.id().toString()));
        var ruleOutcomes = mutation.outcomes().stream().filter(o -> o.family().equals(RuleFamily.MODRULE)).toList();
        err.println("Patch rules:");
        if (operation == AdmissionOperation.DELETE) {
            err.println("  none run: DELETE requests are never patched");
        } else {
            explain(rules, RuleType.Patch, ruleOutcomes, err);
        }
        if (!loadedMutators.isEmpty()) {
            err.println("Gatekeeper mutators (after the Patch rules, in order, until nothing changes):");
            for (RuleOutcome o : mutation.outcomes()) {
                if (o.family().equals(Gatekeeper.FAMILY)) {
                    mutators.remove(o.rule());
                    err.println("  " + o.rule() + ": " + (o.error() != null ? "failed: " + o.error()
                            : o.applied().isEmpty() ? "changed nothing" : "changed the object, " + o.applied()));
                    o.references().forEach(line -> err.println("    " + line));
                }
            }
            loadedMutators.stream().map(m -> m.id().toString()).filter(mutators::contains)
                    .forEach(id -> err.println("  " + id + ": not applied (applyTo or match do not select the"
                            + " object, or it changed nothing)"));
        }
        if (!loaded.rulesOf(Policy.class).isEmpty()) {
            err.println("kinitiras override policies (after the mutators: cluster ones, then the namespaced ones, by name):");
            mutation.outcomes().stream().filter(o -> o.family().equals(KinitirasFamily.FAMILY)).forEach(o ->
                    err.println("  " + o.rule() + ": " + (!o.matched() ? "not applied: " + o.reason()
                            : o.error() != null ? "failed: " + o.error()
                            : o.applied().isEmpty() ? "no change" : "changed the object, " + o.applied())));
        }
        if (!loaded.rulesOf(ScriptRule.class).isEmpty()) {
            err.println("Script rules (jsa_mutate, after the Patch rules and mutators):");
            mutation.outcomes().stream().filter(o -> o.family().equals(Scripts.FAMILY)).forEach(o ->
                    err.println("  " + o.rule() + ": " + (o.error() != null ? "failed: " + o.error()
                            : o.applied().isEmpty() ? "no change" : "changed the object, " + o.applied())));
        }
        err.println("Reject rules:");
        explain(rules, RuleType.Reject, validation.outcomes(), err);
    }

    private static void explain(List<ModRule> rules, RuleType type, List<RuleOutcome> outcomes, PrintStream err) {
        Set<String> considered = new HashSet<>();
        for (RuleOutcome o : outcomes) {
            considered.add(o.rule());
            String what;
            if (!o.matched()) {
                what = "not matched: " + o.reason();
            } else if (o.error() != null) {
                what = "matched, failed: " + o.error();
            } else if (type == RuleType.Reject) {
                what = "matched: rejects";
            } else {
                what = o.applied().isEmpty() ? "matched, no change" : "matched, applied " + o.applied();
            }
            err.println("  " + o.rule() + " (tier " + o.tier() + "): " + what);
            // how each reference resolved, then what each call to an external data provider answered
            o.references().forEach(line -> err.println("    " + (line.startsWith("external ") ? "" : "reference ")
                    + line));
        }
        boolean any = !outcomes.isEmpty();
        for (ModRule rule : rules) {
            if (rule.spec().type() == type && considered.add(rule.id())) {
                err.println("  " + rule.id() + " (tier " + rule.spec().executionTier()
                        + "): not in scope for this namespace");
                any = true;
            }
        }
        if (!any) {
            err.println("  none");
        }
    }
}
