package io.remold.cli.preview;

import io.remold.engine.Family.TargetKind;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** Which kinds a rule's scan lists: the rule's targets narrowed by {@code --kind}. */
final class ScanKinds {
    private ScanKinds() {
    }

    /**
     * The kinds to list for a rule whose targets are {@code targets} (empty: any kind) under {@code --kind}
     * {@code flags} (empty: not given). Empty: any kind; an empty set: none of the rule's kinds is among the flags.
     */
    static Optional<Set<TargetKind>> narrow(Optional<Set<TargetKind>> targets, Set<TargetKind> flags) {
        if (flags.isEmpty()) {
            return targets;
        }
        if (targets.isEmpty()) {
            return Optional.of(flags);
        }
        var kinds = new LinkedHashSet<TargetKind>();
        for (TargetKind flag : flags) {
            for (TargetKind target : targets.get()) {
                boolean sameKind = target.kind() != null ? target.kind().equals(flag.kind())
                        : target.resource().equals(plural(flag.kind()));
                boolean sameGroup = target.group() == null || flag.group() == null
                        || target.group().equals(flag.group());
                if (sameKind && sameGroup) {
                    kinds.add(new TargetKind(flag.group() != null ? flag.group() : target.group(), flag.kind(), null));
                }
            }
        }
        return Optional.of(Set.copyOf(kinds));
    }

    /** Whether an object of {@code apiVersion} and {@code kind} is of {@code target}. */
    static boolean matches(TargetKind target, String apiVersion, String kind) {
        boolean sameKind = target.kind() != null ? target.kind().equals(kind)
                : target.resource().equals(plural(kind));
        return sameKind && (target.group() == null || target.group().equals(TargetKind.groupOf(apiVersion)));
    }

    /**
     * A kind's resource name by English rules (what discovery answers for nearly every kind): offline there is no
     * discovery to ask.
     */
    static String plural(String kind) {
        return pluralOf(kind.toLowerCase(Locale.ROOT));
    }

    /** How the summary counts a kind: {@code 3 Deployments}, {@code 2 NetworkPolicies}. */
    static String pluralName(String kind) {
        return pluralOf(kind);
    }

    private static String pluralOf(String word) {
        String lower = word.toLowerCase(Locale.ROOT);
        if (lower.endsWith("ss") || lower.endsWith("x") || lower.endsWith("ch") || lower.endsWith("sh")) {
            return word + "es";
        }
        if (lower.endsWith("s")) {
            return word; // Endpoints
        }
        if (lower.endsWith("y") && lower.length() > 1 && "aeiou".indexOf(lower.charAt(lower.length() - 2)) < 0) {
            return word.substring(0, word.length() - 1) + "ies";
        }
        return word + "s";
    }
}
