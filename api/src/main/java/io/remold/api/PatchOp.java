package io.remold.api;

/** The JSON Patch operations a ModRule may use. */
public enum PatchOp { add, replace, remove }
