package io.remold.server.eval;

/**
 * Reads the {@code --flag value} and {@code --flag=value} arguments of {@code eval} and {@code convert}, one at a
 * time; every problem is an {@link EvalException} naming the argument and its 1-based position.
 */
public final class CommandLine {
    private final String[] args;
    private int next;
    private int position;
    private String flag;
    private String inline;

    public CommandLine(String[] args) {
        this.args = args;
    }

    /** Moves to the next argument; false after the last. Anything but a {@code --flag} is refused. */
    public boolean next() {
        if (next >= args.length) {
            return false;
        }
        String arg = args[next++];
        position = next;
        if (!arg.startsWith("--") || arg.length() == 2) {
            throw new EvalException("unexpected argument \"" + arg + "\" (argument " + position + ")");
        }
        int eq = arg.indexOf('=');
        flag = eq < 0 ? arg : arg.substring(0, eq);
        inline = eq < 0 ? null : arg.substring(eq + 1);
        return true;
    }

    public String flag() {
        return flag;
    }

    public int position() {
        return position;
    }

    /** The flag's value: what follows {@code =}, else the next argument unless that is a flag itself. */
    public String value() {
        if (inline != null) {
            return inline;
        }
        if (next < args.length && !args[next].startsWith("--")) {
            return args[next++];
        }
        throw new EvalException(flag + " needs a value (argument " + position + ")");
    }

    /** For a flag that takes no value: refuses {@code --flag=value}. */
    public void noValue() {
        if (inline != null) {
            throw new EvalException(flag + " takes no value (argument " + position + ")");
        }
    }

    /** The problem of a flag the command does not know. */
    public EvalException unknown() {
        return new EvalException("unknown option " + flag + " (argument " + position + ")");
    }

    /** A problem with the current flag's value: {@code message} and the argument's position. */
    public EvalException invalid(String message) {
        return new EvalException(message + " (argument " + position + ")");
    }
}
