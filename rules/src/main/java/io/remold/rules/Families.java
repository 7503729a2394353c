package io.remold.rules;

import io.remold.engine.Family;
import io.remold.gatekeeper.GatekeeperFamily;
import io.remold.kinitiras.HttpAnswers;
import io.remold.kinitiras.KinitirasFamily;
import io.remold.kinitiras.KinitirasOptions;
import io.remold.scripting.ScriptFamily;
import io.remold.scripting.ScriptHost;

import java.util.List;
import java.util.function.Supplier;

/**
 * The rule families beside ModRules, in the one place that names them: in the order their stages run after the
 * ModRules (Gatekeeper's mutators, kinitiras's policies, then scripts, which see what the declarative families did),
 * which is why this is an explicit list rather than a {@code ServiceLoader} lookup (whose order is the class path's).
 * A new family is a class implementing {@link Family} in its module, and a line here.
 */
public final class Families {
    private Families() {
    }

    /**
     * A new instance of each family for one owner, which closes them; scripts run on hosts from {@code scriptHosts};
     * kinitiras's http references are refused, and its policies run with Remold's defaults.
     */
    public static List<Family<?>> create(Supplier<ScriptHost> scriptHosts) {
        return create(scriptHosts, HttpAnswers.REFUSED, KinitirasOptions.DEFAULTS);
    }

    /**
     * As {@link #create(Supplier)}, kinitiras's http references answered by {@code httpAnswers} and its policies run
     * with the administrator's {@code kinitiras} settings.
     */
    public static List<Family<?>> create(Supplier<ScriptHost> scriptHosts, HttpAnswers httpAnswers,
                                         KinitirasOptions kinitiras) {
        return List.of(new GatekeeperFamily(), new KinitirasFamily(httpAnswers, kinitiras),
                new ScriptFamily(scriptHosts));
    }

    /** As {@link #create(Supplier)}, scripts on hosts with the default limits. */
    public static List<Family<?>> create() {
        return List.of(new GatekeeperFamily(), new KinitirasFamily(), new ScriptFamily());
    }
}
