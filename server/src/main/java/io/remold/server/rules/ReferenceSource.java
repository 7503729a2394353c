package io.remold.server.rules;

import io.remold.engine.ReferenceResolver;

import java.util.Optional;
import java.util.Set;

/**
 * The references of the rules in force: answers look-ups from caches, and is told which kinds the current rules
 * reference (as {@code apiVersion kind}), so that it caches exactly those.
 */
public interface ReferenceSource extends ReferenceResolver {
    /** Called after each rule snapshot with every kind its rules reference; starts and stops caches to match. */
    void use(Set<String> kinds);

    /**
     * Why a rule ({@code clusterWide}: in the system namespace) may not reference {@code apiVersion kind}, when that is
     * known without asking the API server (so that the rule is refused at admission); empty when it may, or when only
     * evaluation can tell.
     */
    Optional<String> refusal(String apiVersion, String kind, boolean clusterWide);

    /**
     * Why {@code author} may not reference {@code apiVersion kind} in {@code namespace} ({@code ""}: every namespace,
     * for a cluster-wide rule): a rule may read only what its author may get and list; empty when they may. Asked
     * when a rule is admitted; when the answer cannot be had, it is a refusal.
     */
    Optional<String> unreadable(Requester author, String namespace, String apiVersion, String kind);
}
