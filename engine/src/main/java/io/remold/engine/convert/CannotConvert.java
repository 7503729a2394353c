package io.remold.engine.convert;

/**
 * Why a rule has no equivalent {@code remold.io} ModRule: the message names the construct. Shared by the converters
 * of every family ({@code remold convert}).
 */
public final class CannotConvert extends RuntimeException {
    public CannotConvert(String reason) {
        super(reason, null, false, false);
    }
}
