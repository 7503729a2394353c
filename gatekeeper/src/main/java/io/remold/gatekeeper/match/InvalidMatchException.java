package io.remold.gatekeeper.match;

import io.remold.api.InvalidFieldException;

/**
 * A {@code match} or {@code applyTo} Gatekeeper would refuse: {@code field} is relative to that block ({@code
 * kinds[0].apiGroups}, {@code [1].operations[0]}, ...), {@code reason} Gatekeeper's wording.
 */
public final class InvalidMatchException extends InvalidFieldException {
    public InvalidMatchException(String field, String reason) {
        super(field, reason);
    }
}
