package io.remold.cli.preview;

import io.remold.api.InvalidFieldException;
import io.remold.api.ModRuleException;
import io.remold.api.RuleControls;
import io.remold.api.RuleMode;
import io.remold.api.YamlJson;
import io.remold.cli.UsageException;
import io.remold.cli.eval.OfflineRules;
import io.remold.cli.eval.RuleFiles;
import io.remold.engine.Family.TargetKind;
import io.remold.rules.RuleDocuments;
import io.remold.rules.RuleSet;
import io.remold.rules.impact.ImpactScan;
import io.remold.rules.impact.ImpactTally;
import io.remold.rules.impact.ImpactTally.Counts;
import io.remold.rules.impact.ImpactTally.RuleImpact;
import io.remold.rules.impact.ImpactTally.Sample;
import io.remold.rules.impact.ImpactTargets;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code remold preview}: what each rule of the rule files, alone and enforced, would do to existing objects of a
 * folder or a live cluster, through {@link ImpactScan} (the engine the server runs). Exit codes: 0 done, whatever
 * the verdicts; 2 usage, input or cluster error.
 */
public final class PreviewCommand {
    static final int DONE = 0;
    static final int INPUT_ERROR = 2;

    private PreviewCommand() {
    }

    /** Runs {@code preview} with the arguments after the command name; {@code clusters} serves --kubeconfig. */
    public static int run(String[] args, PrintStream out, PrintStream err, ClusterConnector clusters) {
        PreviewOptions options;
        try {
            options = PreviewOptions.parse(args);
        } catch (UsageException e) {
            err.println("remold preview: " + e.getMessage());
            err.println("remold preview: usage: remold preview --help");
            return INPUT_ERROR;
        }
        if (options.help()) {
            out.println(PreviewOptions.USAGE);
            return DONE;
        }
        try {
            preview(options, out, err, clusters);
            return DONE;
        } catch (UsageException | ModRuleException e) {
            e.getMessage().lines().forEach(line -> err.println("remold preview: " + line));
            return INPUT_ERROR;
        }
    }

    /** One rule's preview: its tally, or why it was not scanned. */
    record RulePreview(String origin, RuleImpact impact, Optional<String> notScanned) {
    }

    private static void preview(PreviewOptions options, PrintStream out, PrintStream err, ClusterConnector clusters) {
        RuleFiles.Loaded loaded = RuleFiles.load(options.rules());
        // the rules' problems first, before any object is read
        List<RuleMode> modes = loaded.located().stream().map(located -> controls(located).mode()).toList();
        List<String> skipped = List.of();
        ObjectSource source;
        if (options.kubeconfig() != null) {
            source = clusters.connect(options.kubeconfig(), options.context(), options.qps());
        } else {
            FolderObjects folder = FolderObjects.read(options.objects());
            skipped = folder.skipped();
            source = folder;
        }
        skipped.forEach(why -> err.println("remold preview: skipped " + why));
        try (source; var rules = OfflineRules.open(loaded, options.ruleOptions())) {
            var scans = new ArrayList<Scan>();
            for (int i = 0; i < modes.size(); i++) {
                scans.add(scan(loaded.located().get(i), modes.get(i), rules, options, source));
            }
            var previews = new ArrayList<RulePreview>();
            for (Scan scan : scans) {
                previews.add(scan.run(source, options));
            }
            out.print(switch (options.output()) {
                case text -> PreviewReport.text(previews);
                case json -> PreviewReport.json(previews, skipped);
            });
            out.flush();
        }
    }

    /** A rule ready to scan: every rule's kinds are checked before any list starts. */
    private record Scan(RuleFiles.Located located, ImpactScan scan, RuleMode mode, Optional<Set<TargetKind>> kinds) {
        RulePreview run(ObjectSource source, PreviewOptions options) {
            var empty = new RuleImpact(scan.family(), scan.rule(), mode, Map.of(), List.of());
            if (!scan.disabled().isEmpty()) {
                return new RulePreview(located.origin(), empty, Optional.of("not in force even alone: "
                        + String.join("; ", scan.disabled().values())));
            }
            if (kinds.isPresent() && kinds.get().isEmpty()) {
                return new RulePreview(located.origin(), empty, Optional.of("none of its kinds is among --kind"));
            }
            // one tally per kind's list, so that a list the API server expired and that starts over counts once
            var tallies = new LinkedHashMap<String, ImpactTally>();
            ImpactTally[] current = new ImpactTally[1];
            source.list(kinds.orElse(Set.of()), options.namespaces(), new ObjectSource.Listing() {
                @Override
                public void start(String what) {
                    current[0] = new ImpactTally(options.samples());
                    tallies.put(what, current[0]);
                }

                @Override
                public void page(List<JsonObject> objects) {
                    objects.forEach(object -> scan.evaluate(object, current[0]));
                }
            });
            return new RulePreview(located.origin(), merge(empty, tallies.values(), options.samples()),
                    Optional.empty());
        }
    }

    private static Scan scan(RuleFiles.Located located, RuleMode mode, OfflineRules rules, PreviewOptions options,
                             ObjectSource source) {
        RuleSet single = RuleSet.of(List.of(located.entry()));
        var scan = new ImpactScan(rules.assembly(), single, mode, source::namespace);
        Optional<Set<TargetKind>> kinds = ScanKinds.narrow(ImpactTargets.of(single, rules.assembly().families()),
                options.kinds());
        if (kinds.isEmpty() && options.kubeconfig() != null && scan.disabled().isEmpty()) {
            throw new UsageException("rule " + scan.rule() + " (" + located.origin() + ") may decide any kind: give"
                    + " --kind to say which kinds to list in the cluster");
        }
        return new Scan(located, scan, mode, kinds);
    }

    /** The rule's mode and existing policy, from the manifest it was read from. */
    private static RuleControls controls(RuleFiles.Located located) {
        try {
            return RuleControls.read(manifest(located));
        } catch (InvalidFieldException e) {
            throw new UsageException(located.origin() + ": " + e.field() + ": " + e.reason());
        }
    }

    private static JsonObject manifest(RuleFiles.Located located) {
        if (located.entry() instanceof RuleDocuments.FamilyEntry<?> family) {
            return family.manifest();
        }
        String text;
        try {
            text = Files.readString(located.file(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UsageException("--rules " + located.file() + ": cannot read: " + e.getMessage());
        }
        JsonValue document = YamlJson.documents(text, located.file().toString())
                .get(located.entry().document() - 1).value();
        String prefix = located.entry().prefix();
        if (!prefix.isEmpty() && document instanceof JsonObject list && list.get("items") instanceof JsonArray items) {
            document = items.get(Integer.parseInt(prefix.replaceAll("\\D", "")));
        }
        return document instanceof JsonObject object ? object : JsonValue.EMPTY_JSON_OBJECT;
    }

    /** The tallies of one rule's lists as one: counts by kind, and the first samples in list order. */
    private static RuleImpact merge(RuleImpact empty, Iterable<ImpactTally> tallies, int sampleLimit) {
        var byKind = new TreeMap<String, Counts>();
        var samples = new ArrayList<Sample>();
        for (ImpactTally tally : tallies) {
            for (RuleImpact impact : tally.impacts()) {
                impact.byKind().forEach((kind, counts) -> byKind.merge(kind, counts, Counts::plus));
                impact.samples().stream().limit(Math.max(0, sampleLimit - samples.size())).forEach(samples::add);
            }
        }
        return new RuleImpact(empty.family(), empty.rule(), empty.mode(), byKind, samples);
    }
}
