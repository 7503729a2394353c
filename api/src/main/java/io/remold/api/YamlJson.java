package io.remold.api;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

import java.io.StringReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * YAML (1.1, as Kubernetes tooling reads it) to {@code jakarta.json} values and back. Used for ModRule files and
 * for the manifests {@code eval} reads and prints.
 */
public final class YamlJson {
    static final JsonProvider JSON = JsonProvider.provider();

    private YamlJson() {
    }

    /** A parsed document together with the YAML position of every field path (for error messages). */
    public record Document(JsonValue value, Map<String, Mark> positions) {
        /** Line and column (1-based) of {@code field} ({@code spec.match[0].select}), else of its nearest parent. */
        public int[] position(String field) {
            String f = field;
            while (true) {
                Mark m = positions.get(f);
                if (m != null) {
                    return new int[] {m.getLine() + 1, m.getColumn() + 1};
                }
                if (f.isEmpty()) {
                    return new int[] {0, 0};
                }
                int cut = Math.max(f.lastIndexOf('.'), f.lastIndexOf('['));
                f = cut < 0 ? "" : f.substring(0, cut);
            }
        }
    }

    /** Every non-empty document of a (multi-document) YAML or JSON text. */
    public static List<JsonValue> parse(String text, String source) {
        return documents(text, source).stream().map(Document::value).toList();
    }

    /** Every non-empty document with its field positions; {@link ModRules#fromDocument} reads ModRules from one. */
    public static List<Document> documents(String text, String source) {
        var options = new LoaderOptions();
        var yaml = new Yaml(options);
        var out = new ArrayList<Document>();
        int index = 0;
        try {
            for (Node node : yaml.composeAll(new StringReader(text))) {
                index++;
                if (node == null) {
                    continue;
                }
                var positions = new HashMap<String, Mark>();
                JsonValue value;
                try {
                    value = convert(node, "", positions);
                } catch (DuplicateKey d) {
                    throw new ModRuleException(source, index, d.path, d.mark.getLine() + 1, d.mark.getColumn() + 1,
                            "duplicate key");
                }
                if (value != JsonValue.NULL) {
                    out.add(new Document(value, positions));
                }
            }
        } catch (MarkedYAMLException e) {
            Mark m = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
            throw new ModRuleException(source, index + 1, "", m == null ? 0 : m.getLine() + 1,
                    m == null ? 0 : m.getColumn() + 1, "invalid YAML: " + problem);
        } catch (YAMLException | IllegalArgumentException e) {
            // SnakeYAML also throws IllegalArgumentException for some malformed input (a tag with surrounding
            // spaces, found by fuzzing): bad input all the same.
            throw new ModRuleException(source, index + 1, "", 0, 0, "invalid YAML: " + e.getMessage());
        }
        return out;
    }

    private static JsonValue convert(Node node, String path, Map<String, Mark> positions) {
        positions.putIfAbsent(path, node.getStartMark());
        return switch (node) {
            case MappingNode map -> {
                var b = JSON.createObjectBuilder();
                for (NodeTuple t : map.getValue()) {
                    String key = t.getKeyNode() instanceof ScalarNode s ? s.getValue() : String.valueOf(t.getKeyNode());
                    String child = path.isEmpty() ? key : path + "." + key;
                    if (positions.containsKey(child)) {
                        throw new DuplicateKey(child, t.getKeyNode().getStartMark());
                    }
                    positions.put(child, t.getKeyNode().getStartMark());
                    b.add(key, convert(t.getValueNode(), child, positions));
                }
                yield b.build();
            }
            case SequenceNode seq -> {
                var b = JSON.createArrayBuilder();
                int i = 0;
                for (Node item : seq.getValue()) {
                    b.add(convert(item, path + "[" + i++ + "]", positions));
                }
                yield b.build();
            }
            case ScalarNode scalar -> scalar(scalar);
            default -> throw new IllegalStateException("unexpected YAML node " + node.getNodeId());
        };
    }

    /** Kubernetes refuses duplicate keys; a silent "last one wins" would hide typos in rules. */
    private static final class DuplicateKey extends RuntimeException {
        final String path;
        final transient Mark mark;

        DuplicateKey(String path, Mark mark) {
            super(path, null, false, false);
            this.path = path;
            this.mark = mark;
        }
    }

    private static JsonValue scalar(ScalarNode scalar) {
        String text = scalar.getValue();
        Tag tag = scalar.getTag();
        try {
            if (Tag.NULL.equals(tag)) {
                return JsonValue.NULL;
            } else if (Tag.BOOL.equals(tag)) {
                // Only true/false are booleans (YAML 1.2): "no" or "on" in a message or label stays text.
                switch (text.toLowerCase()) {
                    case "true": return JsonValue.TRUE;
                    case "false": return JsonValue.FALSE;
                    default: return JSON.createValue(text);
                }
            } else if (Tag.INT.equals(tag)) {
                return JSON.createValue(new BigInteger(text.replace("_", "")));
            } else if (Tag.FLOAT.equals(tag)) {
                return JSON.createValue(new BigDecimal(text.replace("_", "")));
            }
        } catch (NumberFormatException e) {
            // Hex, octal, sexagesimal and .inf/.nan have no JSON form: keep the text.
        }
        return JSON.createValue(text);
    }

    /** Block-style YAML of a JSON value; strings that would read back as another type are quoted. */
    public static String toYaml(JsonValue value) {
        var options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndicatorIndent(0);
        options.setWidth(Integer.MAX_VALUE);
        options.setSplitLines(false);
        return new Yaml(options).dump(plain(value));
    }

    private static Object plain(JsonValue value) {
        return switch (value.getValueType()) {
            case OBJECT -> {
                var map = new LinkedHashMap<String, Object>();
                ((JsonObject) value).forEach((k, v) -> map.put(k, plain(v)));
                yield map;
            }
            case ARRAY -> ((JsonArray) value).stream().map(YamlJson::plain).toList();
            case STRING -> ((JsonString) value).getString();
            case NUMBER -> {
                JsonNumber n = (JsonNumber) value;
                yield n.isIntegral() ? (Object) n.bigIntegerValue() : n.bigDecimalValue();
            }
            case TRUE -> Boolean.TRUE;
            case FALSE -> Boolean.FALSE;
            case NULL -> null;
        };
    }
}
