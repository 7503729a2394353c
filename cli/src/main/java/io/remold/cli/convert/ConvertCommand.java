package io.remold.cli.convert;

import io.remold.api.ModRule;
import io.remold.api.ModRuleException;
import io.remold.api.ModRuleSpec;
import io.remold.api.YamlJson;
import io.remold.cli.CommandLine;
import io.remold.cli.UsageException;
import io.remold.cli.eval.RuleFiles;
import io.remold.engine.convert.Conversion;
import io.remold.gatekeeper.convert.MutatorConversion;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.gatekeeper.mutators.MutatorId;
import io.remold.kinitiras.Policy;
import io.remold.kinitiras.convert.PolicyConversion;
import io.remold.rules.RuleDocuments;
import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonGenerator;

import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code remold convert}: Gatekeeper mutators, kinitiras policies and KubeMod ModRules as equivalent {@code
 * remold.io} ModRules on stdout, and for each rule without an exact equivalent, why on stderr. {@code remold.io} rules pass unchanged.
 * Exit codes: 0 all converted, 2 usage or input error (as {@code eval}), 3 some rules not converted.
 */
public final class ConvertCommand {
    static final int CONVERTED = 0;
    static final int INPUT_ERROR = 2;
    static final int NOT_ALL_CONVERTED = 3;
    static final String USAGE = """
            usage: remold convert --rules PATH [--rules PATH ...] [--output yaml|json] [--first-tier N]
                                  [--system-namespace NS]
            Prints the rules as remold.io/v1beta1 ModRules: Gatekeeper mutators (each in its own executionTier from
            --first-tier, default 1000, in Gatekeeper's order), then kinitiras override policies (in kinitiras's
            order) and validate policies, and api.kubemod.io ModRules (kubemod-system becomes --system-namespace,
            default remold-system); remold.io rules unchanged.
            Exit codes: 0 all converted, 2 usage or input error, 3 some not converted (each named on stderr).""";

    private static final JsonProvider JSON = JsonProvider.provider();

    private ConvertCommand() {
    }

    /** The parsed command line. */
    record Options(List<Path> rules, boolean json, int firstTier, String systemNamespace, boolean help) {
        /** Every flag convert takes; docs/convert.md documents each (ConvertCommandTest). */
        static final Set<String> FLAGS = Set.of("--rules", "--output", "--first-tier", "--system-namespace", "--help");

        static Options parse(String[] args) {
            var rules = new ArrayList<Path>();
            boolean json = false;
            int firstTier = 1000;
            String systemNamespace = "remold-system";
            var line = new CommandLine(args);
            while (line.next(FLAGS)) {
                String flag = line.flag();
                if (flag.equals("--help")) {
                    line.noValue();
                    return new Options(List.of(), false, firstTier, systemNamespace, true);
                }
                switch (flag) {
                    case "--rules" -> rules.add(Path.of(line.value()));
                    case "--output" -> {
                        String value = line.value();
                        json = switch (value) {
                            case "yaml" -> false;
                            case "json" -> true;
                            default -> throw line.invalid("--output expects yaml or json, got \"" + value + "\"");
                        };
                    }
                    case "--first-tier" -> firstTier = tier(line);
                    case "--system-namespace" -> systemNamespace = line.value();
                    default -> throw new IllegalStateException("flag " + flag + " is in FLAGS but not handled");
                }
            }
            if (rules.isEmpty()) {
                throw new UsageException("--rules is required");
            }
            return new Options(List.copyOf(rules), json, firstTier, systemNamespace, false);
        }

