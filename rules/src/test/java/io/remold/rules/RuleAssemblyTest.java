package io.remold.rules;

import io.remold.engine.CompiledRules;
import io.remold.engine.Family;
import io.remold.engine.ReferenceResolver;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.scripting.ScriptHost;
import io.remold.scripting.ScriptLimits;
import io.remold.scripting.Scripts;
import io.remold.templating.ExternalData;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

/** Rule documents of every family, through the one assembly, to a snapshot: what it holds, as text. */
class RuleAssemblyTest {
    private static final String DOCUMENTS = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: label, namespace: team-a}
            spec:
              type: Patch
              references:
              - {name: cm, apiVersion: v1, kind: ConfigMap, objectName: settings, onMissing: skip}
              match: [{select: '$.kind', matchValue: Pod}]
              patch: [{op: add, path: /metadata/labels/x, value: y}]
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: no-latest, namespace: team-a}
            spec:
              type: Reject
              match: [{select: '$.spec.containers[*].image', matchRegex: ':latest$'}]
            ---
            apiVersion: mutations.gatekeeper.sh/v1
            kind: Assign
            metadata: {name: as-list}
            spec:
              applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
              location: "spec.containers[name: a].image"
              parameters: {assign: {value: x}}
            ---
            apiVersion: mutations.gatekeeper.sh/v1
            kind: Assign
            metadata: {name: as-object}
            spec:
              applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
              location: "spec.containers.image"
              parameters: {assign: {value: x}}
            ---
            apiVersion: momiji.com/v1
            kind: ClusterJsAdmission
            metadata: {name: count}
            spec:
              kinds: [pods]
              js: "function jsa_created(obj) { } function jsa_validate(obj) { return {Allowed: true}; }"
            """;

    private static final String GOLDEN = """
            modrules 2, mutators 2, mutation stage rules 3, validation stage rules 1
            referenced kinds [v1 ConfigMap]
            script resources [pods]
            disabled mutators [000000002, 000000003]
            outcome names [Assign/as-list, Assign/as-object, ClusterJsAdmission/count, gatekeeper-mutation, \
            team-a/label, team-a/no-latest]""";

    static RuleAssembly assembly(List<Family<?>> families) {
        return assembly(families, List.of());
    }

    static RuleAssembly assembly(List<Family<?>> families, List<Family<?>> shadowFamilies) {
        return new RuleAssembly("remold-system", null, ExternalData.NONE, ReferenceResolver.NONE, new CompiledRules(),
                families, shadowFamilies);
    }

    static RuleSet read(String documents) {
        return RuleSet.of(RuleDocuments.read(documents, "rules.yaml"));
    }

    static String summary(Snapshot snapshot) {
        return "modrules " + snapshot.engine().ruleCount() + ", mutators " + snapshot.ruleCount(Gatekeeper.FAMILY)
                + ", mutation stage rules " + snapshot.engine().stageRuleCount()
                + ", validation stage rules " + snapshot.engine().validationStageRuleCount() + "\n"
                + "referenced kinds " + new TreeSet<>(snapshot.referencedKinds()) + "\n"
                + "script resources " + new TreeSet<>(snapshot.watchedResources()) + "\n"
                + "disabled mutators " + new TreeSet<>(snapshot.disabled().keySet()) + "\n"
                + "outcome names " + new TreeSet<>(snapshot.outcomeNames());
    }

    @Test
    void documentsOfEveryFamilyBecomeOneSnapshot() {
        List<Family<?>> families = Families.create();
        try {
            Snapshot snapshot = assembly(families).assemble(read(DOCUMENTS));
            assertThat(summary(snapshot), equalTo(GOLDEN));
        } finally {
            families.forEach(Family::close);
        }
    }

    @Test
    void aSetWithoutScriptsAsksForNoScriptHost() {
        var asked = new ArrayList<Boolean>();
        String withoutScripts = DOCUMENTS.substring(0, DOCUMENTS.indexOf("---\napiVersion: momiji"));
        Snapshot snapshot = assembly(Families.create(() -> {
            asked.add(true);
            return Scripts.host(ScriptLimits.defaults());
        })).assemble(read(withoutScripts));
        assertThat(asked, empty());
        assertThat(snapshot.runtime(ScriptHost.class).orElse(null), nullValue());
        assertThat(snapshot.engine().validationStageRuleCount(), is(0));
    }
}
