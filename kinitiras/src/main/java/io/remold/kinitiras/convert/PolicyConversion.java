package io.remold.kinitiras.convert;

import io.remold.api.MatchItem;
import io.remold.api.ModRule;
import io.remold.api.ModRuleSpec;
import io.remold.api.RuleType;
import io.remold.engine.convert.CannotConvert;
import io.remold.engine.convert.Conversion;
import io.remold.kinitiras.Policy;
import jakarta.json.JsonObject;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * kinitiras policies as {@code remold.io} ModRules that give every request the same answer (the entry point of
 * {@code remold convert} into this module). Override policies become Patch rules in consecutive tiers from {@code
 * firstTier}, in kinitiras's order (ClusterOverridePolicies then OverridePolicies, each by name; rules and forms in
 * order); ClusterValidatePolicies become Reject rules. An OverridePolicy's rules live in its namespace (they apply to
 * its objects only, as Remold runs it), the cluster policies' in the system namespace for every namespace.
 *
 * <p>A policy converts alone ({@link Selection}, {@link OverrideRules}, {@link ValidateRules}) and within its set:
 * kinitiras selects each override policy once, the cluster ones against the object as it came and the namespaced ones
 * against what the cluster ones left, while a ModRule is matched against the object its tier meets; so no rule may
 * write what a later one in the same pass selects on. The policies that stay run after every ModRule, so the
 * converted override policies are the first ones in kinitiras's order, up to the first that does not convert.
 */
public final class PolicyConversion {
    private static final Comparator<Policy> ORDER = Comparator.comparing((Policy p) -> p.namespace() != null)
            .thenComparing(Policy::name).thenComparing(p -> Objects.requireNonNullElse(p.namespace(), ""));

    private PolicyConversion() {
    }

    /** A compiled policy and the manifest it was read from, which holds the fields converting reads. */
    public record Source(Policy policy, JsonObject manifest) {
    }

    /** One policy converted alone: its selection and steps, or why it has none. */
    private record Draft(Policy policy, Selection selection, List<Step> steps, String refusal) {
        static Draft of(Source source, String systemNamespace) {
            Policy policy = source.policy();
            JsonObject spec = source.manifest().getJsonObject("spec");
            Selection selection = null;
            try {
                if (systemNamespace.equals(policy.namespace())) {
                    throw new CannotConvert("the policy is in " + systemNamespace + ", Remold's system namespace,"
                            + " where a ModRule also applies to cluster-scoped objects");
                }
                selection = Selection.of(spec);
                List<Step> steps = policy.kind() == Policy.Kind.ClusterValidatePolicy ? ValidateRules.steps(spec)
                        : OverrideRules.steps(spec, selection);
                return new Draft(policy, selection, steps, null);
            } catch (CannotConvert e) {
                return new Draft(policy, selection, List.of(), e.getMessage());
            }
        }

        Draft refused(String why) {
            return new Draft(policy, selection, List.of(), why);
        }

        /** What its selection reads; everything when its selectors do not convert. */
        List<List<String>> reads() {
            return selection == null ? List.of(List.of()) : selection.reads();
        }
    }

    /** Every policy's conversion, keyed by its id, in kinitiras's order. */
    public static Map<String, Conversion> convert(Collection<Source> sources, String systemNamespace,
                                                  int firstTier) {
        List<Source> ordered = sources.stream().sorted(Comparator.comparing(Source::policy, ORDER)).toList();
        var overrides = new ArrayList<Draft>();
        var results = new LinkedHashMap<String, Conversion>();
        for (Source source : ordered) {
            if (source.policy().kind() != Policy.Kind.ClusterValidatePolicy) {
                overrides.add(Draft.of(source, systemNamespace));
            }
        }
        int tier = firstTier;
        for (Draft draft : inOrder(overrides)) {
            if (draft.refusal() != null) {
                results.put(draft.policy().id(), new Conversion.Refused(draft.refusal()));
                continue;
            }
            if (tier + draft.steps().size() - 1 > ModRuleSpec.MAX_TIER) {
                results.put(draft.policy().id(), new Conversion.Refused("no executionTier left after "
                        + ModRuleSpec.MAX_TIER + " (lower --first-tier)"));
                continue;
            }
            results.put(draft.policy().id(), Conversion.checked(rules(draft, systemNamespace, tier)));
            tier += draft.steps().size();
        }
        for (Source source : ordered) {
            if (source.policy().kind() == Policy.Kind.ClusterValidatePolicy) {
                Draft draft = Draft.of(source, systemNamespace);
                results.put(draft.policy().id(), draft.refusal() != null ? new Conversion.Refused(draft.refusal())
                        : Conversion.checked(rules(draft, systemNamespace, 0)));
            }
        }
        return results;
    }

