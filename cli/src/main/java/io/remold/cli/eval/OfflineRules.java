package io.remold.cli.eval;

import io.remold.cli.UsageException;
import io.remold.engine.CompiledRules;
import io.remold.engine.Family;
import io.remold.rules.Families;
import io.remold.rules.RuleAssembly;
import io.remold.scripting.ScriptHost;
import io.remold.scripting.ScriptLimits;
import io.remold.scripting.ScriptRule;
import io.remold.scripting.Scripts;

import jakarta.json.JsonObject;

import java.time.Duration;
import java.util.List;

/**
 * The runtime rules run on offline ({@code eval}, {@code preview}): the families as the server makes them, with
 * references, external data and http answers from files, and the script host (seeded with {@code --state}) that
 * this closes. Every file is read when opened, so that a broken one is an input error before any rule runs.
 */
public final class OfflineRules implements AutoCloseable {
    /** The server's default system namespace, whose script rules always run. */
    static final String SYSTEM_NAMESPACE = "remold-system";

    /** Offline, a cold JVM's first script calls are slow: the bounds stay, with a deadline fit for that. */
    private static final ScriptLimits SCRIPT_LIMITS = new ScriptLimits(Duration.ofSeconds(10),
            Duration.ofSeconds(30), ScriptLimits.defaults().statements(), ScriptLimits.defaults().allocatedBytes(), 2);

    private final ScriptHost scripts;
    private final RuleAssembly assembly;

    private OfflineRules(ScriptHost scripts, RuleAssembly assembly) {
        this.scripts = scripts;
        this.assembly = assembly;
    }

    /** The runtime of {@code loaded}'s rules, refusing the scripts the server would refuse. */
    public static OfflineRules open(RuleFiles.Loaded loaded, RuleOptions options) {
        if (options.tenantScripts() != null) {
            for (var script : loaded.rulesOf(ScriptRule.class)) {
                // As the server refuses it at admission: offline commands and the server agree on which scripts run.
                options.tenantScripts().refusal(script, script.namespace(), SYSTEM_NAMESPACE).ifPresent(why -> {
                    throw new UsageException(why);
                });
            }
        }
        FileExternalData external = FileExternalData.read(options.externals(), loaded.providers());
        var references = FileReferences.read(options.references(), ClusterObjects.read(options.cluster()));
        var http = FileHttpAnswers.read(options.http(), options.allowHttpRef());
        JsonObject state = options.state() == null ? null : Manifests.object("--state", options.state());
        ScriptHost scripts = loaded.rulesOf(ScriptRule.class).isEmpty() ? null : Scripts.host(SCRIPT_LIMITS);
        // The Shadow rules' own instances (as the server's): their script host is made only for a Shadow script,
        // seeded with the same state.
        List<Family<?>> shadowFamilies = Families.create(() -> seeded(Scripts.host(SCRIPT_LIMITS), state), http,
                options.kinitiras());
        var assembly = new RuleAssembly(SYSTEM_NAMESPACE, options.kubemodSystemNamespace(), external, references,
                new CompiledRules(), Families.create(() -> scripts, http, options.kinitiras()), shadowFamilies);
        var rules = new OfflineRules(scripts, assembly);
        try {
            if (scripts != null) {
                seeded(scripts, state);
            }
            return rules;
        } catch (RuntimeException e) {
            rules.close();
            throw e;
        }
    }

    /** {@code host}, seeded with {@code --state} when given. */
    private static ScriptHost seeded(ScriptHost host, JsonObject state) {
        if (state != null) {
            host.seed(state);
        }
        return host;
    }

    /** The families and their runtime: assemble a rule set, or one rule alone for an impact scan. */
    public RuleAssembly assembly() {
        return assembly;
    }

    @Override
    public void close() {
        if (scripts != null) {
            scripts.close();
        }
        assembly.shadowFamilies().forEach(Family::close);
    }
}
