package io.remold.cli;

import io.remold.cli.eval.ExamplesTest.Run;
import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

class MainTest {
    static Run run(String... args) {
        return Run.of(Main::run, args);
    }

    @Test
    void dispatchesEvalConvertAndVersion() {
        Run eval = run("eval", "--help");
        assertThat(eval.exit(), is(0));
        assertThat(eval.out(), containsString("usage: remold eval --rules PATH"));
        Run convert = run("convert", "--help");
        assertThat(convert.exit(), is(0));
        assertThat(convert.out(), containsString("usage: remold convert --rules PATH"));
        Run version = run("version");
        assertThat(version.exit(), is(0));
        assertThat(version.out(), containsString("remold development"));
    }

    @Test
    void anUnknownCommandIsAUsageError() {
        Run serve = run("serve");
        assertThat(serve.exit(), is(2));
        assertThat(serve.err(), containsString("unknown command \"serve\""));
        assertThat(serve.err(), containsString("remold eval --help"));
    }

    @Test
    void noCommandPrintsTheUsage() {
        Run none = run();
        assertThat(none.exit(), is(0));
        assertThat(none.out(), containsString("remold convert --help"));
    }
}
