package io.remold.engine;

import java.util.Objects;

/**
 * The family of rules an outcome comes from, as users read it: ModRules are the engine's own ({@link #MODRULE}); a
 * {@link Stage} supplies its family's. {@code name} names one of its rules ({@code "script"}: "script X failed"),
 * {@code changedBy} heads the list of its rules that changed an object ("mutated by script(s)"), and {@code auditKey}
 * is the audit annotation that lists them ({@code scripted-by}).
 */
public record RuleFamily(String name, String changedBy, String auditKey) {
    public static final RuleFamily MODRULE = new RuleFamily("ModRule", "patched by ModRule(s)", "patched-by");

    public RuleFamily {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(changedBy, "changedBy");
        Objects.requireNonNull(auditKey, "auditKey");
    }
}
