package io.remold.server.kube;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.PatchUtils;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Merge-patches {@code status.conditions} of a rule through the status subresource, off the informer thread.
 * Failures are logged; the informer's periodic resync brings the rule back for another try.
 */
final class ApiStatusWriter implements StatusWriter {
    private static final System.Logger LOG = System.getLogger(ApiStatusWriter.class.getName());
    static final String PLURAL = "modrules";
    /** What Gatekeeper's {@code byPod[].operations} says a pod does; Remold's replicas serve the mutation webhook. */
    static final String MUTATION_WEBHOOK = "mutation-webhook";

    private final ApiClient client;
    private final CustomObjectsApi api;
    private final Executor executor;
    private final String identity;

    /** @param identity this replica's name ({@code byPod[].id} of Gatekeeper mutators) */
    ApiStatusWriter(ApiClient client, Executor executor, String identity) {
        this.client = client;
        this.api = new CustomObjectsApi(client);
        this.executor = executor;
        this.identity = identity;
    }

    @Override
    public void write(RuleRef rule, ReadyCondition condition, String lastTransitionTime) {
        var patch = new V1Patch(patchBody(condition, lastTransitionTime,
                rule.isGatekeeperMutator() ? identity : null));
        try {
            executor.execute(() -> send(rule, condition, patch));
        } catch (RejectedExecutionException e) {
            LOG.log(System.Logger.Level.DEBUG, "status of {0} not written: shutting down", rule);
        }
    }

    private void send(RuleRef rule, ReadyCondition condition, V1Patch patch) {
        try {
            PatchUtils.patch(Object.class, () -> rule.namespace() == null
                            ? api.patchClusterCustomObjectStatus(rule.group(), rule.version(), rule.plural(),
                                    rule.name(), patch).buildCall(null)
                            : api.patchNamespacedCustomObjectStatus(rule.group(), rule.version(), rule.namespace(),
                                    rule.plural(), rule.name(), patch).buildCall(null),
                    V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client);
            LOG.log(System.Logger.Level.INFO, "status of {0}: Ready={1}", rule, condition.status());
        } catch (ApiException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot write status of {0}: HTTP {1} {2}", rule, e.getCode(),
                    e.getResponseBody());
        }
    }

    /**
     * {@code {"status":{"conditions":[Ready]}}}: Remold owns the whole list. For a Gatekeeper mutator ({@code pod} not
     * null) also Gatekeeper's {@code byPod}, which its users and tools read: one entry, the leader's, enforced when
     * the mutator is in force, else with the reason as its error.
     */
    static String patchBody(ReadyCondition condition, String lastTransitionTime, String pod) {
        var json = Manifests.JSON;
        var ready = json.createObjectBuilder()
                .add("type", ReadyCondition.TYPE)
                .add("status", condition.status())
                .add("reason", condition.reason())
                .add("message", condition.message())
                .add("lastTransitionTime", lastTransitionTime)
                .add("observedGeneration", condition.observedGeneration());
        var status = json.createObjectBuilder().add("conditions", json.createArrayBuilder().add(ready));
        if (pod != null) {
            var byPod = json.createObjectBuilder()
                    .add("id", pod)
                    .add("observedGeneration", condition.observedGeneration())
                    .add("operations", json.createArrayBuilder().add(MUTATION_WEBHOOK))
                    .add("enforced", condition.ready());
            if (!condition.ready()) {
                byPod.add("errors", json.createArrayBuilder().add(json.createObjectBuilder()
                        .add("type", condition.reason()).add("message", condition.message())));
            }
            status.add("byPod", json.createArrayBuilder().add(byPod));
        }
        return json.createObjectBuilder().add("status", status).build().toString();
    }
}
