package io.remold.cli.eval;

import io.remold.api.AdmissionOperation;
import io.remold.cli.CommandLine;
import io.remold.cli.UsageException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The parsed command line of {@code remold eval}. {@code operation} and {@code namespace} may be null (derived);
 * {@code ruleOptions} holds what rules need to run ({@code --ref namespace} and {@code node} are eval's own).
 */
record EvalOptions(List<Path> rules, Path resource, AdmissionOperation operation, String namespace, Path old,
                   Path namespaceRef, Path nodeRef, Output output, boolean explain, boolean help,
                   RuleOptions ruleOptions, boolean provenanceAnnotation) {

    enum Output { yaml, json, patch }

    static final String USAGE = """
            usage: remold eval --rules PATH [--rules PATH ...] --resource FILE [--operation CREATE|UPDATE|DELETE]
                               [--namespace NS] [--old FILE] [--ref namespace=FILE] [--ref node=FILE]
                               [--ref NAME=FILE ...] [--cluster FILE ...] [--http URL=FILE ...]
                               [--allow-http-ref PREFIX,...]
                               [--external NAME=FILE ...] [--output yaml|json|patch] [--explain] [--state FILE]
                               [--kubemod-system-namespace NS] [--tenant-scripts NS,...]
                               [--kinitiras-cross-namespace-overrides] [--kinitiras-webhook-label]
                               [--provenance-annotation]
            --ref namespace=FILE, --ref node=FILE: the request's namespace and node objects (namespaceRef,
            nodeRef).
            --explain: what each rule did, then each changed field with the rules that wrote it and why.
            --provenance-annotation: the object carries the annotation remold.io/changed-by, as a server run
            with provenance-annotation sets it.
            """ + RuleOptions.USAGE + """

            Exit codes: 0 allowed (a failing Patch rule is reported on stderr), 1 rejected, 2 usage or input error.""";

    static final String PROVENANCE_ANNOTATION = "--provenance-annotation";

    /** Every flag eval takes; docs/eval.md documents each (EvalCommandTest). */
    static final Set<String> FLAGS = flags();

    private static Set<String> flags() {
        var flags = new HashSet<>(RuleOptions.FLAGS);
        flags.addAll(List.of("--rules", "--resource", "--old", "--namespace", "--operation", "--output", "--explain",
                "--help", PROVENANCE_ANNOTATION));
        return Set.copyOf(flags);
    }

    /** Accepts {@code --flag value} and {@code --flag=value}; every problem names the argument and its position. */
    static EvalOptions parse(String[] args) {
        var rules = new ArrayList<Path>();
        Path resource = null;
        AdmissionOperation operation = null;
        String namespace = null;
        Path old = null;
        Output output = Output.yaml;
        boolean explain = false;
        boolean annotate = false;
        var ruleOptions = new RuleOptions.Reader("namespace, node or a reference's name");
        var line = new CommandLine(args);
        while (line.next(FLAGS)) {
            String flag = line.flag();
            if (ruleOptions.read(line)) {
                continue;
            }
            if (flag.equals("--explain") || flag.equals("--help") || flag.equals(PROVENANCE_ANNOTATION)) {
                line.noValue();
                if (flag.equals("--help")) {
                    return new EvalOptions(List.of(), null, null, null, null, null, null, output, false, true,
                            RuleOptions.NONE, false);
                }
                explain |= flag.equals("--explain");
                annotate |= flag.equals(PROVENANCE_ANNOTATION);
                continue;
            }
            String value = line.value();
            switch (flag) {
                case "--rules" -> rules.add(line.path(value));
                case "--resource" -> resource = line.once(flag, resource, line.path(value));
                case "--old" -> old = line.once(flag, old, line.path(value));
                case "--namespace" -> namespace = line.once(flag, namespace, value);
                case "--operation" -> operation = line.once(flag, operation, operation(value, line.position()));
                case "--output" -> output = output(value, line.position());
                default -> throw new IllegalStateException("flag " + flag + " is in FLAGS but not handled");
            }
        }
        if (rules.isEmpty()) {
            throw new UsageException("--rules is required");
        }
        if (resource == null) {
            throw new UsageException("--resource is required");
        }
        if (operation == AdmissionOperation.DELETE && old != null) {
            throw new UsageException("--old does not apply to DELETE: --resource is the object being deleted");
        }
        if (operation == AdmissionOperation.CREATE && old != null) {
            throw new UsageException("--old does not apply to CREATE");
        }
        Path namespaceRef = ruleOptions.references().remove("namespace");
        Path nodeRef = ruleOptions.references().remove("node");
        return new EvalOptions(List.copyOf(rules), resource, operation, namespace, old, namespaceRef, nodeRef, output,
                explain, false, ruleOptions.options(), annotate);
    }

    /** CREATE unless an old object is given, which makes it an UPDATE. */
    AdmissionOperation effectiveOperation() {
        if (operation != null) {
            return operation;
        }
        return old != null ? AdmissionOperation.UPDATE : AdmissionOperation.CREATE;
    }

    private static AdmissionOperation operation(String value, int position) {
        for (AdmissionOperation op : AdmissionOperation.values()) {
            if (op.allowedInRules() && op.name().equals(value.toUpperCase(Locale.ROOT))) {
                return op;
            }
        }
        throw new UsageException("--operation expects CREATE, UPDATE or DELETE, got \"" + value + "\" (argument "
                + position + ")");
    }

    private static Output output(String value, int position) {
        for (Output o : Output.values()) {
            if (o.name().equals(value)) {
                return o;
            }
        }
        throw new UsageException("--output expects yaml, json or patch, got \"" + value + "\" (argument "
                + position + ")");
    }
}
