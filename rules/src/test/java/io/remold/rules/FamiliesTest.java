package io.remold.rules;

import io.remold.api.ModRuleException;
import io.remold.engine.Family;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The list of families: its order is the order their stages run in, and rule files read every family's rules. */
class FamiliesTest {
    @Test
    void gatekeeperThenKinitirasThenScripts() {
        List<Family<?>> families = Families.create();
        assertThat(families.stream().map(f -> f.family().name()).toList(),
                contains("Gatekeeper mutation", "kinitiras policy", "script"));
        families.forEach(Family::close);
    }

    @Test
    void ruleFilesReadKinitirasPoliciesNamingTheField() {
        var entries = RuleDocuments.read("""
                apiVersion: policy.kcloudlabs.io/v1alpha1
                kind: OverridePolicy
                metadata: {name: add-anno, namespace: default}
                spec:
                  overrideRules:
                  - overriders:
                      plaintext: [{path: /metadata/annotations/a, op: add, value: b}]
                """, "policy.yaml");
        assertThat(entries.size(), is(1));
        assertThat(entries.get(0).id(), is("OverridePolicy/default/add-anno"));
        var e = assertThrows(ModRuleException.class, () -> RuleDocuments.read("""
                apiVersion: policy.kcloudlabs.io/v1alpha1
                kind: ClusterOverridePolicy
                metadata: {name: broken}
                spec:
                  overrideRules:
                  - overriders:
                      plaintext: [{path: /a, op: merge}]
                """, "policy.yaml"));
        assertThat(e.getMessage(), containsString("spec.overrideRules[0].overriders.plaintext[0].op: must be add,"
                + " remove or replace"));
    }
}
