package io.remold.kinitiras;

import io.remold.api.InvalidFieldException;
import io.remold.api.ModRule;
import io.remold.engine.Engine;
import io.remold.engine.convert.Conversion;
import io.remold.kinitiras.convert.PolicyConversion;
import jakarta.json.JsonObject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code remold convert} on kinitiras's conformance corpus and examples: in every case whose policies all convert,
 * the converted ModRules give the request the answer the policies give through the engine (allowed or refused, the
 * object after mutation, a validation's refusal with the policy's message).
 */
class ConvertedPoliciesEquivalenceTest {
    private static final KinitirasFamily FAMILY = new KinitirasFamily();
    private static final String SYSTEM_NAMESPACE = "remold-system";

    /** Each set, with how many of its policies convert today: fewer is a regression. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"v0.4.5, 11", "newest, 0", "differential, 81", "differential-newest, 56", "examples, 0"})
    void convertedPoliciesAnswerAsThePolicies(String set, int convertedAtLeast) throws IOException {
        var differences = new TreeMap<String, String>();
        var reasons = new TreeSet<String>();
        int withPolicies = 0;
        int converted = 0;
        int policiesConverted = 0;
        int policiesRead = 0;
        for (KinitirasConformanceTest.Case c : KinitirasConformanceTest.cases(set)) {
            if (!c.input().containsKey("policies")) {
                continue;
            }
            withPolicies++;
            var policies = new TreeMap<String, Policy>();
            var sources = new ArrayList<PolicyConversion.Source>();
            for (JsonObject manifest : c.input().getJsonArray("policies").getValuesAs(JsonObject.class)) {
                try {
                    Policy policy = FAMILY.parse(manifest);
                    policies.put(policy.id(), policy);
                    sources.add(new PolicyConversion.Source(policy, manifest));
                } catch (InvalidFieldException e) {
                    // refused by the family: in neither engine
                }
            }
            Map<String, Conversion> conversions = PolicyConversion.convert(sources, SYSTEM_NAMESPACE, 1000);
            boolean all = true;
            policiesRead += conversions.size();
            for (Conversion conversion : conversions.values()) {
                if (conversion instanceof Conversion.Converted) {
                    policiesConverted++;
                } else if (conversion instanceof Conversion.Refused r) {
                    all = false;
                    reasons.add(r.reason().replaceAll("\\[[0-9]+]", "[i]"));
                }
            }
            converted += all && !conversions.isEmpty() ? 1 : 0;
            String difference = difference(c.input(), policies, conversions);
            if (difference != null) {
                differences.put(c.key(), difference);
            }
        }
        System.out.println("remold convert, kinitiras " + set + ": " + converted + "/" + withPolicies
                + " cases with all their policies converted, " + policiesConverted + "/" + policiesRead
                + " policies (every case compared, with the policies that did not convert run as they are)");
        reasons.forEach(r -> System.out.println("  refused: " + r));
        differences.forEach((key, d) -> System.out.println("  DIFFERS " + key + ": " + d));
        assertEquals(Map.of(), differences);
        assertTrue(policiesConverted >= convertedAtLeast, set + ": " + policiesConverted + " policies converted, "
                + convertedAtLeast + " before");
    }

    /**
     * Null when the request answers the same through the policies as through the converted ModRules with the
     * policies that did not convert; else how they differ.
     */
    static String difference(JsonObject input, Map<String, Policy> policies, Map<String, Conversion> conversions) {
        var rules = new ArrayList<ModRule>();
        var remaining = new TreeMap<String, Policy>();
        conversions.forEach((id, conversion) -> {
            switch (conversion) {
                case Conversion.Converted r -> rules.addAll(r.rules());
                case Conversion.Refused r -> remaining.put(id, policies.get(id));
            }
        });
        Engine.Builder original = KinitirasConformanceTest.engineFor(input);
        FAMILY.compile(new TreeMap<>(policies)).stage().ifPresent(original::stage);
        Engine.Builder converted = KinitirasConformanceTest.engineFor(input).systemNamespace(SYSTEM_NAMESPACE)
                .rules(rules);
        FAMILY.compile(remaining).stage().ifPresent(converted::stage);
        return difference(KinitirasConformanceTest.answer(input, original.build()),
                KinitirasConformanceTest.answer(input, converted.build()));
    }

    private static String difference(KinitirasConformanceTest.Answer policies, KinitirasConformanceTest.Answer rules) {
        if (policies.allowed() != rules.allowed()) {
            return "the policies " + (policies.allowed() ? "allow" : "refuse (" + policies.message() + ")")
                    + ", the rules " + (rules.allowed() ? "allow" : "refuse (" + rules.message() + ")");
        }
        if (policies.allowed() && policies.object() != null && !policies.object().equals(rules.object())) {
            return "objects differ, from the policies' to the rules': " + Engine.diff(policies.object(),
                    rules.object());
        }
        if (!policies.allowed() && !policies.failed()) {
            String message = policies.message().substring(policies.message().indexOf(": \""));
            if (!rules.message().contains(message)) {
                return "refusals differ: policies " + policies.message() + ", rules " + rules.message();
            }
        }
        return null;
    }
}