    /**
     * The override drafts with those refused that would not run in kinitiras's order or selection: every policy after
     * the first that does not convert, and a converted one whose writes change what a policy of its pass selects.
     */
    private static List<Draft> inOrder(List<Draft> drafts) {
        var out = new ArrayList<>(drafts);
        int converted = 0;
        while (converted < out.size() && out.get(converted).refusal() == null) {
            converted++;
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            search:
            for (int i = 0; i < out.size(); i++) {
                Draft reader = out.get(i);
                for (int j = 0; j < Math.min(i, converted); j++) {
                    Draft writer = out.get(j);
                    if (samePass(writer.policy(), reader.policy())
                            && writer.steps().stream().anyMatch(s -> s.writesAny(reader.reads()))) {
                        int refused = i < converted ? i : j;
                        out.set(refused, out.get(refused).refused(writer.policy().id() + " writes what the"
                                + " resourceSelectors of " + reader.policy().id() + " read, later in kinitiras's order:"
                                + " kinitiras selects a policy once, a ModRule is matched in its tier"));
                        converted = refused;
                        changed = true;
                        break search;
                    }
                }
                if (i < converted && ownWritesReadLater(reader)) {
                    out.set(i, reader.refused("a form writes what its resourceSelectors read: kinitiras selects the"
                            + " policy once, its later forms' ModRules would be matched again"));
                    converted = i;
                    changed = true;
                    break;
                }
            }
        }
        for (int i = converted; i < out.size(); i++) {
            if (out.get(i).refusal() == null) {
                out.set(i, out.get(i).refused("it follows " + out.get(converted).policy().id() + " in kinitiras's"
                        + " order, which is not converted and would run after every ModRule"));
            }
        }
        return out;
    }

    /**
     * Whether kinitiras selects {@code reader} after {@code writer} changed the object: cluster policies are all
     * selected against the object as it came, an OverridePolicy against what the cluster policies left.
     */
    private static boolean samePass(Policy writer, Policy reader) {
        return Objects.equals(writer.namespace(), reader.namespace());
    }

    private static boolean ownWritesReadLater(Draft draft) {
        List<Step> steps = draft.steps();
        for (int k = 0; k < steps.size() - 1; k++) {
            if (steps.get(k).writesAny(draft.reads())) {
                return true;
            }
        }
        return false;
    }

    private static List<ModRule> rules(Draft draft, String systemNamespace, int firstTier) {
        Policy policy = draft.policy();
        String base = policy.kind().name().toLowerCase(Locale.ROOT) + "-" + policy.name();
        boolean cluster = policy.namespace() == null;
        var rules = new ArrayList<ModRule>();
        List<Step> steps = draft.steps();
        for (int k = 0; k < steps.size(); k++) {
            Step step = steps.get(k);
            var match = new ArrayList<MatchItem>();
            match.add(MatchItem.of(draft.selection().expression()));
            step.match().forEach(item -> match.add(MatchItem.of(item)));
            RuleType type = step.rejectMessage() == null ? RuleType.Patch : RuleType.Reject;
            rules.add(new ModRule(ModRule.REMOLD_API_VERSION, cluster ? systemNamespace : policy.namespace(),
                    steps.size() == 1 ? base : base + "-" + (k + 1),
                    new ModRuleSpec(type, step.operations(), type == RuleType.Patch ? firstTier + k : 0,
                            cluster ? ".*" : null, step.rejectMessage(), match, step.patch())));
        }
        return rules;
    }
}
