package io.remold.templating;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

/**
 * Compiles a patch value. Every tag is replaced by a placeholder word before SnakeYAML composes the document, so the
 * YAML structure is fixed by the template alone; the placeholders found in each scalar then become slots. Values
 * from the context are inserted after parsing and can never add YAML structure.
 */
final class ValueCompiler {
    /**
     * Deepest nesting of YAML collections in a value: SnakeYAML's own default, named here because rendering walks
     * the value recursively; real patch values nest a few levels.
     */
    static final int MAX_YAML_DEPTH = 50;
    private static final String IN_ONE_SCALAR = " inside the same YAML scalar (sections cannot span YAML structure)";

    private final SourceText source;
    private final List<Tags.Tag> tags = new ArrayList<>();
    private final Set<Integer> placed = new HashSet<>();
    private final Map<Node, ValueNode> compiledNodes = new IdentityHashMap<>();
    private final Set<Node> inProgress = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Pattern placeholder;
    private final String placeholderPrefix;
    private final List<Shift> shifts = new ArrayList<>();

    /** A placeholder starts at {@code at} in the YAML text and is {@code extra} characters longer than its tag. */
    private record Shift(int at, int extra) {
    }

    private ValueCompiler(SourceText source) {
        this.source = source;
        String prefix = "remoldtag";
        while (source.text().contains(prefix)) {
            prefix += "x";
        }
        this.placeholderPrefix = prefix;
        this.placeholder = Pattern.compile(prefix + "(\\d+)z");
    }

    static ValueNode compile(String text) {
        ValueCompiler compiler = new ValueCompiler(new SourceText(text));
        return compiler.compile();
    }

    private ValueNode compile() {
        StringBuilder yaml = new StringBuilder();
        for (Tags.Piece piece : Tags.scan(source)) {
            switch (piece) {
                case Tags.Text text -> yaml.append(text.text());
                case Tags.Tag tag -> {
                    String word = placeholderPrefix + tags.size() + "z";
                    shifts.add(new Shift(yaml.length(), word.length() - (tag.end() - tag.offset())));
                    tags.add(tag);
                    yaml.append(word);
                }
            }
        }
        Node root = compose(yaml.toString());
        if (root == null) {
            return new ValueNode.Constant(JsonValue.NULL);
        }
        ValueNode node = node(root);
        for (int i = 0; i < tags.size(); i++) {
            if (!placed.contains(i) && tags.get(i).kind() != Tags.Kind.COMMENT) {
                throw source.error("a tag can only stand in a YAML value or key (not in a comment, anchor or YAML tag)", tags.get(i).offset());
            }
        }
        return node;
    }

    private Node compose(String yaml) {
        LoaderOptions options = new LoaderOptions();
        options.setNestingDepthLimit(MAX_YAML_DEPTH);
        try {
            return new Yaml(options).compose(new StringReader(yaml));
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
            if (e.getContext() != null) {
                problem = e.getContext() + ": " + problem;
            }
            throw source.error("invalid YAML: " + problem, mark == null ? 0 : sourceOffset(mark.getIndex()));
        } catch (YAMLException e) {
            throw source.error("invalid YAML: " + e.getMessage(), 0);
        } catch (NumberFormatException e) {
            // SnakeYAML's scanner throws it for a hex escape (x, u or U) without its digits (found by fuzzing).
            throw source.error("invalid YAML: bad escape in a double-quoted string", 0);
        } catch (IllegalArgumentException e) {
            // SnakeYAML's composer throws it for a tag with surrounding spaces (found by fuzzing).
            throw source.error("invalid YAML: " + e.getMessage(), 0);
        }
    }

    private int sourceOffset(int yamlIndex) {
        int offset = yamlIndex;
        for (Shift shift : shifts) {
            if (shift.at() >= yamlIndex) {
                break;
            }
            offset -= Math.min(shift.extra(), yamlIndex - shift.at());
        }
        return offset;
    }

    /** Aliases make the node graph share nodes: each is compiled once, and a node that contains itself is refused. */
    private ValueNode node(Node node) {
        ValueNode compiled = compiledNodes.get(node);
        if (compiled != null) {
            return compiled;
        }
        if (!inProgress.add(node)) {
            throw source.error("a YAML alias cannot refer to a node that contains it",
                    sourceOffset(node.getStartMark().getIndex()));
        }
        compiled = compileNode(node);
        inProgress.remove(node);
        compiledNodes.put(node, compiled);
        return compiled;
    }

