package io.remold.server.kube;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AdmissionregistrationV1Api;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;
import io.remold.api.Provider;
import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import io.remold.server.existing.RuleEvents;
import io.remold.server.reports.ReportSink;
import io.remold.server.rules.RuleSink;
import jakarta.json.JsonArray;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Remold's cluster mode: the rule store, namespace and node references fed by informers, ModRule status, and node
 * references of bound pods.
 *
 * <ul>
 *   <li>ModRules of {@code remold.io/v1beta1} (and of {@code api.kubemod.io/v1beta1}, and the resources of each rule
 *       family the sink takes, such as Gatekeeper's four mutator kinds, each when its CRD is served; they are looked
 *       for at start and every minute until found, those of the groups in {@code rule-crds} every second,
 *       holding back synced until found) are delivered to the {@link RuleSink} under keys
 *       {@code group/version/plural/namespace/name}; {@link RuleSink#synced()} is called once every informer has
 *       listed.
 *   <li>{@link #refs()} answers from Namespace and Node informer caches, never with an API call.
 *   <li>The leader (a Lease in the system namespace) writes each rule's {@code Ready} condition (and a mutator's
 *       Gatekeeper {@code byPod}), and keeps the
 *       validating webhook's reach to where Reject rules apply ({@link RejectScope}).
 *   <li>{@link #bindings()} annotates bound pods that ask for it, on a background queue. Every replica does this
 *       for the bindings it receives (leader or not): the patch is idempotent (see docs/cluster.md).
 * </ul>
 * {@link #start} returns at once; informers list and watch in the background.
 */
public final class ClusterMode implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ClusterMode.class.getName());
    static final String REMOLD_GROUP = "remold.io";
    static final String KUBEMOD_GROUP = "api.kubemod.io";
    static final String RULE_VERSION = "v1beta1";
    /** How often a rule resource whose CRD is not served (KubeMod's, Gatekeeper's) is looked for again. */
    private static final Duration DISCOVERY_RECHECK = Duration.ofMinutes(1);
    /**
     * How often a rule CRD installed with the server ({@code rule-crds}) is looked for: a replica that started
     * before the CRD was served must not stay blind to those rules for a minute while the leader, which saw them,
     * writes them Ready.
     */
    private static final Duration REQUIRED_RECHECK = Duration.ofSeconds(1);

    /** A resource the server reads rules from: where it is served and how its manifests enter the rules. */
    private record RuleResource(String group, String version, String plural, RuleLoader loader) {
        @Override
        public String toString() {
            return group + "/" + version + " " + plural;
        }
    }

    /** remold.io external data Providers, watched once their CRD is served (an installation older than them has none). */
    private static final RuleResource PROVIDERS =
            new RuleResource(REMOLD_GROUP, RULE_VERSION, Provider.PLURAL, RuleLoader.PROVIDERS);
    /** The installer's validating webhook configuration, whose reach the leader keeps to the Reject rules. */
    static final String VALIDATING_WEBHOOK = "remold-validating";
    /** How often the leader checks that reach anyway: applying a bundle whose webhook changed resets it. */
    private static final Duration SCOPE_RECHECK = Duration.ofSeconds(10);

    private final RejectScope sink;
    private final Informers informers;
    private final ApiClient requestClient;
    private final ClusterCache cache;
    private final ScheduledExecutorService background;
    private final ScheduledExecutorService bindingQueue;
    private final WriteQueue writes;
    private final StatusWriter statusWriter;
    private final NodeRefInjector injector;
    private final Leadership leadership;
    /** Guarded by itself, with {@link #closed}. */
    private final List<Informers.Hold> holds = new CopyOnWriteArrayList<>();
    private final List<RuleSource> ruleSources = new CopyOnWriteArrayList<>();
    private volatile boolean synced;
    private final Set<RuleResource> probesReported = ConcurrentHashMap.newKeySet();
    private volatile int scopeReported;
    private volatile boolean closed;
    /** ModRules of remold.io (watched from the start) and, once KubeMod's CRD is served, of api.kubemod.io. */
    private final RuleResource remoldRules;
    private final RuleResource kubemodRules;
    /** API groups whose rule resources this replica must watch before it is synced (ready). */
    private final Set<String> requiredGroups;
    /** The resources of the sink's rule families, each watched once its CRD is served. */
    private final List<RuleResource> familyResources;
    /** Told of every rule object (not of Providers): the leader's impact scans. */
    private final RuleEvents ruleEvents;

    private ClusterMode(ClusterModeConfig config, RuleSink sink, Informers informers, RuleEvents ruleEvents) {
        this.ruleEvents = ruleEvents;
        RuleLoader modRules = RuleLoader.modRules(sink.families());
        this.remoldRules = new RuleResource(REMOLD_GROUP, RULE_VERSION, ApiStatusWriter.PLURAL, modRules);
        this.kubemodRules = new RuleResource(KUBEMOD_GROUP, RULE_VERSION, ApiStatusWriter.PLURAL, modRules);
        this.familyResources = sink.families().stream().flatMap(family -> family.resources().stream().map(r ->
                new RuleResource(r.group(), r.version(), r.plural(), RuleLoader.of(family)))).toList();
        this.sink = new RejectScope(sink, config.systemNamespace(), config.kubemodSystemNamespace(),
                this::queueScope);
        this.informers = informers;
        this.requestClient = informers.clients().requests();
        this.requiredGroups = config.ruleCrds();
        this.cache = new ClusterCache(config.kubemodCompat());
        this.background = Executors.newSingleThreadScheduledExecutor(daemon("remold-cluster"));
        // Off the rule store's build thread: the status writes must not hold back the next engine build.
        this.sink.onSnapshot(snapshot -> background.execute(
                () -> ruleSources.forEach(source -> source.conflicts(snapshot.disabled()))));
        // A script rule's start may end after its rule set was installed: its outcome is written when it comes.
        this.sink.onScriptStarts((key, failure) -> background.execute(
                () -> ruleSources.forEach(source -> source.scriptStarted(key, failure))));
        this.bindingQueue = Executors.newSingleThreadScheduledExecutor(daemon("remold-node-refs"));
        this.injector = new NodeRefInjector(requestClient,
                (delay, task) -> bindingQueue.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS),
                config.kubemodCompat());
        this.leadership = new Leadership(requestClient, config, this::becameLeader);
        this.writes = new WriteQueue(leadership::isLeader);
        this.statusWriter = new ApiStatusWriter(requestClient, writes, config.identity());
    }

    /** Starts informers (of {@code informers}) and leader election. */
    public static ClusterMode start(ClusterModeConfig config, RuleSink sink, Informers informers) {
        return start(config, sink, informers, RuleEvents.NONE);
    }

    /** As {@link #start(ClusterModeConfig, RuleSink, Informers)}, telling {@code ruleEvents} of every rule object. */
    public static ClusterMode start(ClusterModeConfig config, RuleSink sink, Informers informers,
                                    RuleEvents ruleEvents) {
        var mode = new ClusterMode(config, sink, informers, ruleEvents);
        mode.run();
        return mode;
    }

    /** Namespace and Node manifests and ignored namespaces, from informer caches. */
    public ClusterRefs refs() {
        return cache;
    }

    /** Receives {@code pods/binding} CREATEs; returns at once, the pod is annotated in the background. */
    public BindingListener bindings() {
        return injector;
    }

    /** True once every informer has listed and the RuleSink has the initial rules. */
    public boolean synced() {
        return synced;
    }

    /** True while this replica holds the leader Lease (and so writes ModRule status). */
    public boolean leader() {
        return leadership.isLeader();
    }

    /**
     * Has the leader write the reports of {@code reports} (OpenReports, docs/reports.md), each at most once per
     * {@code interval}, on the queue of the other writes.
     */
    public void writeReports(ReportSink reports, Duration interval) {
        var writer = new ApiReportWriter(requestClient, writes, leadership::isLeader, reports);
        background.scheduleWithFixedDelay(writer::flush, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Stops leader election, background work and writes, and releases its informers. */
    @Override
    public void close() {
        synchronized (holds) {
            closed = true;
            holds.forEach(Informers.Hold::close);
        }
        leadership.close();
        background.shutdownNow();
        writes.close();
        bindingQueue.shutdownNow();
    }

    private void run() {
        watch("", "v1", "namespaces", cache.namespaceHandler());
        watch("", "v1", "nodes", cache.nodeHandler());
        watchRules(remoldRules);
        leadership.start();
        background.scheduleWithFixedDelay(this::queueScope, SCOPE_RECHECK.toSeconds(), SCOPE_RECHECK.toSeconds(),
                TimeUnit.SECONDS);
        Thread.ofPlatform().daemon().name("remold-cluster-sync").start(() -> {
            // Discovery is an API call: done here, not in start(), and before waiting so that "synced" covers it.
            var optional = new ArrayList<RuleResource>();
            for (RuleResource resource : Stream.concat(Stream.of(kubemodRules, PROVIDERS), familyResources.stream())
                    .toList()) {
                if (requiredGroups.contains(resource.group())) {
                    awaitServed(resource);
                } else {
                    optional.add(resource);
                }
            }
            optional.forEach(this::discover);
            awaitSync();
        });
    }

    private void watchRules(RuleResource resource) {
        var source = new RuleSource(resource.group(), resource.version(), resource.plural(), resource.loader(), sink,
                statusWriter, leadership::isLeader, Clock.systemUTC(),
                resource.equals(PROVIDERS) ? RuleEvents.NONE : ruleEvents);
        ruleSources.add(source);
        watch(resource.group(), resource.version(), resource.plural(), source);
    }

    /**
     * Starts the informer of a rule resource whose CRD is optional (KubeMod's, Gatekeeper's) if it is served; true if
     * it is. The probe is a list of at most one object: 404 while the CRD is absent, and it also proves that we may
     * list what the informer will watch.
     */
    private boolean watchIfServed(RuleResource resource) {
        try {
            new DynamicKubernetesApi(resource.group(), resource.version(), resource.plural(), requestClient)
                    .list(new ListOptions().limit(1)).throwsApiException();
        } catch (ApiException e) {
            // 404: no such CRD. 403: the installation did not grant it (no compatibility flag): said once.
            if (e.getCode() != 404 && probesReported.add(resource)) {
                LOG.log(System.Logger.Level.INFO, "{0} not watched: listing them answers HTTP {1}"
                        + " (looked for again)", resource, e.getCode());
            }
            return false;
        } catch (RuntimeException e) { // the API server cannot be reached: the informers will say so too
            LOG.log(System.Logger.Level.DEBUG, "cannot look for {0}: {1}", resource, e.toString());
            return false;
        }
        LOG.log(System.Logger.Level.INFO, "the CRD of {0} is served: watching them too", resource);
        watchRules(resource);
        return true;
    }

    /** Watches an optional rule resource once its CRD is served; until then looks again every minute. */
    private void discover(RuleResource resource) {
        if (closed || watchIfServed(resource)) {
            return;
        }
        try {
            background.schedule(() -> discover(resource), DISCOVERY_RECHECK.toSeconds(), TimeUnit.SECONDS);
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    /** Looks for a rule resource every second until it is served (the replica stays unready meanwhile). */
    private void awaitServed(RuleResource resource) {
        boolean said = false;
        while (!closed && !watchIfServed(resource)) {
            if (!said) {
                said = true;
                LOG.log(System.Logger.Level.WARNING, "{0} not served yet: this replica is not ready until it is"
                        + " (rule-crds names its group)", resource);
            }
            try {
                Thread.sleep(REQUIRED_RECHECK.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void watch(String group, String version, String plural,
            ResourceEventHandler<DynamicKubernetesObject> handler) {
        synchronized (holds) { // the KubeMod informer may come late: never acquire one after close()
            if (!closed) {
                holds.add(informers.acquire(new Informers.Resource(group, version, plural), handler));
            }
        }
    }

    /**
     * Waits until every informer has listed, then makes sure the sink has every listed rule and the caches every
     * listed namespace and node (event handlers run on their own threads and may lag behind the informer's store)
     * before reporting synced.
     */
    private void awaitSync() {
        try {
            while (!closed && !holds.stream().allMatch(Informers.Hold::hasSynced)) {
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            return;
        }
        if (closed) {
            return;
        }
        // Handlers are idempotent: an object applied twice changes nothing the second time.
        holds.forEach(Informers.Hold::catchUp);
        synced = true;
        sink.synced();
        LOG.log(System.Logger.Level.INFO, "cluster mode synced: {0} ModRule sources, namespaces and nodes cached",
                ruleSources.size());
    }

    /** Writes what another leader may have left undone, and what this replica's failed writes still wait for. */
    private void becameLeader() {
        writes.resume();
        ruleSources.forEach(source -> background.execute(source::writePending));
        queueScope();
    }

    /**
     * Has the leader bring the validating webhook's reach to the Reject rules (see {@link RejectScope}), once the
     * rules have synced: before that an empty rule set would narrow it to nothing. Several changes queue one write.
     */
    private void queueScope() {
        if (synced && !closed && leadership.isLeader()) {
            writes.submit(VALIDATING_WEBHOOK, this::writeScope);
        }
    }

    private WriteQueue.Result writeScope(int retries) {
        var api = new AdmissionregistrationV1Api(requestClient);
        try {
            V1ValidatingWebhookConfiguration current = api.readValidatingWebhookConfiguration(VALIDATING_WEBHOOK)
                    .execute();
            SortedSet<String> namespaces = sink.namespaces();
            JsonArray patch = RejectScope.patch(current, namespaces);
            if (patch.isEmpty()) {
                return WriteQueue.Result.DONE;
            }
            PatchUtils.patch(V1ValidatingWebhookConfiguration.class, () -> api.patchValidatingWebhookConfiguration(
                    VALIDATING_WEBHOOK, new V1Patch(patch.toString())).buildCall(null),
                    V1Patch.PATCH_FORMAT_JSON_PATCH, requestClient);
            LOG.log(System.Logger.Level.INFO, "validating webhook {0} now reaches {1}", VALIDATING_WEBHOOK,
                    namespaces == null ? "every object (a Reject rule applies cluster-wide)"
                            : namespaces.isEmpty() ? "nothing (no Reject rule)" : "the namespaces " + namespaces);
            return WriteQueue.Result.DONE;
        } catch (ApiException e) {
            if (e.getCode() == 409 || e.getCode() == 422) {
                // Changed since it was read (the patch tests the resourceVersion): read again after a back-off, so
                // that a patch the API server keeps refusing never becomes a busy loop.
                LOG.log(retries == 0 ? System.Logger.Level.INFO : System.Logger.Level.DEBUG, "validating webhook "
                        + "{0} changed while its reach was written (HTTP {1}); trying again", VALIDATING_WEBHOOK,
                        e.getCode());
            } else if (scopeReported != e.getCode()) {
                scopeReported = e.getCode();
                LOG.log(e.getCode() == 404 ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
                        "cannot keep the reach of validating webhook {0} to the Reject rules: HTTP {1}",
                        VALIDATING_WEBHOOK, e.getCode());
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot keep the reach of validating webhook {0}: {1}",
                    VALIDATING_WEBHOOK, e.toString());
        }
        return WriteQueue.Result.RETRY;
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return Thread.ofPlatform().daemon().name(name).factory();
    }
}
