package io.remold.scripting;

/** A script rule manifest that does not read or whose script does not compile: the field and why. */
public final class InvalidScriptException extends RuntimeException {
    private final String field;
    private final String reason;

    InvalidScriptException(String field, String reason) {
        super(field + ": " + reason);
        this.field = field;
        this.reason = reason;
    }

    /** The field of the manifest, for example {@code spec.js}. */
    public String field() {
        return field;
    }

    public String reason() {
        return reason;
    }
}
