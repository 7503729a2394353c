package io.remold.server.log;

/** How log records are written: JSON lines, or text lines for a person. */
public enum LogFormat { json, text }
