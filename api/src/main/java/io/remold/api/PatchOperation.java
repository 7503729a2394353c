package io.remold.api;

import java.util.Objects;

/** One entry of {@code spec.patch}; {@code value} is template source, {@code null} for remove. */
public record PatchOperation(PatchOp op, String select, String path, String value) {
    public PatchOperation {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(path, "path");
    }
}
