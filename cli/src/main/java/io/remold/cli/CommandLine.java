package io.remold.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads {@code --flag value} and {@code --flag=value} arguments one at a time: the one flag parser of {@code eval},
 * {@code convert} and the server's {@code serve}. Every problem is a {@link UsageException} naming the argument and
 * its 1-based position.
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
            throw new UsageException("unexpected argument \"" + arg + "\" (argument " + position + ")");
        }
        int eq = arg.indexOf('=');
        flag = eq < 0 ? arg : arg.substring(0, eq);
        inline = eq < 0 ? null : arg.substring(eq + 1);
        return true;
    }

    /** {@link #next()}, refusing a flag that {@code flags} (the command's) lacks. */
    public boolean next(Set<String> flags) {
        if (!next()) {
            return false;
        }
        if (!flags.contains(flag)) {
            throw unknown();
        }
        return true;
    }

    /**
     * {@link #next(Set)} for a command that also takes operands (paths): the arguments before the next flag that
     * are not a flag's value go to {@code operands}, in order.
     */
    public boolean next(Set<String> flags, List<String> operands) {
        while (next < args.length && !args[next].startsWith("--")) {
            operands.add(args[next++]);
        }
        return next(flags);
    }

    public String flag() {
        return flag;
    }

    public int position() {
        return position;
    }

    /** The flag's value: what follows {@code =}, else the next argument unless that is a flag itself. */
    public String value() {
        return optionalValue().orElseThrow(() -> new UsageException(flag + " needs a value (argument " + position
                + ")"));
    }

    /** {@link #value}, or empty for a bare flag (the server reads one as {@code true}). */
    public Optional<String> optionalValue() {
        if (inline != null) {
            return Optional.of(inline);
        }
        if (next < args.length && !args[next].startsWith("--")) {
            return Optional.of(args[next++]);
        }
        return Optional.empty();
    }

    /** For a flag that takes no value: refuses {@code --flag=value}. */
    public void noValue() {
        if (inline != null) {
            throw new UsageException(flag + " takes no value (argument " + position + ")");
        }
    }

    /** {@code value} as a file name for the current flag; empty text is refused. */
    public Path path(String value) {
        if (value.isEmpty()) {
            throw invalid(flag + " needs a file name");
        }
        return Path.of(value);
    }

    /** {@code value} unless {@code previous} is set already: then {@code name} was given twice. */
    public <T> T once(String name, T previous, T value) {
        if (previous != null) {
            throw invalid(name + " given twice");
        }
        return value;
    }

    /** The problem of a flag the command does not know. */
    public UsageException unknown() {
        return new UsageException("unknown option " + flag + " (argument " + position + ")");
    }

    /** A problem with the current flag's value: {@code message} and the argument's position. */
    public UsageException invalid(String message) {
        return new UsageException(message + " (argument " + position + ")");
    }
}
