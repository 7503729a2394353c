package io.remold.gatekeeper.convert;

/** Why a rule has no equivalent {@code remold.io} ModRule: the message names the construct. */
final class CannotConvert extends RuntimeException {
    CannotConvert(String reason) {
        super(reason, null, false, false);
    }
}
