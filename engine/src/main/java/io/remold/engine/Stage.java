package io.remold.engine;

/**
 * A family of rules beside ModRules (Gatekeeper's mutators, scripts), plugged into the engine by one
 * {@code Engine.builder().stage(...)}: it runs in the mutating webhook when it is a {@link MutationStage}, in the
 * validating one when it is a {@link ValidationStage}, in both when it is both. Implementations are immutable and
 * thread-safe.
 */
public sealed interface Stage permits MutationStage, ValidationStage {
    /** The family its outcomes belong to. */
    RuleFamily family();

    /** The rules this stage holds. */
    int ruleCount();
}