    private ValueNode compileNode(Node node) {
        return switch (node) {
            case ScalarNode scalar -> scalar(scalar);
            case SequenceNode sequence -> {
                List<ValueNode> items = new ArrayList<>();
                sequence.getValue().forEach(item -> items.add(node(item)));
                if (items.stream().allMatch(ValueNode.Constant.class::isInstance)) {
                    JsonArrayBuilder array = Json.provider().createArrayBuilder();
                    items.forEach(item -> array.add(((ValueNode.Constant) item).value()));
                    yield new ValueNode.Constant(array.build());
                }
                yield new ValueNode.ArrayNode(List.copyOf(items));
            }
            case MappingNode mapping -> mapping(mapping);
            default -> throw source.error("unsupported YAML node " + node.getNodeId(), 0);
        };
    }

    private ValueNode mapping(MappingNode mapping) {
        List<ValueNode.Entry> entries = new ArrayList<>();
        Set<String> constantKeys = new HashSet<>();
        boolean constant = true;
        for (NodeTuple tuple : mapping.getValue()) {
            if (!(tuple.getKeyNode() instanceof ScalarNode keyNode)) {
                throw source.error("a YAML key must be a scalar", sourceOffset(tuple.getKeyNode().getStartMark().getIndex()));
            }
            ValueNode key = scalar(keyNode);
            if (key instanceof ValueNode.Constant c && !constantKeys.add(keyText(c.value()))) {
                throw source.error("duplicate key \"" + keyText(c.value()) + "\"",
                        sourceOffset(keyNode.getStartMark().getIndex()));
            }
            ValueNode value = node(tuple.getValueNode());
            constant &= key instanceof ValueNode.Constant && value instanceof ValueNode.Constant;
            entries.add(new ValueNode.Entry(key, value));
        }
        if (constant) {
            JsonObjectBuilder object = Json.provider().createObjectBuilder();
            entries.forEach(entry -> object.add(keyText(((ValueNode.Constant) entry.key()).value()),
                    ((ValueNode.Constant) entry.value()).value()));
            return new ValueNode.Constant(object.build());
        }
        return new ValueNode.ObjectNode(List.copyOf(entries));
    }

    private static String keyText(JsonValue key) {
        return key instanceof JsonString string ? string.getString() : TextValues.text(key);
    }

    private ValueNode scalar(ScalarNode scalar) {
        String value = scalar.getValue();
        Matcher matcher = placeholder.matcher(value);
        List<Tags.Piece> pieces = new ArrayList<>();
        int position = 0;
        while (matcher.find()) {
            if (matcher.start() > position) {
                pieces.add(new Tags.Text(value.substring(position, matcher.start()), -1));
            }
            int index = Integer.parseInt(matcher.group(1));
            placed.add(index);
            pieces.add(tags.get(index));
            position = matcher.end();
        }
        if (pieces.isEmpty()) {
            return new ValueNode.Constant(constant(scalar));
        }
        if (position < value.length()) {
            pieces.add(new Tags.Text(value.substring(position), -1));
        }
        if (pieces.size() == 1 && scalar.getScalarStyle() == DumperOptions.ScalarStyle.PLAIN
                && pieces.getFirst() instanceof Tags.Tag tag && tag.kind() == Tags.Kind.VARIABLE) {
            return new ValueNode.Typed(ExpressionParser.parse(source, tag.content(), tag.contentOffset()));
        }
        MustacheText text = MustacheText.compile(source, pieces, IN_ONE_SCALAR);
        return text.isConstant()
                ? new ValueNode.Constant(Json.provider().createValue(text.render(null)))
                : new ValueNode.Text(text);
    }

    /** YAML scalars as Kubernetes reads them; only true/false are booleans, as in the api module. */
    private static JsonValue constant(ScalarNode scalar) {
        String text = scalar.getValue();
        Tag tag = scalar.getTag();
        try {
            if (Tag.NULL.equals(tag)) {
                return JsonValue.NULL;
            }
            if (Tag.BOOL.equals(tag)) {
                return switch (text.toLowerCase(Locale.ROOT)) {
                    case "true" -> JsonValue.TRUE;
                    case "false" -> JsonValue.FALSE;
                    default -> Json.provider().createValue(text);
                };
            }
            if (Tag.INT.equals(tag)) {
                return Json.provider().createValue(new BigInteger(text.replace("_", "")));
            }
            if (Tag.FLOAT.equals(tag)) {
                return Json.provider().createValue(new BigDecimal(text.replace("_", "")));
            }
        } catch (NumberFormatException e) {
            // hexadecimal, octal, sexagesimal, .inf and .nan have no JSON number form: keep the text
        }
        return Json.provider().createValue(text);
    }
}
