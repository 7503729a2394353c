package io.remold.api;

/** What a rule does when a reference finds nothing: skip the rule, fail it, or go on with an empty value. */
public enum OnMissing { skip, fail, empty }
