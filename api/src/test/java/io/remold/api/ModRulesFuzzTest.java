package io.remold.api;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.nio.charset.StandardCharsets;

/**
 * Fuzzes the ModRule reader (YAML and JSON, multi-document, both API groups): every problem must be a positioned
 * {@link ModRuleException}. Seeds: the ModRules of the KubeMod corpus and of examples/.
 */
class ModRulesFuzzTest {

    @FuzzTest
    void parse(byte[] input) {
        try {
            ModRules.parse(new String(input, StandardCharsets.UTF_8), "fuzz");
        } catch (ModRuleException e) {
            // documented
        }
    }
}
