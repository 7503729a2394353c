package io.remold.server.rules;

import io.remold.api.ModRule;
import io.remold.api.Provider;
import io.remold.api.RuleControls;
import io.remold.engine.CompiledRules;
import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.engine.ReferenceResolver;
import io.remold.engine.ReferenceScope;
import io.remold.engine.RuleCompilation;
import io.remold.engine.RuleFamily;
import io.remold.kinitiras.HttpAnswers;
import io.remold.kinitiras.KinitirasOptions;
import io.remold.api.AllowedUrls;
import io.remold.rules.Families;
import io.remold.rules.TenantScripts;
import io.remold.rules.RuleAssembly;
import io.remold.rules.RuleSet;
import io.remold.rules.Snapshot;
import io.remold.scripting.ScriptHost;
import io.remold.scripting.ScriptLimits;
import io.remold.scripting.ScriptRule;
import io.remold.scripting.Scripts;
import io.remold.server.existing.ImpactScans;
import io.remold.server.external.HttpsProviders;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The current rules of every family, keyed by source, as an immutable {@link Snapshot} that requests read without
 * locking. The keyed maps are held under a short lock: no I/O or compilation inside it.
 *
 * <p>Building a snapshot ({@link RuleAssembly}) compiles every rule (seconds for 10,000 rules), so builds are
 * coalesced: nothing is built before the source reports {@link #synced()} or inside a {@link #batch}, and after that
 * one background thread builds from the latest rules whenever something changed, so a burst of single changes costs
 * one or two builds, not one each. Requests keep using the previous snapshot meanwhile. A build installs its snapshot,
 * then tells the {@linkplain #onSnapshot listeners} (the metrics among them). The store is
 * {@linkplain #isReady() ready} once a build after {@link #synced()} succeeded. {@link #synced()} and {@link #batch}
 * return once a snapshot with their changes is in place. Closing stops the builds and the script rules' threads.
 */
public final class RuleStore implements RuleSink, ImpactScans.Rules, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RuleStore.class.getName());

    private final String systemNamespace;
    /** By source key, sorted: of two rules with one namespace/name the engine keeps the later, so that is stable. */
    private final Map<String, ModRule> rules = new TreeMap<>();
    /** The other families' rules, by family and source key. */
    private final Map<RuleFamily, Map<String, Object>> familyRules = new HashMap<>();
    /** Each rule's mode and existing policy, by source key (of every family). */
    private final Map<String, RuleControls> controls = new HashMap<>();
    private final Map<String, Provider> providers = new TreeMap<>();
    /** Source keys of the rules last put and refused (invalid, or not allowed here): not Ready, not in force. */
    private final Set<String> refused = new HashSet<>();
    private TenantScripts tenantScripts = TenantScripts.NONE;
    /** The Providers in force; engines hold it, so a Provider change needs no build. */
    private final HttpsProviders externalData = new HttpsProviders();
    /**
     * This store's instances of the families: their runtimes (the script host, created by the first build with a
     * script rule, so a server without scripts never loads GraalJS) are used on the build thread only, and closed
     * there too, after the last build.
     */
    private final List<Family<?>> families;
    /**
     * Other instances of the families, for the Shadow rules' snapshot (a family instance compiles one set); their
     * script host is made only once a Shadow script rule is built.
     */
    private final List<Family<?>> shadowFamilies;
    /** Makes a new instance of each family with this store's settings (script hosts, http answers, kinitiras's). */
    private final Supplier<List<Family<?>>> newFamilies;
    private final List<Consumer<Snapshot>> snapshotListeners = new CopyOnWriteArrayList<>();
    private final List<BiConsumer<String, Optional<String>>> startListeners = new CopyOnWriteArrayList<>();
    private final AtomicReference<Snapshot> snapshot;
    /** Rules compiled when they arrive, kept for the next build; each build keeps only the rules it holds. */
    private final CompiledRules compiled = new CompiledRules();
    /** One thread, so that snapshots are installed in the order their rules were read. */
    private final ExecutorService builder =
            Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("remold-rule-build").factory());
    private boolean synced;
    /** Whether a snapshot built after {@link #synced()} is in force: until then the store is not ready. */
    private boolean ready;
    private boolean closed;
    private int batchDepth;
    /** The build that has not started yet (it reads the rules when it starts), or null. */
    private CompletableFuture<Void> pendingBuild;
    private volatile String kubemodSystemNamespace;
    /** Where rules' references are looked up (cluster mode). */
    private volatile ReferenceSource references;

    public RuleStore(String systemNamespace) {
        this(systemNamespace, AllowedUrls.NONE, KinitirasOptions.DEFAULTS);
    }

    /**
     * Calling kinitiras policies' http references under the {@code allowHttpRef} prefixes, running the policies with
     * the administrator's {@code kinitiras} settings.
     */
    public RuleStore(String systemNamespace, AllowedUrls allowHttpRef, KinitirasOptions kinitiras) {
        this(systemNamespace, () -> Scripts.host(ScriptLimits.defaults()), allowHttpRef, kinitiras);
    }

    /** {@code scriptHosts} makes the script host; a test's may fail. */
    RuleStore(String systemNamespace, Supplier<ScriptHost> scriptHosts) {
        this(systemNamespace, scriptHosts, AllowedUrls.NONE, KinitirasOptions.DEFAULTS);
    }

    private RuleStore(String systemNamespace, Supplier<ScriptHost> scriptHosts, AllowedUrls allowHttpRef,
                      KinitirasOptions kinitiras) {
        this.systemNamespace = systemNamespace;
        HttpAnswers httpAnswers = externalData.httpReferences(allowHttpRef);
        this.newFamilies = () -> Families.create(scriptHosts, httpAnswers, kinitiras);
        Supplier<ScriptHost> hosts = () -> {
            ScriptHost host = scriptHosts.get();
            host.onStarted(this::scriptStarted);
            return host;
        };
        this.families = Families.create(hosts, httpAnswers, kinitiras);
        this.shadowFamilies = Families.create(hosts, httpAnswers, kinitiras);
        this.snapshot = new AtomicReference<>(assembly().assemble(RuleSet.EMPTY));
    }

    @Override
    public List<Family<?>> families() {
        return families;
    }

    /** Writes the metrics of the external data Providers in force (Prometheus text). */
    public void writeMetrics(StringBuilder out) {
        externalData.writeMetrics(out);
    }

    /**
     * Sets the namespace whose api.kubemod.io rules are cluster-wide (null: none, the default); before the first
     * rule arrives.
     */
    public void kubemodSystemNamespace(String namespace) {
        this.kubemodSystemNamespace = namespace;
    }

    /** Sets where rules' references are looked up; before the source syncs. */
    public void references(ReferenceSource source) {
        this.references = source;
    }

    /** The snapshot to decide a request with. */
    public Engine engine() {
        return snapshot.get().engine();
    }

    /** The snapshot in force: its engine, its rules' modes, and the Shadow rules' snapshot. */
    public Snapshot snapshot() {
        return snapshot.get();
    }

    /** How this store's rule sets become snapshots, with the settings and sources in force now. */
    private RuleAssembly assembly() {
        return assembly(families, shadowFamilies, compiled);
    }

    private RuleAssembly assembly(List<Family<?>> on, List<Family<?>> shadowOn, CompiledRules into) {
        ReferenceSource source = references;
        return new RuleAssembly(systemNamespace, kubemodSystemNamespace, externalData,
                source == null ? ReferenceResolver.NONE : source, into, on, shadowOn);
    }

    /** For an impact scan: new instances of the families, as this store's (the scan closes them). */
    @Override
    public List<Family<?>> newFamilies() {
        return newFamilies.get();
    }

    /**
     * For an impact scan: the store's settings, external data and references on the scan's {@code families},
     * compiling afresh (the store's compilations are its builds' own).
     */
    @Override
    public RuleAssembly assembly(List<Family<?>> families) {
        return assembly(families, List.of(), new CompiledRules());
    }

    /**
     * Compiles a source's rule as this store's engines do: what its namespace forbids is a problem too, and so is a
     * reference the reference source is known to refuse. The compilation is kept for the next build, which forgets
     * what it does not hold.
     */
    public RuleCompilation compile(ModRule rule) {
        return compile(rule, compiled);
    }

    private RuleCompilation compile(ModRule rule, CompiledRules into) {
        ReferenceSource source = references;
        return ReferenceScope.compile(rule, systemNamespace,
                source == null ? ReferenceScope.Refusal.NONE : source::refusal, into);
    }

    /**
     * As {@link #compile(ModRule)}, and at admission: a valid rule's references are refused where its author may not
     * read them (cluster mode; a folder's files are the administrator's), or the rule would read for them (F12).
     * Compiled afresh and not kept: a rule checked at admission may never be stored, and no build would forget it.
     */
    public RuleCompilation compile(ModRule rule, Requester author) {
        RuleCompilation compilation = compile(rule, new CompiledRules());
        ReferenceSource source = references;
        if (!compilation.ok() || source == null || rule.spec().references().isEmpty()) {
            return compilation;
        }
        String namespace = Engine.clusterWide(rule.namespace(), systemNamespace) ? "" : rule.namespace();
        var problems = new java.util.ArrayList<RuleCompilation.Problem>();
        var references = rule.spec().references();
        for (int i = 0; i < references.size(); i++) {
            int at = i;
            source.unreadable(author, namespace, references.get(i).apiVersion(), references.get(i).kind())
                    .ifPresent(why -> problems.add(new RuleCompilation.Problem("spec.references[" + at + "]", 0, why)));
        }
        return new RuleCompilation(compilation.rule(), problems);
    }

    /** Rules held but not in force: refused when put, or disabled by the snapshot in force. */
    public int notReadyCount() {
        int disabled = snapshot.get().disabled().size();
        synchronized (this) {
            return refused.size() + disabled;
        }
    }

    /** Whether the source has delivered its initial state and a snapshot of it is in force (the readiness probe). */
    public synchronized boolean isReady() {
        return ready;
    }

    @Override
    public RuleCompilation put(String key, ModRule rule, RuleControls ruleControls) {
        RuleCompilation compilation = compile(rule); // not under the lock: /readyz and other sources must not wait
        synchronized (this) {
            ModRule previous = compilation.ok() ? rules.put(key, rule) : rules.remove(key);
            if (compilation.ok()) {
                controls.put(key, ruleControls);
                refused.remove(key);
            } else {
                controls.remove(key);
                refused.add(key);
                LOG.warning("ModRule " + rule.id() + " from " + key + " is invalid and skipped: "
                        + compilation.errors());
            }
            if (compilation.ok() || previous != null) {
                changed();
            }
        }
        return compilation;
    }

    @Override
    public synchronized <R> Optional<String> put(String key, Family<R> family, R rule, RuleControls ruleControls) {
        Optional<String> refusal = refusal(family, rule);
        if (refusal.isPresent()) {
            LOG.warning(refusal.get() + " (from " + key + ")");
            remove(key);
            refused.add(key);
            return refusal;
        }
        refused.remove(key);
        familyRules.computeIfAbsent(family.family(), f -> new TreeMap<>()).put(key, rule);
        controls.put(key, ruleControls);
        changed();
        return refusal;
    }

    /**
     * Why this store would not run a family's rule: the tenant-scripts option (JavaScript runs in this process), and
     * the kinds the server may read.
     */
    private synchronized <R> Optional<String> refusal(Family<R> family, R rule) {
        return rule instanceof ScriptRule script ? scriptRefusal(script, script.namespace())
                : referenceRefusal(family, rule);
    }

    /**
     * For an impact scan: why this store would keep the one rule of {@code single} out of force (a ModRule's
     * compilation problems, the tenant-scripts option, a kind the server may not read), or empty. A rule the server
     * would not run is not run by a scan either.
     */
    @Override
    public Optional<String> refusal(RuleSet single) {
        for (ModRule rule : single.rules().values()) {
            RuleCompilation compilation = compile(rule, new CompiledRules());
            if (!compilation.ok()) {
                return Optional.of(compilation.errors().stream().map(RuleCompilation.Problem::toString)
                        .collect(java.util.stream.Collectors.joining("; ")));
            }
        }
        for (Family<?> family : families) {
            Optional<String> refused = refusal(family, single);
            if (refused.isPresent()) {
                return refused;
            }
        }
        return Optional.empty();
    }

    private <R> Optional<String> refusal(Family<R> family, RuleSet single) {
        for (R rule : single.familyRules(family).values()) {
            Optional<String> refused = refusal(family, rule);
            if (refused.isPresent()) {
                return refused;
            }
        }
        return Optional.empty();
    }

    /**
     * At admission (cluster mode), why a family's rule may not be admitted because of a kind it reads: one the reference
     * source refuses, or one its author may not read in the namespace it reads (F12, as for a ModRule's references).
     */
    public <R> Optional<String> unreadableReference(Family<R> family, R rule, String namespace, Requester author) {
        ReferenceSource source = references;
        if (source == null) {
            return Optional.empty();
        }
        Optional<String> refused = referenceRefusal(family, rule);
        if (refused.isPresent()) {
            return refused;
        }
        for (Family.ReferencedKind kind : family.referencedKinds(rule)) {
            Optional<String> why = source.unreadable(author, kind.clusterWide() ? "" : namespace, kind.apiVersion(),
                    kind.kind());
            if (why.isPresent()) {
                return Optional.of(family.id(rule) + " reads " + kind.key() + ": " + why.get());
            }
        }
        return Optional.empty();
    }

    /**
     * Why a family's rule may not run because of a kind it reads: one the reference source is known to refuse (not in
     * {@code --allow-references}, or cluster-scoped for a namespaced rule), as a ModRule referencing it is refused.
     */
    private <R> Optional<String> referenceRefusal(Family<R> family, R rule) {
        ReferenceSource source = references;
        if (source == null) {
            return Optional.empty();
        }
        for (Family.ReferencedKind kind : family.referencedKinds(rule)) {
            Optional<String> refused = source.refusal(kind.apiVersion(), kind.kind(), kind.clusterWide());
            if (refused.isPresent()) {
                return Optional.of(family.id(rule) + " reads " + kind.key() + ": " + refused.get());
            }
        }
        return Optional.empty();
    }

    /** Sets which tenant namespaces may run script rules; before the sources deliver rules. */
    public synchronized void tenantScripts(TenantScripts allowed) {
        this.tenantScripts = allowed;
    }

    /** Why this store will not run {@code rule} living in {@code namespace}, or empty (as {@link #put}). */
    public synchronized Optional<String> scriptRefusal(ScriptRule rule, String namespace) {
        return tenantScripts.refusal(rule, namespace, systemNamespace);
    }

    @Override
    public synchronized void putProvider(String key, Provider provider) {
        providers.put(key, provider);
        externalData.use(providers.values());
    }

    @Override
    public synchronized void remove(String key) {
        refused.remove(key);
        if (providers.remove(key) != null) {
            externalData.use(providers.values());
        }
        controls.remove(key);
        boolean removed = rules.remove(key) != null;
        for (Map<String, Object> byKey : familyRules.values()) {
            removed |= byKey.remove(key) != null;
        }
        if (removed) {
            changed();
        }
    }

    @Override
    public void synced() {
        CompletableFuture<Void> build;
        synchronized (this) {
            if (synced) {
                return;
            }
            synced = true;
            build = queueBuild();
        }
        await(build);
    }

    /**
     * Applies several changes as one: no build starts before the last of them (builds read the rules only outside a
     * batch), and returns once they are in the engine (if synced). The changes run without the store's lock, each
     * taking it briefly: a source that reads files meanwhile stalls no request, probe or other source.
     */
    public void batch(Consumer<RuleSink> changes) {
        synchronized (this) {
            batchDepth++;
        }
        CompletableFuture<Void> build = null;
        try {
            changes.accept(this);
        } finally {
            synchronized (this) {
                batchDepth--;
                if (batchDepth == 0) {
                    notifyAll(); // a build waiting for the batch to end
                    if (synced) {
                        build = queueBuild();
                    }
                }
            }
        }
        if (build != null) {
            await(build);
        }
    }

    private void changed() {
        if (synced && batchDepth == 0) {
            queueBuild();
        }
    }

    /** Returns the build that has not started yet, or queues one (none once closed). Called holding the lock. */
    private CompletableFuture<Void> queueBuild() {
        if (closed) {
            return CompletableFuture.completedFuture(null);
        }
        if (pendingBuild == null) {
            pendingBuild = CompletableFuture.runAsync(this::build, builder);
        }
        return pendingBuild;
    }

    private void build() {
        RuleSet set;
        synchronized (this) {
            while (batchDepth > 0) {
                // A snapshot never holds half a batch: this build reads the rules once the batch ended (which then
                // finds it pending and waits for it).
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            pendingBuild = null; // changes from now on need a new build
            var byFamily = new HashMap<RuleFamily, SortedMap<String, ?>>();
            familyRules.forEach((family, byKey) -> byFamily.put(family, new TreeMap<>(byKey)));
            set = new RuleSet(rules, byFamily, controls);
            warnAboutDuplicates();
        }
        Snapshot next;
        try {
            // Not under the lock: put, remove and isReady (the readiness probe) must not wait for the build.
            next = assembly().assemble(set);
        } catch (RuntimeException e) {
            // The previous snapshot stays in force; the next change tries again.
            LOG.log(Level.SEVERE, "building the rule engine from " + set.rules().size() + " rules failed", e);
            throw e;
        }
        next.disabled().forEach((key, why) -> LOG.warning("the rule from " + key + " is disabled: " + why));
        snapshot.set(next);
        compiled.retain(set.rules().values());
        synchronized (this) {
            ready = synced;
        }
        snapshotListeners.forEach(listener -> listener.accept(next));
    }

    @Override
    public void onSnapshot(Consumer<Snapshot> listener) {
        snapshotListeners.add(listener);
    }

    @Override
    public void onScriptStarts(BiConsumer<String, Optional<String>> listener) {
        startListeners.add(listener);
    }

    /** Tells the listeners how the start of {@code rule} ended, under each key that still holds it. */
    private void scriptStarted(ScriptRule rule, Optional<String> failure) {
        List<String> keys;
        synchronized (this) {
            keys = familyRules.values().stream().flatMap(byKey -> byKey.entrySet().stream())
                    .filter(e -> e.getValue().equals(rule)).map(Map.Entry::getKey).toList();
        }
        keys.forEach(key -> startListeners.forEach(listener -> listener.accept(key, failure)));
    }

    /** The engine knows a rule by namespace and name: two sources of one name would silently shadow each other. */
    private void warnAboutDuplicates() {
        var keyById = new HashMap<String, String>();
        rules.forEach((key, rule) -> {
            String other = keyById.put(rule.id(), key);
            if (other != null) {
                LOG.warning("ModRule " + rule.id() + " comes from both " + other + " and " + key + "; only the one from "
                        + key + " is used");
            }
        });
    }

    /**
     * Stops building (changes from now on are kept but not built) and closes the script rules' host once the builds
     * already queued are done. The last snapshot stays in force, but its script rules fail from then on: close the
     * store after the server.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
            families.forEach(Family::close);
            shadowFamilies.forEach(Family::close);
        }, builder);
        builder.shutdown();
        await(closing);
        externalData.close();
    }

    private static void await(CompletableFuture<Void> build) {
        try {
            build.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("building the rule engine failed: " + e.getCause(), e.getCause());
        }
    }
}
