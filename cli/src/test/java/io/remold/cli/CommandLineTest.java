package io.remold.cli;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Optional;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CommandLineTest {
    @Test
    void readsSpacedInlineAndBareFlagsInOrder() {
        var line = new CommandLine(new String[]{"--rules", "a", "--output=json", "--explain", "--ref", "x=y"});
        var read = new ArrayList<String>();
        while (line.next()) {
            read.add(line.flag() + "@" + line.position() + "=" + line.optionalValue().orElse("(bare)"));
        }
        assertThat(read, contains("--rules@1=a", "--output@3=json", "--explain@4=(bare)",
                "--ref@5=x=y"));
    }

    @Test
    void problemsNameTheArgumentAndItsPosition() {
        var stray = new CommandLine(new String[]{"--rules", "a", "b"});
        stray.next();
        stray.value();
        assertThat(assertThrows(UsageException.class, stray::next).getMessage(),
                is("unexpected argument \"b\" (argument 3)"));

        var missing = new CommandLine(new String[]{"--resource", "--explain"});
        missing.next();
        assertThat(assertThrows(UsageException.class, missing::value).getMessage(),
                is("--resource needs a value (argument 1)"));
        assertThat(missing.next(), is(true));
        assertThat(missing.optionalValue(), is(Optional.empty()));

        var inline = new CommandLine(new String[]{"--help=yes"});
        inline.next();
        assertThat(assertThrows(UsageException.class, inline::noValue).getMessage(),
                is("--help takes no value (argument 1)"));
        assertThat(inline.unknown().getMessage(), is("unknown option --help (argument 1)"));
        assertThat(new CommandLine(new String[0]).next(), is(false));
        assertThat(assertThrows(UsageException.class, () -> new CommandLine(new String[]{"--"}).next()).getMessage(),
                is("unexpected argument \"--\" (argument 1)"));
    }
}
