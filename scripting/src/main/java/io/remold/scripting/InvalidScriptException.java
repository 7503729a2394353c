package io.remold.scripting;

import io.remold.api.InvalidFieldException;

/**
 * A script rule manifest that does not read or whose script does not compile: the field of the manifest (for example
 * {@code spec.js}) and why.
 */
public final class InvalidScriptException extends InvalidFieldException {
    InvalidScriptException(String field, String reason) {
        super(field, reason);
    }
}
