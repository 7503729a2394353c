package io.remold.scripting;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

/**
 * Which runtime GraalJS uses follows from the JVM's flags alone: the plain test run has no JVMCI and falls back to
 * the interpreter (no crash); scripting's compiled-runtime run (remold.expectedScriptRuntime=compiled) must get the
 * optimizing runtime, else its bound tests would silently test the interpreter again.
 */
class RuntimeModeTest {
    @Test
    void theEngineRunsInTheModeTheJvmWasStartedFor() {
        String name = Sandbox.Engines.shared().getImplementationName();
        if ("compiled".equals(System.getProperty("remold.expectedScriptRuntime"))) {
            assertThat(name, not(equalTo(Sandbox.Engines.INTERPRETED)));
        } else {
            assertThat(name, equalTo(Sandbox.Engines.INTERPRETED));
        }
    }

    @Test
    void theLogLineSaysWhyScriptsAreInterpreted() {
        assertThat(Sandbox.Engines.describe("GraalVM CE", true), containsString("optimizing runtime (GraalVM CE)"));
        assertThat(Sandbox.Engines.describe(Sandbox.Engines.INTERPRETED, false),
                containsString("interpreter mode: the JVM was started without JVMCI"));
        assertThat(Sandbox.Engines.describe(Sandbox.Engines.INTERPRETED, true),
                containsString("Graal's compiler is not on the upgrade module path"));
    }
}
