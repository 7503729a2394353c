package io.remold.engine.convert;

import io.remold.api.YamlJson;
import io.remold.templating.TemplateContext;
import io.remold.templating.TemplateException;
import io.remold.templating.Templates;
import io.remold.templating.ValueTemplate;
import jakarta.json.JsonValue;

import java.util.List;

/** ModRule value templates that converted rules write. */
public final class ValueTemplates {
    private static final TemplateContext NO_CONTEXT = new TemplateContext(JsonValue.EMPTY_JSON_OBJECT, "", null,
            List.of(), "CREATE", null);

    private ValueTemplates() {
    }

    /**
     * A ModRule value (a YAML document with Mustache tags) that renders exactly {@code value}: its YAML form, or its
     * JSON form, whichever reads back as the same value with no tag in it.
     */
    public static String constant(JsonValue value) {
        for (String text : List.of(YamlJson.toYaml(value).stripTrailing(), value.toString())) {
            try {
                ValueTemplate template = Templates.compileValue(text);
                if (template.isConstant() && template.render(NO_CONTEXT).equals(value)) {
                    return text;
                }
            } catch (TemplateException e) {
                // try the next form
            }
        }
        throw new CannotConvert("the value " + value + " has no ModRule value template that renders it exactly"
                + " (its text reads as a template)");
    }
}
