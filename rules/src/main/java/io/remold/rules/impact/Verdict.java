package io.remold.rules.impact;

import jakarta.json.JsonArray;

/**
 * What one rule would do (Shadow, Warn, or an impact scan) or did to one object: change it (the RFC 6902 patch of
 * that rule alone), refuse it (the message), fail (the error, as the webhook would report it), or leave it as it is.
 */
public sealed interface Verdict {
    record Changes(JsonArray patch) implements Verdict {
    }

    record Refuses(String message) implements Verdict {
    }

    record Fails(String error) implements Verdict {
    }

    record Unchanged() implements Verdict {
    }

    Verdict UNCHANGED = new Unchanged();
}
