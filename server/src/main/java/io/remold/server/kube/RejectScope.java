package io.remold.server.kube;

import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1LabelSelectorRequirement;
import io.kubernetes.client.openapi.models.V1RuleWithOperations;
import io.kubernetes.client.openapi.models.V1ValidatingWebhook;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import io.remold.api.ModRule;
import io.remold.api.Provider;
import io.remold.api.RuleControls;
import io.remold.api.RuleType;
import io.remold.engine.Family;
import io.remold.engine.RuleCompilation;
import io.remold.server.rules.RuleSink;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the validating webhook must see: the namespaces that hold Reject rules, or everything once a cluster-wide
 * Reject rule exists. The webhook fails closed (failurePolicy Fail) so that a Reject rule is never skipped; kept to
 * this reach, Remold being down blocks only what some Reject rule could have refused, and a namespace with only Patch
 * rules (which fail open) or none stays writable.
 *
 * <p>As a {@link RuleSink} it passes every rule on and notes, of the ones that compiled, where Reject rules apply;
 * {@link #patch} turns that into the JSON Patch of the webhook configuration that the leader applies.
 */
final class RejectScope implements RuleSink {
    /** The installer's webhook for Reject rules; the configuration's other webhook (ModRule validation) is left be. */
    static final String REJECT_WEBHOOK = "validate.remold.io";
    static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";
    /** A namespace name is a DNS label, so a dotted value selects none: the webhook sees nothing namespaced. */
    static final String NO_NAMESPACE = "no-reject-rules.remold.io";
    /** Marks a cluster-wide rule among the namespaces. */
    private static final String CLUSTER = "";

    private final RuleSink delegate;
    private final String systemNamespace;
    /** Null when api.kubemod.io rules have no cluster-wide namespace (without kubemod-compat). */
    private final String kubemodSystemNamespace;
    private final Runnable changed;
    /** Reject rules by source key: their namespace, or {@link #CLUSTER}. */
    private final Map<String, String> rejectRules = new ConcurrentHashMap<>();

    /** @param changed called after a change of where Reject rules apply (not under a lock of ours) */
    RejectScope(RuleSink delegate, String systemNamespace, String kubemodSystemNamespace, Runnable changed) {
        this.delegate = delegate;
        this.systemNamespace = systemNamespace;
        this.kubemodSystemNamespace = kubemodSystemNamespace;
        this.changed = changed;
    }

    @Override
    public RuleCompilation put(String key, ModRule rule, RuleControls controls) {
        RuleCompilation compilation = delegate.put(key, rule, controls);
        // A Shadow rule is reached too: the validating webhook hands its requests to the shadow evaluation.
        noteReach(key, compilation.ok() && rule.spec().type() == RuleType.Reject ? reach(rule) : null);
        return compilation;
    }

    /** Providers never reject: passed on, with no effect on the reach. */
    @Override
    public void putProvider(String key, Provider provider) {
        delegate.putProvider(key, provider);
    }

    @Override
    public List<Family<?>> families() {
        return delegate.families();
    }

    /**
     * A family's rule refuses where the family says (a script with jsa_validate: in its namespace, or anywhere when
     * cluster-wide); one the sink refuses to run refuses nowhere.
     */
    @Override
    public <R> Optional<String> put(String key, Family<R> family, R rule, RuleControls controls) {
        Optional<String> refusal = delegate.put(key, family, rule, controls);
        noteReach(key, refusal.isEmpty() ? family.refusesIn(rule).orElse(null) : null);
        return refusal;
    }

    /** Notes where the rule of {@code key} rejects ({@code null}: nowhere), and reports a change of the reach. */
    private void noteReach(String key, String reach) {
        String before = reach != null ? rejectRules.put(key, reach) : rejectRules.remove(key);
        if (!Objects.equals(before, rejectRules.get(key))) {
            changed.run();
        }
    }

    @Override
    public void onSnapshot(java.util.function.Consumer<io.remold.rules.Snapshot> listener) {
        delegate.onSnapshot(listener);
    }

    @Override
    public void onScriptStarts(java.util.function.BiConsumer<String, java.util.Optional<String>> listener) {
        delegate.onScriptStarts(listener);
    }

    @Override
    public void remove(String key) {
        delegate.remove(key);
        if (rejectRules.remove(key) != null) {
            changed.run();
        }
    }

    @Override
    public void synced() {
        delegate.synced();
        changed.run();
    }

    /** A rule in a system namespace (or read without one) may match any object; others only their namespace's. */
    private String reach(ModRule rule) {
        String namespace = rule.namespace();
        boolean system = namespace == null || namespace.equals(systemNamespace)
                || rule.isKubeMod() && namespace.equals(kubemodSystemNamespace);
        return system ? CLUSTER : namespace;
    }

    /** The namespaces Reject rules apply in, sorted; {@code null} when one applies cluster-wide. */
    SortedSet<String> namespaces() {
        var namespaces = new TreeSet<>(rejectRules.values());
        return namespaces.contains(CLUSTER) ? null : namespaces;
    }

    /**
     * The JSON Patch that gives the configuration's webhook {@value #REJECT_WEBHOOK} the reach of {@code namespaces}
     * (see {@link #namespaces()}), or an empty array if it has it. The webhook keeps its own selector requirements (the
     * installer's ignored namespaces); only a requirement on {@value #NAMESPACE_NAME_LABEL} with {@code In} is ours,
     * and each rule's scope is {@code Namespaced} while no Reject rule applies cluster-wide. The patch first tests
     * the resourceVersion it was computed from, so that it never overwrites a change it did not see.
     */
    static JsonArray patch(V1ValidatingWebhookConfiguration current, SortedSet<String> namespaces) {
        var json = Manifests.JSON;
        JsonArrayBuilder ops = json.createArrayBuilder();
        List<V1ValidatingWebhook> webhooks = current.getWebhooks() == null ? List.of() : current.getWebhooks();
        boolean any = false;
        for (int i = 0; i < webhooks.size(); i++) {
            V1ValidatingWebhook webhook = webhooks.get(i);
            if (!REJECT_WEBHOOK.equals(webhook.getName())) {
                continue;
            }
            V1LabelSelector selector = webhook.getNamespaceSelector() == null ? new V1LabelSelector()
                    : webhook.getNamespaceSelector();
            var requirements = new ArrayList<V1LabelSelectorRequirement>();
            for (V1LabelSelectorRequirement requirement : Objects.requireNonNullElse(selector.getMatchExpressions(),
                    List.<V1LabelSelectorRequirement>of())) {
                if (!isOurs(requirement)) {
                    requirements.add(requirement);
                }
            }
            if (namespaces != null) {
                requirements.add(new V1LabelSelectorRequirement().key(NAMESPACE_NAME_LABEL).operator("In")
                        .values(namespaces.isEmpty() ? List.of(NO_NAMESPACE) : List.copyOf(namespaces)));
            }
            if (!requirements.equals(Objects.requireNonNullElse(selector.getMatchExpressions(), List.of()))) {
                var expressions = json.createArrayBuilder();
                for (V1LabelSelectorRequirement requirement : requirements) {
                    var values = json.createArrayBuilder();
                    Objects.requireNonNullElse(requirement.getValues(), List.<String>of()).forEach(values::add);
                    var expression = json.createObjectBuilder().add("key", requirement.getKey())
                            .add("operator", requirement.getOperator());
                    if (requirement.getValues() != null) {
                        expression.add("values", values);
                    }
                    expressions.add(expression);
                }
                // "add" replaces a member that exists; a webhook without a selector gets a whole one.
                ops.add(webhook.getNamespaceSelector() == null
                        ? json.createObjectBuilder().add("op", "add").add("path", "/webhooks/" + i + "/namespaceSelector")
                                .add("value", json.createObjectBuilder().add("matchExpressions", expressions))
                        : json.createObjectBuilder().add("op", "add")
                                .add("path", "/webhooks/" + i + "/namespaceSelector/matchExpressions")
                                .add("value", expressions));
                any = true;
            }
            String scope = namespaces == null ? "*" : "Namespaced";
            List<V1RuleWithOperations> rules = Objects.requireNonNullElse(webhook.getRules(), List.of());
            for (int j = 0; j < rules.size(); j++) {
                if (!scope.equals(rules.get(j).getScope())) {
                    ops.add(json.createObjectBuilder().add("op", "add")
                            .add("path", "/webhooks/" + i + "/rules/" + j + "/scope").add("value", scope));
                    any = true;
                }
            }
        }
        if (!any) {
            return JsonArray.EMPTY_JSON_ARRAY;
        }
        return json.createArrayBuilder()
                .add(json.createObjectBuilder().add("op", "test").add("path", "/metadata/resourceVersion")
                        .add("value", current.getMetadata().getResourceVersion()))
                .addAll(ops).build();
    }

    private static boolean isOurs(V1LabelSelectorRequirement requirement) {
        return NAMESPACE_NAME_LABEL.equals(requirement.getKey()) && "In".equals(requirement.getOperator());
    }
}
