package io.remold.engine;

import java.util.List;
import java.util.Objects;

/**
 * One rule that wrote one changed field. {@code path} and {@code op} are the field's operation in the final patch
 * (the JSON Patch the webhook answers); {@code family} and {@code rule} name the rule as its outcome does
 * ({@code ModRule}, {@code shop/label-team}); {@code generation} is its {@code metadata.generation}, 0 when it has none
 * (a file rule without one); {@code reasons} say why it applied (its match items and what they selected, when the
 * request was explained and its family says). {@link Provenance#fields} lists a field once per rule that wrote it,
 * in the order they ran: the last one's value stands.
 */
public record FieldChange(String path, String op, String family, String rule, long generation, List<String> reasons) {
    public FieldChange {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(rule, "rule");
        reasons = List.copyOf(reasons);
    }
}
