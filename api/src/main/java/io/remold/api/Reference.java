package io.remold.api;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of {@code spec.references}: another object (by {@code objectName}, a template) or the list of objects a
 * {@code labelSelector} selects, seen by the rule as {@code $.syntheticRefs.NAME} and {@code References.NAME}.
 * {@code namespace} (a template, may be null) is only allowed for rules in the system namespace.
 */
public record Reference(String name, String apiVersion, String kind, String objectName, String namespace,
                        Selector labelSelector, OnMissing onMissing) {
    public Reference {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(apiVersion, "apiVersion");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(onMissing, "onMissing");
    }

    /** A Kubernetes label selector: every {@code matchLabels} entry and every expression must hold. */
    public record Selector(Map<String, String> matchLabels, List<Requirement> matchExpressions) {
        public Selector {
            matchLabels = matchLabels == null ? Map.of() : Map.copyOf(matchLabels);
            matchExpressions = matchExpressions == null ? List.of() : List.copyOf(matchExpressions);
        }

        public boolean matches(Map<String, String> labels) {
            for (Map.Entry<String, String> e : matchLabels.entrySet()) {
                if (!e.getValue().equals(labels.get(e.getKey()))) {
                    return false;
                }
            }
            for (Requirement r : matchExpressions) {
                if (!r.matches(labels)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** {@code key operator values}, operator {@code In}, {@code NotIn}, {@code Exists} or {@code DoesNotExist}. */
    public record Requirement(String key, Operator operator, List<String> values) {
        public Requirement {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(operator, "operator");
            values = values == null ? List.of() : List.copyOf(values);
        }

        boolean matches(Map<String, String> labels) {
            String value = labels.get(key);
            return switch (operator) {
                case In -> value != null && values.contains(value);
                case NotIn -> value == null || !values.contains(value);
                case Exists -> value != null;
                case DoesNotExist -> value == null;
            };
        }
    }

    public enum Operator { In, NotIn, Exists, DoesNotExist }
}
