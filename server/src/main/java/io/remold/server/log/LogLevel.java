package io.remold.server.log;

import java.util.logging.Level;

/** The least severe of Remold's own records that are written; other libraries' stay at info. */
public enum LogLevel {
    error(Level.SEVERE), warn(Level.WARNING), info(Level.INFO), debug(Level.FINE);

    private final Level level;

    LogLevel(Level level) {
        this.level = level;
    }

    Level level() {
        return level;
    }
}
