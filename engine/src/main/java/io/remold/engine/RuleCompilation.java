package io.remold.engine;

import java.util.List;

/** The result of compiling one ModRule: ok, or the problems found, each naming its field. */
public record RuleCompilation(String rule, List<Problem> errors) {
    public RuleCompilation {
        errors = List.copyOf(errors);
    }

    /**
     * One problem: {@code field} like {@code spec.match[1].select}, {@code position} the 0-based character offset
     * inside that field's text (0 when unknown), and the message.
     */
    public record Problem(String field, int position, String message) {
        @Override
        public String toString() {
            return field + (position > 0 ? " (at " + position + ")" : "") + ": " + message;
        }
    }

    public boolean ok() {
        return errors.isEmpty();
    }
}
