package io.remold.kinitiras;

import io.remold.api.InvalidFieldException;

/** A kinitiras policy manifest that does not read, named by its field ({@code spec.overrideRules[0].overriders}). */
public final class InvalidPolicyException extends InvalidFieldException {
    public InvalidPolicyException(String field, String reason) {
        super(field, reason);
    }
}
