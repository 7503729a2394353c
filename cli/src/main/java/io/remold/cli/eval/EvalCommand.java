package io.remold.cli.eval;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.ModRuleException;
import io.remold.api.RuleType;
import io.remold.api.YamlJson;
import io.remold.cli.JsonText;
import io.remold.cli.UsageException;
import io.remold.engine.Decision;
import io.remold.engine.RuleFamily;
import io.remold.engine.RuleOutcome;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.kinitiras.KinitirasFamily;
import io.remold.kinitiras.Policy;
import io.remold.scripting.ScriptRule;
import io.remold.scripting.Scripts;
import io.remold.rules.RuleSet;
import io.remold.rules.Snapshot;
import jakarta.json.JsonObject;

import java.io.PrintStream;
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

    /**
     * What eval decides for {@code args} (eval's own arguments), without printing it: the playground's answer. The
     * rules not in force and the {@code --explain} trace go to {@code trace} as eval prints them; bad arguments or
     * input throw the {@link UsageException} or {@link ModRuleException} whose message eval prints.
     */
    public static Evaluation decide(String[] args, PrintStream trace) {
        return decide(EvalOptions.parse(args), trace);
    }

    /** A decided request: its object as read, and the admission's answer. */
    public record Evaluation(JsonObject resource, OfflineAdmission.Answer answer) {
    }

    private static Evaluation decide(EvalOptions options, PrintStream err) {
        RuleFiles.Loaded loaded = RuleFiles.load(options.rules());
        JsonObject resource = Manifests.object("--resource", options.resource());
        JsonObject old = options.old() == null ? null : Manifests.object("--old", options.old());
        JsonObject namespaceRef = options.namespaceRef() == null ? null
                : Manifests.object("--ref namespace", options.namespaceRef());
        JsonObject nodeRef = options.nodeRef() == null ? null : Manifests.object("--ref node", options.nodeRef());
        String namespace = options.namespace() != null ? options.namespace() : Manifests.namespaceOf(resource);

        try (var rules = OfflineRules.open(loaded, options.ruleOptions())) {
            Snapshot snapshot = rules.assembly().assemble(RuleSet.of(loaded.entries()));
            // As the server's log says it, and its Ready condition: these rules do not run.
            snapshot.disabled().forEach((key, why) -> err.println("remold eval: the rule from " + key
                    + " is not in force: " + why));
            AdmissionOperation operation = options.effectiveOperation();
            OfflineAdmission.Answer answer = OfflineAdmission.decide(snapshot, new OfflineAdmission.Request(
                    operation, namespace, resource, old, namespaceRef, nodeRef, "", options.explain()),
                    options.provenanceAnnotation());
            if (options.explain()) {
                explain(loaded, operation, answer.mutation(), answer.validation(), err);
                FieldsSection.print(answer.fields(FieldsSection.MAX_FIELDS, loaded.generations()),
                        answer.mutation().patch().size(), options.output() == EvalOptions.Output.json, err);
            }
            return new Evaluation(resource, answer);
        }
    }

    private static int evaluate(EvalOptions options, PrintStream out, PrintStream err) {
        OfflineAdmission.Answer answer = decide(options, err).answer();
        ShadowSection.print(answer.shadowMutate(), answer.shadowValidate(), options.output(), err);
        answer.warned().forEach(warning -> err.println("remold eval: warning: " + warning));
        answer.failures().forEach(outcome -> err.println("remold eval: rule " + outcome.rule() + " failed: "
                + outcome.error()));
        if (!answer.allowed()) {
            // a script's jsa_mutate answered Allowed: false, or a Reject rule refused
            err.println(answer.rejection());
            return REJECTED;
        }
        out.print(switch (options.output()) {
            case yaml -> YamlJson.toYaml(answer.result());
            case json -> JsonText.pretty(answer.result());
            case patch -> JsonText.patchLines(answer.enforcedMutation().patch());
        });
        out.flush();
        return ALLOWED;
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
