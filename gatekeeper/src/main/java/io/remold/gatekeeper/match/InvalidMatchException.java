package io.remold.gatekeeper.match;

/**
 * A {@code match} or {@code applyTo} Gatekeeper would refuse: {@code field} is relative to that block ({@code
 * kinds[0].apiGroups}, {@code [1].operations[0]}, ...), {@code reason} Gatekeeper's wording.
 */
public final class InvalidMatchException extends RuntimeException {
    private final String field;
    private final String reason;

    public InvalidMatchException(String field, String reason) {
        super(field.isEmpty() ? reason : field + ": " + reason);
        this.field = field;
        this.reason = reason;
    }

    public String field() {
        return field;
    }

    public String reason() {
        return reason;
    }
}
