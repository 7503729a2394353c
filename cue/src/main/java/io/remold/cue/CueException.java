package io.remold.cue;

/** CUE refused a policy or an evaluation (its message and position), or the evaluation hit a bound. */
public class CueException extends Exception {
    public CueException(String message) {
        super(message);
    }

    public CueException(String message, Throwable cause) {
        super(message, cause);
    }
}
