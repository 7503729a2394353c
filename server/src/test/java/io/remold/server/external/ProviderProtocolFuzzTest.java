package io.remold.server.external;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzzes the reading of a provider's answer, which a malicious or broken provider controls: every problem must be a
 * {@link ProviderProtocol.Refused} (the call fails), nothing else. Seeds: answers of each shape the protocol allows.
 */
class ProviderProtocolFuzzTest {

    @FuzzTest
    void response(byte[] body) {
        try {
            ProviderProtocol.response(body);
        } catch (ProviderProtocol.Refused e) {
            // documented: every key of the call fails with the reason
        }
    }
}
