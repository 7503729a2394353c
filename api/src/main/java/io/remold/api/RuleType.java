package io.remold.api;

/** What a ModRule does to the objects it matches. */
public enum RuleType { Patch, Reject }
