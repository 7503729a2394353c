package io.remold.server.kube;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.PatchUtils;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Merge-patches {@code status.conditions} of a rule through the status subresource, on the {@link WriteQueue}
 * (which retries a failed write with back-off). A resource whose CRD has no status subresource (KubeMod's own) answers
 * 404 for an object that exists: that is said once, and no status of that resource is written any more.
 */
final class ApiStatusWriter implements StatusWriter {
    private static final System.Logger LOG = System.getLogger(ApiStatusWriter.class.getName());
    static final String PLURAL = "modrules";
    /** What Gatekeeper's {@code byPod[].operations} says a pod does; Remold's replicas serve the mutation webhook. */
    static final String MUTATION_WEBHOOK = "mutation-webhook";

    private final ApiClient client;
    private final CustomObjectsApi api;
    private final WriteQueue queue;
    private final String identity;
    /** Resources ({@code group/version plural}) found without a status subresource. */
    private final Set<String> withoutStatus = ConcurrentHashMap.newKeySet();

    /** @param identity this replica's name ({@code byPod[].id} of Gatekeeper mutators) */
    ApiStatusWriter(ApiClient client, WriteQueue queue, String identity) {
        this.client = client;
        this.api = new CustomObjectsApi(client);
        this.queue = queue;
        this.identity = identity;
    }

    @Override
    public void write(RuleRef rule, ReadyCondition condition, String lastTransitionTime) {
        if (withoutStatus.contains(resource(rule))) {
            return;
        }
        var patch = new V1Patch(patchBody(condition, lastTransitionTime,
                rule.isGatekeeperMutator() ? identity : null));
        queue.submit(rule, retries -> send(rule, condition, patch, retries));
    }

    private WriteQueue.Result send(RuleRef rule, ReadyCondition condition, V1Patch patch, int retries) {
        if (withoutStatus.contains(resource(rule))) {
            return WriteQueue.Result.DONE;
        }
        try {
            PatchUtils.patch(Object.class, () -> rule.namespace() == null
                            ? api.patchClusterCustomObjectStatus(rule.group(), rule.version(), rule.plural(),
                                    rule.name(), patch).buildCall(null)
                            : api.patchNamespacedCustomObjectStatus(rule.group(), rule.version(), rule.namespace(),
                                    rule.plural(), rule.name(), patch).buildCall(null),
                    V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client);
            LOG.log(System.Logger.Level.INFO, "status of {0}: Ready={1}", rule, condition.status());
            return WriteQueue.Result.DONE;
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return notFound(rule);
            }
            // Said once per failing rule; its retries, which may go on for as long as the cause, at debug level.
            LOG.log(retries == 0 ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG,
                    "cannot write status of {0}: HTTP {1} {2} (trying again)", rule, e.getCode(),
                    e.getResponseBody());
            return WriteQueue.Result.RETRY;
        }
    }

    /**
     * The status subresource answered 404: either the rule was deleted meanwhile (nothing to write), or its CRD
     * declares no status subresource, which the API server answers with the same 404. Reading the object tells them
     * apart.
     */
    private WriteQueue.Result notFound(RuleRef rule) {
        try {
            if (rule.namespace() == null) {
                api.getClusterCustomObject(rule.group(), rule.version(), rule.plural(), rule.name()).execute();
            } else {
                api.getNamespacedCustomObject(rule.group(), rule.version(), rule.namespace(), rule.plural(),
                        rule.name()).execute();
            }
        } catch (ApiException e) {
            return e.getCode() == 404 ? WriteQueue.Result.DONE : WriteQueue.Result.RETRY;
        }
        if (withoutStatus.add(resource(rule))) {
            LOG.log(System.Logger.Level.INFO, "{0} have no status subresource (their CRD declares none, as "
                    + "KubeMod''s own does): the Ready condition of these rules is not written (seen on {1})",
                    resource(rule), rule);
        }
        return WriteQueue.Result.DONE;
    }

    private static String resource(RuleRef rule) {
        return rule.group() + "/" + rule.version() + " " + rule.plural();
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
