package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.ConformanceCorpus;
import org.junit.jupiter.api.Test;

import java.util.Map;

/** Gatekeeper's AssignMetadata ({@code assign_metadata}): adds a label or annotation, never changes one. */
class AssignMetadataConformanceTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    @Test
    void mutate() {
        ConformanceCorpus.run("assign_metadata", KNOWN_DEVIATIONS, Assertions::checkMutator, "mutate");
    }
}
