package io.remold.cli.why;

import io.remold.cli.CommandLine;
import io.remold.cli.UsageException;
import io.remold.cli.eval.RuleOptions;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The parsed command line of {@code remold why}: the object (a file, or {@code KIND/NAME} in a cluster), the field
 * asked about as a JSON pointer, where the rules come from (files, or the cluster's), and what the rules need to run.
 */
record WhyOptions(String target, Path resource, String field, String namespace, Path kubeconfig, String context,
                  List<Path> rules, boolean help, RuleOptions ruleOptions) {

    static final String USAGE = """
            usage: remold why KIND/NAME FIELD [-n NS] --kubeconfig FILE [--context NAME] [--rules PATH ...]
                   remold why --resource FILE --rules PATH [--rules PATH ...] FIELD [--namespace NS]
                              [--ref NAME=FILE ...] [--cluster FILE ...] [--http URL=FILE ...]
                              [--allow-http-ref PREFIX,...] [--external NAME=FILE ...] [--state FILE]
                              [--kubemod-system-namespace NS] [--tenant-scripts NS,...]
                              [--kinitiras-cross-namespace-overrides] [--kinitiras-webhook-label]
            Which rule changed FIELD of an object, and why: the object's annotation remold.io/changed-by (set by
            a server run with provenance-annotation), and the rules re-evaluated on the object as stored (a
            CREATE of it): each rule whose operations write FIELD, with the match items that held.
            FIELD: a JSON pointer (/metadata/labels/team) or a dotted path (metadata.labels.team,
            spec.containers[0].image); a key with a dot or a slash needs the pointer.
            KIND/NAME: the object in the cluster of --kubeconfig (the server's jar and image only): KIND is a
            kind (Pod) or GROUP/KIND (apps/Deployment); -n or --namespace NS (default: default).
            --rules PATH: the rules as files; in a cluster, without it, the rules the cluster holds (every
            family's resources Remold serves).
            --resource FILE: the object as a file, without a cluster.
            """ + RuleOptions.USAGE + """

            Exit codes: 0 a rule was found (in the annotation or re-evaluated), 1 none, 2 usage, input or cluster
            error.""";

    /** Every flag why takes; docs/provenance.md documents each (WhyCommandTest). */
    static final Set<String> FLAGS = flags();

    private static Set<String> flags() {
        var flags = new HashSet<>(RuleOptions.FLAGS);
        flags.addAll(List.of("--resource", "--rules", "--namespace", "--kubeconfig", "--context", "--help"));
        return Set.copyOf(flags);
    }

    static WhyOptions parse(String[] args) {
        var rules = new ArrayList<Path>();
        Path resource = null;
        String namespace = null;
        Path kubeconfig = null;
        String context = null;
        var operands = new ArrayList<String>();
        var ruleOptions = new RuleOptions.Reader("a reference's name");
        // kubectl's -n is this command's --namespace
        var line = new CommandLine(args.length == 0 ? args : java.util.Arrays.stream(args)
                .map(arg -> arg.equals("-n") ? "--namespace" : arg).toArray(String[]::new));
        while (line.next(FLAGS, operands)) {
            String flag = line.flag();
            if (ruleOptions.read(line)) {
                continue;
            }
            if (flag.equals("--help")) {
                line.noValue();
                return new WhyOptions(null, null, null, null, null, null, List.of(), true, RuleOptions.NONE);
            }
            String value = line.value();
            switch (flag) {
                case "--rules" -> rules.add(line.path(value));
                case "--resource" -> resource = line.once(flag, resource, line.path(value));
                case "--namespace" -> namespace = line.once(flag, namespace, value);
                case "--kubeconfig" -> kubeconfig = line.once(flag, kubeconfig, line.path(value));
                case "--context" -> context = line.once(flag, context, value);
                default -> throw new IllegalStateException("flag " + flag + " is in FLAGS but not handled");
            }
        }
        int wanted = resource == null ? 2 : 1;
        if (operands.size() != wanted) {
            throw new UsageException(resource == null
                    ? "expected KIND/NAME and FIELD (or --resource FILE and FIELD), got " + operands
                    : "expected FIELD after --resource FILE, got " + operands);
        }
        String target = resource == null ? operands.getFirst() : null;
        if (resource == null && kubeconfig == null) {
            throw new UsageException("KIND/NAME is read from a cluster: give --kubeconfig, or --resource FILE");
        }
        if (resource != null && kubeconfig != null) {
            throw new UsageException("give either --resource or --kubeconfig: the object comes from a file or a"
                    + " cluster");
        }
        if (resource != null && rules.isEmpty()) {
            throw new UsageException("--rules is required with --resource");
        }
        return new WhyOptions(target, resource, Pointers.parse(operands.getLast()), namespace, kubeconfig, context,
                List.copyOf(rules), false, ruleOptions.options());
    }
}
