package io.remold.cli.suite;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class UnifiedDiffTest {
    private static final String TWENTY = lines(1, 20);

    private static String lines(int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(i -> "l" + i + "\n").collect(Collectors.joining());
    }

    static Stream<Arguments> diffs() {
        return Stream.of(
                arguments("equal", "a\nb\n", "a\nb\n", ""),
                arguments("a line changed, with its context", "a\nb\nc\n", "a\nB\nc\n",
                        "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"),
                arguments("added at the end", "a\n", "a\nb\n", "@@ -1,1 +1,2 @@\n a\n+b\n"),
                arguments("from nothing", "", "a\n", "@@ -0,0 +1,1 @@\n+a\n"),
                // changes more than twice the context apart are two hunks
                arguments("two hunks", TWENTY, TWENTY.replace("l2\n", "x\n").replace("l18\n", ""),
                        "@@ -1,5 +1,5 @@\n l1\n-l2\n+x\n l3\n l4\n l5\n@@ -15,6 +15,5 @@\n l15\n l16\n l17\n-l18\n"
                                + " l19\n l20\n"),
                // closer changes share one hunk
                arguments("one hunk", TWENTY, TWENTY.replace("l5\n", "x\n").replace("l10\n", "y\n"),
                        "@@ -2,12 +2,12 @@\n l2\n l3\n l4\n-l5\n+x\n l6\n l7\n l8\n l9\n-l10\n+y\n l11\n l12\n l13\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("diffs")
    void diffs(String name, String from, String to, String hunks) {
        String expected = hunks.isEmpty() ? "" : "--- a\n+++ b\n" + hunks;
        assertThat(UnifiedDiff.of("a", from, "b", to), equalTo(expected));
    }
}
