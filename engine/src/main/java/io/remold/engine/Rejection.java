package io.remold.engine;

import java.util.Objects;

/**
 * A rule that refused the request; {@code message} is null when the rule has none or it failed to render. The
 * webhook's message names it {@code namespace/name}; {@code family} and {@code rule} say which rule it is as its
 * outcome names it (a rule without a namespace is named under the object's namespace in the message only), so that
 * a rule's mode (Warn) and its verdict can be told from its rejection.
 */
public record Rejection(String namespace, String name, String message, RuleFamily family, String rule) {
    public Rejection {
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(rule, "rule");
    }

    /** A ModRule's rejection, whose outcome is named {@code namespace/name}. */
    public Rejection(String namespace, String name, String message) {
        this(namespace, name, message, RuleFamily.MODRULE, namespace + "/" + name);
    }

    /** KubeMod's form: {@code namespace/name} or {@code namespace/name: "message"}. */
    @Override
    public String toString() {
        String id = namespace + "/" + name;
        return message == null ? id : id + ": \"" + message + "\"";
    }
}
