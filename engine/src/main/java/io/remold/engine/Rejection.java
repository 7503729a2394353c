package io.remold.engine;

/** A Reject rule that matched; {@code message} is null when the rule has none or it failed to render. */
public record Rejection(String namespace, String name, String message) {

    /** KubeMod's form: {@code namespace/name} or {@code namespace/name: "message"}. */
    @Override
    public String toString() {
        String id = namespace + "/" + name;
        return message == null ? id : id + ": \"" + message + "\"";
    }
}
