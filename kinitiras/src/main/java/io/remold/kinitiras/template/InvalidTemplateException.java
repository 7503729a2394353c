package io.remold.kinitiras.template;

import io.remold.api.InvalidFieldException;

/**
 * A kinitiras {@code template} (override or validate) that kinitiras would refuse, or whose rendered CUE would not
 * compile: {@code field} is the path of the offending field in the policy ({@code
 * spec.overrideRules[0].overriders.template.type}) and {@code reason} why.
 */
public final class InvalidTemplateException extends InvalidFieldException {
    public InvalidTemplateException(String field, String reason) {
        super(field, reason);
    }
}
