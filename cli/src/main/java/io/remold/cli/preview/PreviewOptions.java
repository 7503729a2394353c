package io.remold.cli.preview;

import io.remold.cli.CommandLine;
import io.remold.cli.UsageException;
import io.remold.cli.eval.RuleOptions;
import io.remold.engine.Family.TargetKind;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The parsed command line of {@code remold preview}: the rule files, where the objects are (folders and files, or a
 * kubeconfig and its context), which kinds and namespaces, how many samples, and what the rules need to run.
 */
record PreviewOptions(List<Path> rules, List<Path> objects, Path kubeconfig, String context, Set<TargetKind> kinds,
                      Set<String> namespaces, int samples, Output output, double qps, boolean help,
                      RuleOptions ruleOptions) {

    enum Output { text, json }

    static final int DEFAULT_SAMPLES = 5;
    static final double DEFAULT_QPS = 20;
    /** More would only make the output unreadable, and the samples are held in memory per rule. */
    static final int MAX_SAMPLES = 1000;

    static final String USAGE = """
            usage: remold preview --rules PATH [--rules PATH ...]
                                  (--objects PATH [--objects PATH ...] | --kubeconfig FILE [--context NAME] [--qps N])
                                  [--kind KIND ...] [--namespace NS ...] [--samples N] [--output text|json]
                                  [--ref NAME=FILE ...] [--cluster FILE ...] [--http URL=FILE ...]
                                  [--allow-http-ref PREFIX,...] [--external NAME=FILE ...] [--state FILE]
                                  [--kubemod-system-namespace NS] [--tenant-scripts NS,...]
                                  [--kinitiras-cross-namespace-overrides] [--kinitiras-webhook-label]
            What each rule of the rule files, alone and enforced, would do to existing objects: each object is
            decided as a CREATE of the object as stored, by the engine the server runs.
            --objects PATH: a manifest file, or a folder read recursively (.yaml, .yml, .json; List items
            expanded). Its Namespace objects answer the rules' namespaceRef.
            --kubeconfig FILE, --context NAME: a live cluster (the server's jar and image only), read with
            paginated lists, at most --qps requests a second (default 20).
            --kind KIND or GROUP/KIND (apps/Deployment): only objects of these kinds; needed in a cluster for a
            rule that may decide any kind.
            --namespace NS: only objects of these namespaces (cluster-scoped objects are then left out).
            --samples N: the first N objects each rule would change, refuse or fail on (default 5).
            --output text|json: a summary and diffs per rule (default), or one JSON document.
            """ + RuleOptions.USAGE + """

            Exit codes: 0 done (whatever the rules would do), 2 usage, input or cluster error.""";

    /** Every flag preview takes; docs/preview.md documents each (PreviewCommandTest). */
    static final Set<String> FLAGS = flags();

    private static Set<String> flags() {
        var flags = new HashSet<>(RuleOptions.FLAGS);
        flags.addAll(List.of("--rules", "--objects", "--kubeconfig", "--context", "--kind", "--namespace",
                "--samples", "--output", "--qps", "--help"));
        return Set.copyOf(flags);
    }

    static PreviewOptions parse(String[] args) {
        var rules = new ArrayList<Path>();
        var objects = new ArrayList<Path>();
        Path kubeconfig = null;
        String context = null;
        var kinds = new LinkedHashSet<TargetKind>();
        var namespaces = new LinkedHashSet<String>();
        Integer samples = null;
        Output output = null;
        Double qps = null;
        var ruleOptions = new RuleOptions.Reader("a reference's name");
        var line = new CommandLine(args);
        while (line.next(FLAGS)) {
            String flag = line.flag();
            if (ruleOptions.read(line)) {
                continue;
            }
            if (flag.equals("--help")) {
                line.noValue();
                return new PreviewOptions(List.of(), List.of(), null, null, Set.of(), Set.of(), DEFAULT_SAMPLES,
                        Output.text, DEFAULT_QPS, true, RuleOptions.NONE);
            }
            String value = line.value();
            switch (flag) {
                case "--rules" -> rules.add(line.path(value));
                case "--objects" -> objects.add(line.path(value));
                case "--kubeconfig" -> kubeconfig = line.once(flag, kubeconfig, line.path(value));
                case "--context" -> context = line.once(flag, context, nonEmpty(line, value));
                case "--kind" -> kinds.add(kind(line, value));
                case "--namespace" -> namespaces.add(nonEmpty(line, value));
                case "--samples" -> samples = line.once(flag, samples, samples(line, value));
                case "--output" -> output = line.once(flag, output, output(line, value));
                case "--qps" -> qps = line.once(flag, qps, qps(line, value));
                default -> throw new IllegalStateException("flag " + flag + " is in FLAGS but not handled");
            }
        }
        for (String own : List.of("namespace", "node")) {
            if (ruleOptions.references().containsKey(own)) {
                throw new UsageException("--ref " + own + " does not apply to preview: each object's namespace and"
                        + " node come from the folder or the cluster");
            }
        }
        if (rules.isEmpty()) {
            throw new UsageException("--rules is required");
        }
        if (objects.isEmpty() == (kubeconfig == null)) {
            throw new UsageException("give either --objects or --kubeconfig: the objects come from a folder or a"
                    + " cluster");
        }
        if (kubeconfig == null && (context != null || qps != null)) {
            throw new UsageException((context != null ? "--context" : "--qps") + " applies to a cluster"
                    + " (--kubeconfig)");
        }
        return new PreviewOptions(List.copyOf(rules), List.copyOf(objects), kubeconfig, context, Set.copyOf(kinds),
                Set.copyOf(namespaces), samples == null ? DEFAULT_SAMPLES : samples,
                output == null ? Output.text : output, qps == null ? DEFAULT_QPS : qps, false,
                ruleOptions.options());
    }

    private static String nonEmpty(CommandLine line, String value) {
        if (value.isBlank()) {
            throw line.invalid(line.flag() + " needs a value");
        }
        return value;
    }

    /** {@code Kind} (any group) or {@code group/Kind}; the core group is written {@code core/Pod}. */
    private static TargetKind kind(CommandLine line, String value) {
        int slash = value.indexOf('/');
        String group = slash < 0 ? null : value.substring(0, slash);
        String kind = value.substring(slash + 1);
        if (kind.isEmpty() || kind.contains("/") || (group != null && group.isEmpty())
                || !Character.isUpperCase(kind.charAt(0))) {
            throw line.invalid("--kind expects a kind (Deployment) or GROUP/KIND (apps/Deployment, core/Pod), got \""
                    + value + "\"");
        }
        return new TargetKind(group == null ? null : group.equals("core") ? "" : group, kind, null);
    }

    private static int samples(CommandLine line, String value) {
        try {
            int samples = Integer.parseInt(value);
            if (samples >= 0 && samples <= MAX_SAMPLES) {
                return samples;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw line.invalid("--samples expects a number from 0 to " + MAX_SAMPLES + ", got \"" + value + "\"");
    }

    private static double qps(CommandLine line, String value) {
        try {
            double qps = Double.parseDouble(value);
            if (qps > 0 && qps <= 1000) {
                return qps;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw line.invalid("--qps expects requests a second, more than 0 and at most 1000, got \"" + value + "\"");
    }

    private static Output output(CommandLine line, String value) {
        for (Output o : Output.values()) {
            if (o.name().equals(value)) {
                return o;
            }
        }
        throw line.invalid("--output expects text or json, got \"" + value + "\"");
    }
}
