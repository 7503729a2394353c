package io.remold.engine;

import io.remold.templating.RenderBudget;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.Map;

/**
 * What one admission request's ModRules may produce: the characters their templates render ({@link RenderBudget})
 * and the characters of the patch operations they give, counted as each operation is made. One request, one thread.
 */
final class RequestBudget implements AutoCloseable {
    /**
     * Characters of the patch operations (paths and values as JSON, escapes aside) of one request's Patch rules:
     * 4 Mi, as much as the request's rendered text, and about 5.3 MiB once the response carries it in base64.
     * A value taken from the object as it is ({@code {{ Target }}}) renders nothing new but counts here.
     */
    static final long MAX_PATCH_CHARS = 4L << 20;

    /**
     * Characters of the whole patch of one request, the Patch rules' and the stages' (Gatekeeper's mutators,
     * scripts) together: 8 Mi, about 11 MiB in base64, within what the API server accepts in a response, and a
     * bounded share of the heap. Past it the request is answered without a patch.
     */
    static final long MAX_RESPONSE_PATCH_CHARS = 8L << 20;

    final RenderBudget render = RenderBudget.forRequest();
    private long patchChars;
    private long ruleStart;

    /** The next renders and operations are the next rule's. */
    void startRule() {
        render.startRule();
        ruleStart = patchChars;
    }

    /** The rule failed and changes nothing: its operations leave the patch. */
    void ruleFailed() {
        patchChars = ruleStart;
    }

    /** Counts one operation of {@code spec.patch[step]}; refused past {@link #MAX_PATCH_CHARS}. */
    void charge(JsonPatcher.Operation operation, int step) throws JsonPatcher.PatchException {
        long left = MAX_PATCH_CHARS - patchChars - operation.path().length();
        long size = operation.value() == null ? 0 : charsAtMost(operation.value(), left);
        if (size > left) {
            throw new JsonPatcher.PatchException("spec.patch[" + step + "]: the request's patch would have more "
                    + "than " + MAX_PATCH_CHARS + " characters");
        }
        patchChars += operation.path().length() + size;
    }

    /** The characters of {@code value} as compact JSON (escapes aside), or a number above {@code limit}. */
    static long charsAtMost(JsonValue value, long limit) {
        return switch (value) {
            case JsonString s -> s.getString().length() + 2L;
            case JsonArray array -> {
                long size = 2;
                for (JsonValue item : array) {
                    size += 1 + charsAtMost(item, limit - size);
                    if (size > limit) {
                        break;
                    }
                }
                yield size;
            }
            case JsonObject object -> {
                long size = 2;
                for (Map.Entry<String, JsonValue> e : object.entrySet()) {
                    size += e.getKey().length() + 4 + charsAtMost(e.getValue(), limit - size);
                    if (size > limit) {
                        break;
                    }
                }
                yield size;
            }
            default -> value.toString().length();
        };
    }

    @Override
    public void close() {
        render.close();
    }
}
