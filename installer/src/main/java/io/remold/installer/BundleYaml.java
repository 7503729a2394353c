package io.remold.installer;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.kubernetes.client.openapi.JSON;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Writes objects as a multi-document YAML stream, byte for byte the same for the same objects: keys sorted, except
 * that each object starts with apiVersion, kind and metadata (as people expect to read them); block style, no folding.
 */
final class BundleYaml {
    private static final List<String> LEADING_KEYS = List.of("apiVersion", "kind", "metadata");

    private BundleYaml() {
    }

    static String write(List<Object> objects) {
        var options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndent(2);
        options.setSplitLines(false);
        options.setExplicitStart(true);
        var yaml = new Yaml(options);
        var documents = new ArrayList<Object>();
        for (Object object : objects) {
            // client-java's models start every list and map empty: unset fields, dropped; plain maps are kept as built
            boolean model = !(object instanceof Map<?, ?>);
            var document = (Map<?, ?>) plain(JSON.getGson().toJsonTree(object), model);
            var ordered = new LinkedHashMap<Object, Object>();
            LEADING_KEYS.forEach(key -> ordered.put(key, document.get(key)));
            ordered.putAll(document);
            documents.add(ordered);
        }
        return yaml.dumpAll(documents.iterator());
    }

    /** A model as compact text with sorted keys and unset fields dropped: equal models, equal text. */
    static String canonical(Object model) {
        return JSON.getGson().toJson(plain(JSON.getGson().toJsonTree(model), true));
    }

    /** gson tree to maps, lists and scalars; integral numbers stay integers (gson reads every number as a double). */
    private static Object plain(JsonElement element, boolean dropEmpty) {
        if (element instanceof JsonObject object) {
            var map = new LinkedHashMap<String, Object>();
            object.keySet().stream().sorted().forEach(key -> {
                Object value = plain(object.get(key), dropEmpty);
                if (!(dropEmpty && isEmpty(value))) {
                    map.put(key, value);
                }
            });
            return map;
        }
        if (element instanceof JsonArray array) {
            var list = new ArrayList<Object>(array.size());
            array.forEach(item -> list.add(plain(item, dropEmpty)));
            return list;
        }
        if (!(element instanceof JsonPrimitive p)) {
            return null;
        }
        return p.isBoolean() ? (Object) p.getAsBoolean() : p.isNumber() ? number(p.getAsBigDecimal()) : p.getAsString();
    }

    private static boolean isEmpty(Object value) {
        return value instanceof Map<?, ?> map && map.isEmpty() || value instanceof List<?> list && list.isEmpty();
    }

    private static Object number(BigDecimal value) {
        BigDecimal stripped = value.stripTrailingZeros();
        return stripped.scale() <= 0 ? (Object) stripped.toBigIntegerExact() : (Object) value;
    }
}
