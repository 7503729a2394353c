package io.remold.server.kube;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.PatchUtils;
import io.remold.engine.RuleFamily;
import io.remold.server.reports.ReportKey;
import io.remold.server.reports.ReportSink;
import jakarta.json.JsonObject;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * The leader's writes of the reports of a {@link ReportSink}: every {@link #flush()} (each report interval) queues
 * one write per report that changed on the {@link WriteQueue} (so a report is written at most once per interval,
 * plus the queue's retries), which renders the report as it is then and applies it (server-side apply: create or
 * update in one call), or deletes it when it no longer exists. A report in the namespace of the ModRule it is about
 * is owned by that rule, so deleting the rule deletes it even if no replica sees the deletion; the others (a
 * cluster-wide rule's, ClusterReports, other families') are deleted explicitly.
 */
final class ApiReportWriter {
    private static final System.Logger LOG = System.getLogger(ApiReportWriter.class.getName());
    static final String FIELD_MANAGER = "remold-reports";
    /** Where a ModRule of a given id may be: remold.io's, then KubeMod's. */
    private static final String[] MODRULE_GROUPS = {ClusterMode.REMOLD_GROUP, ClusterMode.KUBEMOD_GROUP};

    private record QueueKey(ReportKey report) {
    }

    /** A ModRule, for owner references. */
    private record Owner(String apiVersion, String name, String uid) {
    }

    private final ApiClient client;
    private final CustomObjectsApi api;
    private final WriteQueue queue;
    private final BooleanSupplier leader;
    private final ReportSink reports;
    /** The ModRules found by rule id (empty: not found); cleared when the rule's reports are deleted. */
    private final Map<String, Optional<Owner>> owners = new ConcurrentHashMap<>();
    private boolean wasLeader;
    private volatile boolean crdMissingSaid;

    ApiReportWriter(ApiClient client, WriteQueue queue, BooleanSupplier leader, ReportSink reports) {
        this.client = client;
        this.api = new CustomObjectsApi(client);
        this.queue = queue;
        this.leader = leader;
        this.reports = reports;
    }

    /** Queues the writes of the reports that changed; a replica that just became leader writes them all. */
    synchronized void flush() {
        boolean leading = leader.getAsBoolean();
        if (leading && !wasLeader) {
            reports.touchAll();
        }
        wasLeader = leading;
        if (leading) {
            reports.drainChanged().forEach(key -> queue.submit(new QueueKey(key), retries -> write(key, retries)));
        }
    }

    private WriteQueue.Result write(ReportKey key, int retries) {
        Optional<JsonObject> report = reports.render(key);
        try {
            if (report.isPresent()) {
                apply(key, report.get());
            } else {
                delete(key);
            }
            return WriteQueue.Result.DONE;
        } catch (ApiException e) {
            if (e.getCode() == 404 && report.isEmpty()) {
                return WriteQueue.Result.DONE;
            }
            if (e.getCode() == 404 && !crdMissingSaid) {
                // An apply creates what is missing: 404 is the resource itself, said once rather than per report.
                crdMissingSaid = true;
                LOG.log(System.Logger.Level.WARNING, "{0} are not served: reports are written once their CRDs are "
                        + "installed (the installer''s --reports)", key.plural() + "." + ReportKey.GROUP);
                return WriteQueue.Result.RETRY;
            }
            // Said once per report; its retries, as long as the cause lasts (no RBAC), at debug level.
            LOG.log(retries == 0 && e.getCode() != 404 ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG,
                    "cannot write {0}: HTTP {1} {2} (trying again)", key, e.getCode(), e.getResponseBody());
            return WriteQueue.Result.RETRY;
        }
    }

    private void apply(ReportKey key, JsonObject report) throws ApiException {
        var body = new V1Patch(withOwner(key, report).toString());
        PatchUtils.patch(Object.class, () -> key.cluster()
                        ? api.patchClusterCustomObject(ReportKey.GROUP, ReportKey.VERSION, key.plural(), key.name(),
                                body).fieldManager(FIELD_MANAGER).force(true).buildCall(null)
                        : api.patchNamespacedCustomObject(ReportKey.GROUP, ReportKey.VERSION, key.namespace(),
                                key.plural(), key.name(), body).fieldManager(FIELD_MANAGER).force(true)
                                .buildCall(null),
                V1Patch.PATCH_FORMAT_APPLY_YAML, client);
    }

    private void delete(ReportKey key) throws ApiException {
        owners.remove(key.rule());
        if (key.cluster()) {
            api.deleteClusterCustomObject(ReportKey.GROUP, ReportKey.VERSION, key.plural(), key.name()).execute();
        } else {
            api.deleteNamespacedCustomObject(ReportKey.GROUP, ReportKey.VERSION, key.namespace(), key.plural(),
                    key.name()).execute();
        }
    }

    /** The report, owned by its ModRule when it is in the rule's namespace (an owner must be in the same one). */
    private JsonObject withOwner(ReportKey key, JsonObject report) throws ApiException {
        String category = report.getJsonObject("metadata").getJsonObject("labels")
                .getString("remold.io/family", "");
        int slash = key.rule().indexOf('/');
        if (key.cluster() || slash < 0 || !key.rule().substring(0, slash).equals(key.namespace())
                || !category.equals(RuleFamily.MODRULE.name().toLowerCase(java.util.Locale.ROOT))) {
            return report;
        }
        Optional<Owner> owner = owners.get(key.rule());
        if (owner == null) {
            owner = find(key.namespace(), key.rule().substring(slash + 1));
            owners.put(key.rule(), owner);
        }
        if (owner.isEmpty()) {
            return report;
        }
        var json = Manifests.JSON;
        var reference = json.createObjectBuilder()
                .add("apiVersion", owner.get().apiVersion())
                .add("kind", "ModRule")
                .add("name", owner.get().name())
                .add("uid", owner.get().uid());
        var metadata = json.createObjectBuilder(report.getJsonObject("metadata"))
                .add("ownerReferences", json.createArrayBuilder().add(reference));
        return json.createObjectBuilder(report).add("metadata", metadata).build();
    }

    private Optional<Owner> find(String namespace, String name) throws ApiException {
        for (String group : MODRULE_GROUPS) {
            try {
                Object rule = api.getNamespacedCustomObject(group, ClusterMode.RULE_VERSION, namespace,
                        ApiStatusWriter.PLURAL, name).execute();
                if (rule instanceof Map<?, ?> object && object.get("metadata") instanceof Map<?, ?> metadata
                        && metadata.get("uid") instanceof String uid) {
                    return Optional.of(new Owner(group + "/" + ClusterMode.RULE_VERSION, name, uid));
                }
            } catch (ApiException e) {
                if (e.getCode() != 404) {
                    throw e;
                }
            }
        }
        return Optional.empty();
    }
}