        private static int tier(CommandLine line) {
            String value = line.value();
            try {
                int tier = Integer.parseInt(value);
                if (tier >= ModRuleSpec.MIN_TIER && tier <= ModRuleSpec.MAX_TIER) {
                    return tier;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw line.invalid("--first-tier expects an integer from " + ModRuleSpec.MIN_TIER + " to "
                    + ModRuleSpec.MAX_TIER + ", got \"" + value + "\"");
        }
    }

    /** Runs {@code convert} with the arguments after the command name; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (UsageException e) {
            err.println("remold convert: " + e.getMessage());
            err.println("remold convert: usage: remold convert --help");
            return INPUT_ERROR;
        }
        if (options.help()) {
            out.println(USAGE);
            return CONVERTED;
        }
        List<RuleFiles.Located> entries;
        try {
            entries = RuleFiles.entries(options.rules());
        } catch (UsageException | ModRuleException e) {
            e.getMessage().lines().forEach(line -> err.println("remold convert: " + line));
            return INPUT_ERROR;
        }
        Map<RuleFiles.Located, Conversion> results = convert(entries, options);
        var converted = new ArrayList<ModRule>();
        int refused = 0;
        for (var entry : results.entrySet()) {
            switch (entry.getValue()) {
                case Conversion.Converted c -> converted.addAll(c.rules());
                case Conversion.Refused r -> {
                    refused++;
                    err.println("remold convert: " + entry.getKey().origin() + ": " + name(entry.getKey().entry())
                            + ": cannot convert: " + r.reason());
                }
            }
        }
        String clash = clash(converted);
        if (clash != null) {
            err.println("remold convert: " + clash);
            return INPUT_ERROR;
        }
        out.print(options.json() ? json(converted) : yaml(converted));
        out.flush();
        return refused == 0 ? CONVERTED : NOT_ALL_CONVERTED;
    }

    /**
     * Every entry's result, in input order. Mutators take tiers in Gatekeeper's order, then kinitiras's override
     * policies in kinitiras's order (the server runs kinitiras's policies after Gatekeeper's mutators).
     */
    private static Map<RuleFiles.Located, Conversion> convert(List<RuleFiles.Located> entries, Options options) {
        var mutators = new ArrayList<MutatorConversion.Source>();
        var policies = new ArrayList<PolicyConversion.Source>();
        for (RuleFiles.Located located : entries) {
            if (located.entry() instanceof RuleDocuments.FamilyEntry<?> f) {
                if (f.rule() instanceof Mutator m) {
                    mutators.add(new MutatorConversion.Source(m, f.manifest()));
                } else if (f.rule() instanceof Policy p) {
                    policies.add(new PolicyConversion.Source(p, f.manifest()));
                }
            }
        }
        Map<MutatorId, Conversion> converted = MutatorConversion.convert(mutators, options.systemNamespace(),
                options.firstTier());
        int nextTier = options.firstTier() + converted.values().stream()
                .mapToInt(c -> c instanceof Conversion.Converted r ? r.rules().size() : 0).sum();
        Map<String, Conversion> convertedPolicies = PolicyConversion.convert(policies, options.systemNamespace(),
                nextTier);
        var results = new LinkedHashMap<RuleFiles.Located, Conversion>();
        for (RuleFiles.Located located : entries) {
            results.put(located, switch (located.entry()) {
                case RuleDocuments.RuleEntry r -> KubeModRules.convert(r.rule(), options.systemNamespace());
                case RuleDocuments.FamilyEntry<?> f when f.rule() instanceof Mutator m -> converted.get(m.id());
                case RuleDocuments.FamilyEntry<?> f when f.rule() instanceof Policy p -> convertedPolicies.get(p.id());
                case RuleDocuments.FamilyEntry<?> f -> new Conversion.Refused("a " + f.family().family().name()
                        + " rule has no ModRule form: it runs as it is");
            });
        }
        return results;
    }

    /** {@code KIND/NAME} as the stderr line names a rule. */
    private static String name(RuleDocuments.Entry entry) {
        return switch (entry) {
            case RuleDocuments.RuleEntry r -> "ModRule/" + r.rule().id();
            case RuleDocuments.FamilyEntry<?> f -> f.id();
        };
    }

    /** Two output rules with one namespace and name would replace each other when applied. */
    private static String clash(List<ModRule> rules) {
        var seen = new HashSet<String>();
        for (ModRule rule : rules) {
            if (!seen.add(rule.id())) {
                return "two converted rules are named " + rule.id() + "; rename one of the inputs";
            }
        }
        return null;
    }

    static String yaml(List<ModRule> rules) {
        var out = new StringBuilder();
        for (ModRule rule : rules) {
            out.append("---").append(System.lineSeparator()).append(YamlJson.toYaml(ModRuleManifest.of(rule)));
        }
        return out.toString();
    }

    private static String json(List<ModRule> rules) {
        var items = JSON.createArrayBuilder();
        rules.forEach(rule -> items.add(ModRuleManifest.of(rule)));
        JsonObject list = JSON.createObjectBuilder().add("apiVersion", "v1").add("kind", "List").add("items", items)
                .build();
        var text = new StringWriter();
        try (var writer = JSON.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING, true)).createWriter(text)) {
            writer.write(list);
        }
        return text.toString().strip() + System.lineSeparator();
    }
}
