package io.remold.api;

/**
 * A manifest that does not read, named by its offending field: {@code field} is the field's path ({@code
 * spec.location}, {@code kinds[0].apiGroups}; empty for the manifest as a whole) and {@code reason} why, in the
 * wording of the project the manifest comes from. Each rule family throws its own subclass, so callers can tell them
 * apart.
 */
public abstract class InvalidFieldException extends RuntimeException {
    private final String field;
    private final String reason;

    protected InvalidFieldException(String field, String reason) {
        super(field.isEmpty() ? reason : field + ": " + reason);
        this.field = field;
        this.reason = reason;
    }

    public final String field() {
        return field;
    }

    public final String reason() {
        return reason;
    }
}
