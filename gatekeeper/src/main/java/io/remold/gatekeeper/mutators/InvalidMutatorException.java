package io.remold.gatekeeper.mutators;

import io.remold.api.InvalidFieldException;

/**
 * A mutator manifest Gatekeeper would refuse: {@code field} is the path of the offending field in the manifest
 * ({@code spec.location}, {@code spec.parameters.assign}, ...) and {@code reason} Gatekeeper's wording.
 */
public final class InvalidMutatorException extends InvalidFieldException {
    public InvalidMutatorException(String field, String reason) {
        super(field, reason);
    }
}
