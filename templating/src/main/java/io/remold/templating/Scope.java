package io.remold.templating;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Set;

/**
 * The Mustache context stack: the root holds the {@link TemplateContext}, each section adds the value it iterates.
 * A head name resolves in the innermost scope whose object has that key, then in the root names.
 */
record Scope(JsonValue value, Scope parent, TemplateContext context, Spent spent) {
    /**
     * Most section elements one render enters: a section over the containers of a Pod enters tens, over the keys of a
     * big ConfigMap thousands, but nested sections multiply, and a section with an empty body renders nothing to
     * bound it by its size.
     */
    static final int MAX_SECTION_ELEMENTS = 100_000;

    /** What one render has spent, shared by its scopes (a render runs on one thread). */
    static final class Spent {
        /** The context's budget; without one, the render's own, made when it first renders a text. */
        private RenderBudget budget;
        private int sectionElements;

        Spent(RenderBudget budget) {
            this.budget = budget;
        }
    }

    static final Set<String> ROOT_NAMES =
            Set.of("Target", "Namespace", "SelectedItem", "SelectKeyParts", "Operation", "OldTarget",
                    "References");

    static Scope root(TemplateContext context) {
        return new Scope(null, null, context, new Spent(context == null ? null : context.budget()));
    }

    /** The scope of one element of the section at {@code offset}; refused past {@link #MAX_SECTION_ELEMENTS}. */
    Scope nest(JsonValue element, SourceText source, int offset) {
        if (++spent.sectionElements > MAX_SECTION_ELEMENTS) {
            throw source.error("sections enter more than " + MAX_SECTION_ELEMENTS + " elements in one render", offset);
        }
        return new Scope(element, this, context, spent);
    }

    /** Counts a text the template at {@code offset} produced against the render's budget. */
    void charge(int chars, SourceText source, int offset) {
        if (spent.budget == null) {
            spent.budget = RenderBudget.standalone();
        }
        spent.budget.charge(chars, source, offset);
    }

    JsonValue current() {
        return parent == null ? null : value;
    }

    static final String KEY_PARTS = "SelectKeyParts";

    /** True when no enclosing section element has the key {@code name}: it names a root value. */
    boolean resolvesInRoot(String name) {
        for (Scope scope = this; scope.parent != null; scope = scope.parent) {
            if (scope.value instanceof JsonObject object && object.containsKey(name)) {
                return false;
            }
        }
        return true;
    }

    /** {@code SelectKeyParts[index]} of the root: the same value as the element of {@link #lookup}'s list, or null. */
    JsonValue keyPart(int index) {
        List<Object> parts = context.selectKeyParts();
        return index >= 0 && index < parts.size() ? keyPartValue(parts.get(index)) : null;
    }

    JsonValue lookup(String name) {
        for (Scope scope = this; scope.parent != null; scope = scope.parent) {
            if (scope.value instanceof JsonObject object && object.containsKey(name)) {
                return object.get(name);
            }
        }
        return rootValue(name);
    }

    private JsonValue rootValue(String name) {
        return switch (name) {
            case "Target" -> context.target();
            case "Namespace" -> string(context.namespace());
            case "SelectedItem" -> context.selectedItem();
            case KEY_PARTS -> keyParts();
            case "Operation" -> string(context.operation());
            case "OldTarget" -> context.oldTarget();
            case "References" -> context.target() instanceof JsonObject target
                    ? target.get(TemplateContext.SYNTHETIC_REFS) : null;
            default -> null;
        };
    }

    private static JsonValue string(String value) {
        return value == null ? null : Json.provider().createValue(value);
    }

    private JsonValue keyParts() {
        JsonArrayBuilder builder = Json.provider().createArrayBuilder();
        for (Object part : context.selectKeyParts()) {
            builder.add(keyPartValue(part));
        }
        return builder.build();
    }

    private static JsonValue keyPartValue(Object part) {
        return part instanceof Number number
                ? Json.provider().createValue(number.longValue())
                : Json.provider().createValue(String.valueOf(part));
    }
}
