package io.remold.scripting;

import io.remold.engine.Family;
import io.remold.engine.RuleFamily;
import jakarta.json.JsonObject;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Script rules as a rule family: one {@link ScriptStage} (mutation and validation) on a {@link ScriptHost}, which the
 * first compilation with a script rule creates (a server without scripts never loads GraalJS) and later ones reuse
 * (it drops the rules a set no longer has); {@link #close} closes it.
 */
public final class ScriptFamily implements Family<ScriptRule> {
    private static final List<Resource> RESOURCES = List.of(
            new Resource(Scripts.GROUP, Scripts.VERSION, Scripts.NAMESPACED, Scripts.PLURALS.get(0)),
            new Resource(Scripts.GROUP, Scripts.VERSION, Scripts.CLUSTER, Scripts.PLURALS.get(1)));

    private final Supplier<ScriptHost> hosts;
    /** Used on the compiling thread only, and closed there too. */
    private ScriptHost host;

    /** Hosts with the default limits. */
    public ScriptFamily() {
        this(() -> Scripts.host(ScriptLimits.defaults()));
    }

    /** {@code hosts} makes the host when the first script rule arrives. */
    public ScriptFamily(Supplier<ScriptHost> hosts) {
        this.hosts = hosts;
    }

    @Override
    public RuleFamily family() {
        return Scripts.FAMILY;
    }

    @Override
    public List<Resource> resources() {
        return RESOURCES;
    }

    @Override
    public String readyReason() {
        return "script compiled";
    }

    /** Also a {@code remold.io} ModRule of {@code type: Script}. */
    @Override
    public boolean owns(JsonObject manifest) {
        return Scripts.isScript(manifest);
    }

    @Override
    public ScriptRule parse(JsonObject manifest) {
        return Scripts.parse(manifest);
    }

    @Override
    public String id(ScriptRule rule) {
        return rule.id();
    }

    /** Its {@code kinds}: resources of any group; none means every kind. */
    @Override
    public Optional<Set<TargetKind>> targetKinds(ScriptRule rule) {
        if (rule.kinds().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(rule.kinds().stream().map(resource -> new TargetKind(null, null, resource))
                .collect(Collectors.toUnmodifiableSet()));
    }

    /** A script with {@code jsa_validate} refuses like a Reject rule: in its namespace, or anywhere when cluster-wide. */
    @Override
    public Optional<String> refusesIn(ScriptRule rule) {
        return rule.has(Scripts.VALIDATE) ? Optional.of(rule.clusterWide() ? "" : rule.namespace()) : Optional.empty();
    }

    /** Also a script without {@code jsa_validate}: its {@code jsa_mutate} may answer {@code Allowed: false}. */
    @Override
    public boolean canRefuse(ScriptRule rule) {
        return true;
    }

    @Override
    public Compiled compile(SortedMap<String, ScriptRule> rules) {
        if (host == null && !rules.isEmpty()) {
            host = hosts.get();
        }
        if (host == null) {
            return new Compiled(Optional.empty(), Map.of(), Set.of(), Optional.empty(), 0, Set.of());
        }
        ScriptStage stage = host.stage(rules.values());
        return new Compiled(Optional.of(stage), Map.of(), host.watchedKinds(), Optional.of(host), stage.ruleCount(),
                rules.values().stream().map(ScriptRule::id).collect(Collectors.toSet()));
    }

    @Override
    public void close() {
        if (host != null) {
            host.close();
        }
    }
}
