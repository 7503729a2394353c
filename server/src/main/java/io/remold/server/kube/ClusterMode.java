package io.remold.server.kube;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AdmissionregistrationV1Api;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;
import io.remold.api.Provider;
import io.remold.scripting.Scripts;
import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import io.remold.server.rules.RuleSink;
import jakarta.json.JsonArray;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * Remold's cluster mode: the rule store, namespace and node references fed by informers, ModRule status, and node
 * references of bound pods.
 *
 * <ul>
 *   <li>ModRules of {@code remold.io/v1beta1} (and of {@code api.kubemod.io/v1beta1}, and Gatekeeper's four mutator
 *       kinds of {@code mutations.gatekeeper.sh/v1}, each when its CRD is served; they are looked for at start and
 *       every minute until found) are delivered to the {@link RuleSink} under keys
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
    private static final Duration RULE_RESYNC = Duration.ofMinutes(10);
    /** How often a rule resource whose CRD is not served (KubeMod's, Gatekeeper's) is looked for again. */
    private static final Duration DISCOVERY_RECHECK = Duration.ofMinutes(1);

    /** A resource the server reads rules from: where it is served and how its manifests enter the rules. */
    private record RuleResource(String group, String version, String plural, RuleLoader loader) {
        @Override
        public String toString() {
            return group + "/" + version + " " + plural;
        }
    }

    private static final RuleResource REMOLD_RULES =
            new RuleResource(REMOLD_GROUP, RULE_VERSION, ApiStatusWriter.PLURAL, RuleLoader.MODRULES);
    /** Watched once KubeMod's CRD is served. */
    private static final RuleResource KUBEMOD_RULES =
            new RuleResource(KUBEMOD_GROUP, RULE_VERSION, ApiStatusWriter.PLURAL, RuleLoader.MODRULES);
    /**
     * Each watched once its CRD is served (Gatekeeper's own, or the installer's with --gatekeeper-compat), in the
     * version Gatekeeper v3.23 serves it: AssignImage is still only {@code v1alpha1} there.
     */
    private static final List<RuleResource> GATEKEEPER_MUTATORS = Stream.of("assign/v1", "assignmetadata/v1",
            "modifyset/v1", "assignimage/v1alpha1").map(resource -> resource.split("/")).map(r ->
            new RuleResource(RuleLoader.GATEKEEPER_GROUP, r[1], r[0], RuleLoader.MUTATORS)).toList();
    /** js-admissions-controller's JsAdmission and ClusterJsAdmission, each watched once its CRD is served. */
    private static final List<RuleResource> SCRIPT_RULES = Scripts.PLURALS.stream().map(plural ->
            new RuleResource(Scripts.GROUP, Scripts.VERSION, plural, RuleLoader.SCRIPTS)).toList();
    /** remold.io external data Providers, watched once their CRD is served (an installation older than them has none). */
    private static final RuleResource PROVIDERS =
            new RuleResource(REMOLD_GROUP, RULE_VERSION, Provider.PLURAL, RuleLoader.PROVIDERS);
    /** The installer's validating webhook configuration, whose reach the leader keeps to the Reject rules. */
    static final String VALIDATING_WEBHOOK = "remold-validating";
    /** How often the leader checks that reach anyway: applying a bundle whose webhook changed resets it. */
    private static final Duration SCOPE_RECHECK = Duration.ofSeconds(10);

    /** An informer and the handler it feeds, whose events never run concurrently with {@link #catchUp()}. */
    private record Watched(SharedIndexInformer<DynamicKubernetesObject> informer,
                           ResourceEventHandler<DynamicKubernetesObject> handler)
            implements ResourceEventHandler<DynamicKubernetesObject> {
        @Override
        public synchronized void onAdd(DynamicKubernetesObject object) {
            handler.onAdd(object);
        }

        @Override
        public synchronized void onUpdate(DynamicKubernetesObject oldObject, DynamicKubernetesObject newObject) {
            handler.onUpdate(oldObject, newObject);
        }

        @Override
        public synchronized void onDelete(DynamicKubernetesObject object, boolean finalStateUnknown) {
            handler.onDelete(object, finalStateUnknown);
        }

        /**
         * Hands the handler every object of the informer's store. Notifications run on their own thread and may lag
         * behind the store; each object is read from the store while no event is handled, so a deletion already
         * stored is never undone (its event, still queued, finds nothing left to remove).
         */
        void catchUp() {
            for (String key : informer.getIndexer().listKeys()) {
                synchronized (this) {
                    DynamicKubernetesObject current = informer.getIndexer().getByKey(key);
                    if (current != null) {
                        handler.onAdd(current);
                    }
                }
            }
        }
    }

    private final RejectScope sink;
    private final ApiClient watchClient;
    private final ApiClient requestClient;
    private final ClusterCache cache;
    private final ScheduledExecutorService background;
    private final ScheduledExecutorService bindingQueue;
    private final StatusWriter statusWriter;
    private final NodeRefInjector injector;
    private final Leadership leadership;
    private final List<DynamicInformer> informers = new CopyOnWriteArrayList<>();
    private final List<Watched> watched = new CopyOnWriteArrayList<>();
    private final List<RuleSource> ruleSources = new CopyOnWriteArrayList<>();
    private volatile boolean synced;
    private final Set<RuleResource> probesReported = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean scopeQueued = new AtomicBoolean();
    private volatile int scopeReported;
    private volatile boolean closed;

    private ClusterMode(ClusterModeConfig config, RuleSink sink, KubeClients clients) {
        this.sink = new RejectScope(sink, config.systemNamespace(), this::queueScope);
        this.watchClient = clients.watches();
        this.requestClient = clients.requests();
        this.cache = new ClusterCache(config.kubemodCompat());
        this.background = Executors.newSingleThreadScheduledExecutor(daemon("remold-cluster"));
        // Off the rule store's build thread: the status writes must not hold back the next engine build.
        this.sink.onMutatorConflicts(conflicts -> background.execute(
                () -> ruleSources.forEach(source -> source.conflicts(conflicts))));
        this.bindingQueue = Executors.newSingleThreadScheduledExecutor(daemon("remold-node-refs"));
        this.statusWriter = new ApiStatusWriter(requestClient, background, config.identity());
        this.injector = new NodeRefInjector(requestClient,
                (delay, task) -> bindingQueue.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS),
                config.kubemodCompat());
        this.leadership = new Leadership(requestClient, config, () -> {
            writePendingStatus();
            queueScope();
        });
    }

    /** Starts informers and leader election on the server's connections to the cluster. */
    public static ClusterMode start(ClusterModeConfig config, RuleSink sink, KubeClients clients) {
        var mode = new ClusterMode(config, sink, clients);
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

    /** Stops leader election, informers and background work. */
    @Override
    public void close() {
        synchronized (informers) {
            closed = true;
            informers.forEach(DynamicInformer::stop);
        }
        leadership.close();
        background.shutdownNow();
        bindingQueue.shutdownNow();
    }

    private void run() {
        watch("", "v1", "namespaces", cache.namespaceHandler(), 0);
        watch("", "v1", "nodes", cache.nodeHandler(), 0);
        watchRules(REMOLD_RULES);
        leadership.start();
        background.scheduleWithFixedDelay(this::queueScope, SCOPE_RECHECK.toSeconds(), SCOPE_RECHECK.toSeconds(),
                TimeUnit.SECONDS);
        Thread.ofPlatform().daemon().name("remold-cluster-sync").start(() -> {
            // Discovery is an API call: done here, not in start(), and before waiting so that "synced" covers it.
            discover(KUBEMOD_RULES);
            GATEKEEPER_MUTATORS.forEach(this::discover);
            SCRIPT_RULES.forEach(this::discover);
            discover(PROVIDERS);
            awaitSync();
        });
    }

    private void watchRules(RuleResource resource) {
        var source = new RuleSource(resource.group(), resource.version(), resource.plural(), resource.loader(), sink,
                statusWriter, leadership::isLeader, Clock.systemUTC());
        ruleSources.add(source);
        watch(resource.group(), resource.version(), resource.plural(), source, RULE_RESYNC.toMillis());
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
                        + " (looked for again every minute)", resource, e.getCode());
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

    private void watch(String group, String version, String plural,
            ResourceEventHandler<DynamicKubernetesObject> handler, long resyncMillis) {
        var informer = DynamicInformer.of(group, version, plural, requestClient, watchClient, resyncMillis,
                () -> closed);
        var feed = new Watched(informer.informer(), handler);
        informer.handledBy(feed);
        synchronized (informers) { // the KubeMod informer may come late: never start one after close()
            if (!closed) {
                informers.add(informer);
                watched.add(feed);
                informer.start();
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
            while (!closed && !watched.stream().allMatch(w -> w.informer().hasSynced())) {
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            return;
        }
        if (closed) {
            return;
        }
        // Handlers are idempotent: an object applied twice changes nothing the second time.
        watched.forEach(Watched::catchUp);
        synced = true;
        sink.synced();
        LOG.log(System.Logger.Level.INFO, "cluster mode synced: {0} ModRule sources, namespaces and nodes cached",
                ruleSources.size());
    }

    private void writePendingStatus() {
        ruleSources.forEach(source -> background.execute(source::writePending));
    }

    /**
     * Has the leader bring the validating webhook's reach to the Reject rules (see {@link RejectScope}), once the
     * rules have synced: before that an empty rule set would narrow it to nothing. Several changes queue one write.
     */
    private void queueScope() {
        if (!synced || closed || !leadership.isLeader() || !scopeQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            background.execute(() -> {
                scopeQueued.set(false);
                writeScope();
            });
        } catch (RejectedExecutionException e) {
            scopeQueued.set(false); // closing
        }
    }

    private void writeScope() {
        var api = new AdmissionregistrationV1Api(requestClient);
        try {
            V1ValidatingWebhookConfiguration current = api.readValidatingWebhookConfiguration(VALIDATING_WEBHOOK)
                    .execute();
            SortedSet<String> namespaces = sink.namespaces();
            JsonArray patch = RejectScope.patch(current, namespaces);
            if (patch.isEmpty()) {
                return;
            }
            PatchUtils.patch(V1ValidatingWebhookConfiguration.class, () -> api.patchValidatingWebhookConfiguration(
                    VALIDATING_WEBHOOK, new V1Patch(patch.toString())).buildCall(null),
                    V1Patch.PATCH_FORMAT_JSON_PATCH, requestClient);
            LOG.log(System.Logger.Level.INFO, "validating webhook {0} now reaches {1}", VALIDATING_WEBHOOK,
                    namespaces == null ? "every object (a Reject rule applies cluster-wide)"
                            : namespaces.isEmpty() ? "nothing (no Reject rule)" : "the namespaces " + namespaces);
        } catch (ApiException e) {
            if (e.getCode() == 409 || e.getCode() == 422) {
                // Changed since it was read (the patch tests the resourceVersion): the periodic check reads it
                // again. Not at once, so that a patch the API server keeps refusing never becomes a busy loop.
                LOG.log(System.Logger.Level.INFO, "validating webhook {0} changed while its reach was written "
                        + "(HTTP {1}); trying again within {2} s", VALIDATING_WEBHOOK, e.getCode(),
                        SCOPE_RECHECK.toSeconds());
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
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return Thread.ofPlatform().daemon().name(name).factory();
    }
}
