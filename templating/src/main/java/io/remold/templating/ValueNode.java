package io.remold.templating;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.List;

/**
 * The composed YAML of a patch value with its tags resolved to slots. Built once per template; rendering only
 * evaluates the slots, so no YAML is parsed per request.
 */
sealed interface ValueNode {

    JsonValue render(Scope scope);

    /** Everything without tags, already converted. */
    record Constant(JsonValue value) implements ValueNode {
        @Override
        public JsonValue render(Scope scope) {
            return value;
        }
    }

    /** A plain scalar that is exactly one tag: keeps the JSON type of what it selects; missing is null. */
    record Typed(Expression expression) implements ValueNode {
        @Override
        public JsonValue render(Scope scope) {
            JsonValue value = expression.evaluate(scope);
            return value == null ? JsonValue.NULL : value;
        }
    }

    /** A scalar with tags inside other text, or quoted, or a block scalar: always a string. */
    record Text(MustacheText text) implements ValueNode {
        @Override
        public JsonValue render(Scope scope) {
            Expression single = text.singleExpression();
            if (single != null) {
                JsonValue value = single.evaluate(scope);
                // a string is already the string it renders to
                if (value instanceof JsonString) {
                    return value;
                }
                String rendered = TextValues.rendered(TextValues.text(value), text.source(), single.offset());
                scope.charge(rendered.length(), text.source(), single.offset());
                return Json.provider().createValue(rendered);
            }
            return Json.provider().createValue(text.render(scope));
        }
    }

    record Entry(ValueNode key, ValueNode value) {
    }

    record ObjectNode(List<Entry> entries) implements ValueNode {
        @Override
        public JsonValue render(Scope scope) {
            JsonObjectBuilder object = Json.provider().createObjectBuilder();
            for (Entry entry : entries) {
                JsonValue key = entry.key().render(scope);
                object.add(key instanceof JsonString string ? string.getString() : TextValues.text(key),
                        entry.value().render(scope));
            }
            return object.build();
        }
    }

    record ArrayNode(List<ValueNode> items) implements ValueNode {
        @Override
        public JsonValue render(Scope scope) {
            JsonArrayBuilder array = Json.provider().createArrayBuilder();
            for (ValueNode item : items) {
                array.add(item.render(scope));
            }
            return array.build();
        }
    }
}
