package io.remold.gatekeeper.path;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * Fuzzes the {@code location} parser: it refuses only with {@link LocationSyntaxException}, and what it reads formats
 * to a text that parses back to the same nodes ({@link Location#format}'s contract). Seeds: the locations of
 * Gatekeeper's conformance corpus and of examples/gatekeeper.
 */
class LocationFuzzTest {

    @FuzzTest
    void parse(byte[] input) {
        List<PathNode> nodes;
        try {
            nodes = Location.parse(new String(input, StandardCharsets.UTF_8));
        } catch (LocationSyntaxException e) {
            return;
        }
        assertThat(Location.parse(Location.format(nodes)), equalTo(nodes));
    }
}
