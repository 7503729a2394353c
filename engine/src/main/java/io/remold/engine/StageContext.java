package io.remold.engine;

import io.remold.templating.ExternalData;

import java.util.List;
import java.util.Set;

/**
 * One admission request as a {@link Stage} sees it. {@code external} is the engine's view of the request's external
 * data (shared with the ModRules, so all share one wait bound); {@code references} is where the engine's ModRules
 * look their {@code spec.references} up, for a family whose rules read other objects (each with the scope rules of
 * {@link ReferenceScope}); {@code deadlineNanos} ({@link System#nanoTime()}) is
 * the request's time budget, shared too: once it is spent, rules not yet run fail (a mutation is skipped, a validation
 * refuses), with why in their outcome. {@code warned} names the rules in mode Warn (by outcome name). A stage adds what it did to {@code outcomes} (a rule that matched always; when
 * the request asks for an {@linkplain #explain() explanation}, also a rule that did not) and a rejection per rule that
 * refuses the request to {@code rejections}. One request, one thread.
 */
public record StageContext(AdmissionRequest request, ExternalData external, ReferenceResolver references,
                           long deadlineNanos, List<RuleOutcome> outcomes, List<Rejection> rejections,
                           Set<String> warned) {
    public StageContext {
        warned = Set.copyOf(warned);
    }

    /** A request's context in an engine whose rules are all enforced. */
    public StageContext(AdmissionRequest request, ExternalData external, ReferenceResolver references,
                        long deadlineNanos, List<RuleOutcome> outcomes, List<Rejection> rejections) {
        this(request, external, references, deadlineNanos, outcomes, rejections, Set.of());
    }

    /** Whether the request asks for a reason per rule. */
    public boolean explain() {
        return request.explain();
    }

    /**
     * Whether a refusal of the rule outcomes name {@code rule} refuses the request: false for a rule in mode Warn,
     * whose refusal only warns, so that a family that stops at its first refusal goes on past it.
     */
    public boolean enforced(String rule) {
        return !warned.contains(rule);
    }
}
