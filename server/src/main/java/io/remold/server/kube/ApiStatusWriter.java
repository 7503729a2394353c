package io.remold.server.kube;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.PatchUtils;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Merge-patches {@code status.conditions} of a ModRule through the status subresource, off the informer thread.
 * Failures are logged; the informer's periodic resync brings the rule back for another try.
 */
final class ApiStatusWriter implements StatusWriter {
    private static final System.Logger LOG = System.getLogger(ApiStatusWriter.class.getName());
    static final String PLURAL = "modrules";

    private final ApiClient client;
    private final CustomObjectsApi api;
    private final Executor executor;

    ApiStatusWriter(ApiClient client, Executor executor) {
        this.client = client;
        this.api = new CustomObjectsApi(client);
        this.executor = executor;
    }

    @Override
    public void write(RuleRef rule, ReadyCondition condition, String lastTransitionTime) {
        var patch = new V1Patch(patchBody(condition, lastTransitionTime));
        try {
            executor.execute(() -> send(rule, condition, patch));
        } catch (RejectedExecutionException e) {
            LOG.log(System.Logger.Level.DEBUG, "status of {0} not written: shutting down", rule);
        }
    }

    private void send(RuleRef rule, ReadyCondition condition, V1Patch patch) {
        try {
            PatchUtils.patch(Object.class, () -> api.patchNamespacedCustomObjectStatus(rule.group(), rule.version(),
                    rule.namespace(), PLURAL, rule.name(), patch).buildCall(null),
                    V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client);
            LOG.log(System.Logger.Level.INFO, "status of {0}: Ready={1}", rule, condition.status());
        } catch (ApiException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot write status of {0}: HTTP {1} {2}", rule, e.getCode(),
                    e.getResponseBody());
        }
    }

    /** {@code {"status":{"conditions":[Ready]}}}: Remold owns the whole list. */
    static String patchBody(ReadyCondition condition, String lastTransitionTime) {
        var json = Manifests.JSON;
        var ready = json.createObjectBuilder()
                .add("type", ReadyCondition.TYPE)
                .add("status", condition.status())
                .add("reason", condition.reason())
                .add("message", condition.message())
                .add("lastTransitionTime", lastTransitionTime)
                .add("observedGeneration", condition.observedGeneration());
        return json.createObjectBuilder()
                .add("status", json.createObjectBuilder().add("conditions", json.createArrayBuilder().add(ready)))
                .build().toString();
    }
}
