package io.remold.gatekeeper.mutators;

/**
 * A mutator manifest Gatekeeper would refuse: {@code field} is the path of the offending field in the manifest
 * ({@code spec.location}, {@code spec.parameters.assign}, ...) and {@code reason} Gatekeeper's wording.
 */
public final class InvalidMutatorException extends RuntimeException {
    private final String field;
    private final String reason;

    public InvalidMutatorException(String field, String reason) {
        super(field + ": " + reason);
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
