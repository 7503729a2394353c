package io.remold.gatekeeper.mutators;

import io.remold.templating.ImageReference;
import io.remold.gatekeeper.ConformanceCorpus;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.Map;

/** Gatekeeper's AssignImage: how it splits an image reference ({@code image_split}) and mutates ({@code mutate}). */
class AssignImageConformanceTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    @Test
    void mutate() {
        ConformanceCorpus.run("assign_image", KNOWN_DEVIATIONS, Assertions::checkMutator, "mutate");
    }

    @Test
    void imageSplit() {
        ConformanceCorpus.run("assign_image", KNOWN_DEVIATIONS, c -> {
            JsonObject expect = c.getJsonObject("expect");
            var wanted = new ImageReference(expect.getString("domain"), expect.getString("path"),
                    expect.getString("tag"));
            var split = ImageReference.split(c.getString("image"));
            return split.equals(wanted) ? null : "expected " + wanted + ", got " + split;
        }, "image_split");
    }
}
