package io.remold.api;

import com.code_intelligence.jazzer.junit.FuzzTest;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.nio.charset.StandardCharsets;

/** Fuzzes the Provider reader (YAML or JSON documents): every problem must be a {@link ModRuleException}. */
class ProviderFuzzTest {

    @FuzzTest
    void parse(byte[] input) {
        try {
            for (JsonValue document : YamlJson.parse(new String(input, StandardCharsets.UTF_8), "fuzz")) {
                if (document instanceof JsonObject manifest) {
                    Provider.fromJson(manifest, "fuzz");
                }
            }
        } catch (ModRuleException e) {
            // documented
        }
    }
}
