package io.remold.engine;

import io.remold.api.PatchOp;
import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;

/**
 * RFC 6902 patch from one document to another, producing the operations KubeMod's admission responses contain
 * (the gomodules.xyz/jsonpatch v2 rules): changed scalars and type changes are {@code replace}, object keys are
 * {@code add}/{@code remove}, lists of scalars are diffed by edit distance, other lists index by index.
 */
final class JsonDiff {
    /** Largest edit-distance table (cells) built for two lists; longer lists are compared index by index. */
    private static final long EDIT_TABLE_LIMIT = 1L << 22;

    private JsonDiff() {
    }

    static List<JsonPatcher.Operation> diff(JsonValue from, JsonValue to) {
        var out = new ArrayList<JsonPatcher.Operation>();
        values(from, to, "", out);
        return out;
    }

    private static void values(JsonValue a, JsonValue b, String path, List<JsonPatcher.Operation> out) {
        if (a == b) {
            return;
        }
        if (a.getValueType() == JsonValue.ValueType.NULL && b.getValueType() != JsonValue.ValueType.NULL) {
            // Go's nil has no type: a value appearing where null was is an add.
            out.add(new JsonPatcher.Operation(PatchOp.add, path, b));
            return;
        }
        if (kind(a) != kind(b)) {
            out.add(new JsonPatcher.Operation(PatchOp.replace, path, b));
            return;
        }
        switch (a.getValueType()) {
            case OBJECT -> objects((JsonObject) a, (JsonObject) b, path, out);
            case ARRAY -> arrays((JsonArray) a, (JsonArray) b, path, out);
            case NULL -> { }
            default -> {
                if (!Json.same(a, b)) {
                    out.add(new JsonPatcher.Operation(PatchOp.replace, path, b));
                }
            }
        }
    }

    /** Go decodes true and false into one type (bool); everything else keeps its JSON type. */
    private static JsonValue.ValueType kind(JsonValue v) {
        return v.getValueType() == JsonValue.ValueType.FALSE ? JsonValue.ValueType.TRUE : v.getValueType();
    }

    private static void objects(JsonObject a, JsonObject b, String path, List<JsonPatcher.Operation> out) {
        // The patcher copies only the path it changes: shared subtrees are skipped without a walk.
        JsonTree.changedMembers(a, b, (key, before, after) -> {
            String p = path + "/" + JsonPatcher.escape(key);
            if (before == null) {
                out.add(new JsonPatcher.Operation(PatchOp.add, p, after));
            } else if (after == null) {
                out.add(new JsonPatcher.Operation(PatchOp.remove, p, null));
            } else {
                values(before, after, p, out);
            }
        });
    }

    private static void arrays(JsonArray a, JsonArray b, String path, List<JsonPatcher.Operation> out) {
        if (simple(a) && simple(b) && (long) (a.size() + 1) * (b.size() + 1) <= EDIT_TABLE_LIMIT) {
            editDistance(a, b, path, out);
            return;
        }
        int common = Math.min(a.size(), b.size());
        for (int i = a.size() - 1; i >= common; i--) {
            out.add(new JsonPatcher.Operation(PatchOp.remove, path + "/" + i, null));
        }
        for (int i = common; i < b.size(); i++) {
            out.add(new JsonPatcher.Operation(PatchOp.add, path + "/" + i, b.get(i)));
        }
        for (int i = 0; i < common; i++) {
            JsonValue before = a.get(i);
            JsonValue after = b.get(i);
            if (before.getValueType() == JsonValue.ValueType.NULL && after.getValueType() != JsonValue.ValueType.NULL) {
                // Not values()' add: at an index, add inserts and the null would stay behind it (found by fuzzing).
                out.add(new JsonPatcher.Operation(PatchOp.replace, path + "/" + i, after));
            } else if (before != after) {
                values(before, after, path + "/" + i, out);
            }
        }
    }

    private static boolean simple(JsonArray array) {
        for (JsonValue v : array) {
            if (v instanceof JsonObject || v instanceof JsonArray) {
                return false;
            }
        }
        return true;
    }

    /** Levenshtein table over the two lists, walked back from the end into remove/add/replace operations. */
    private static void editDistance(JsonArray s, JsonArray t, String path, List<JsonPatcher.Operation> out) {
        int m = s.size();
        int n = t.size();
        int[][] d = new int[m + 1][n + 1];
        for (int i = 0; i <= m; i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= n; j++) {
            d[0][j] = j;
        }
        for (int j = 1; j <= n; j++) {
            for (int i = 1; i <= m; i++) {
                if (Json.same(s.get(i - 1), t.get(j - 1))) {
                    d[i][j] = d[i - 1][j - 1];
                } else {
                    d[i][j] = 1 + Math.min(d[i - 1][j - 1], Math.min(d[i][j - 1], d[i - 1][j]));
                }
            }
        }
        int i = m;
        int j = n;
        while (true) {
            if (i > 0 && d[i - 1][j] + 1 == d[i][j]) {
                out.add(new JsonPatcher.Operation(PatchOp.remove, path + "/" + (i - 1), null));
                i--;
            } else if (j > 0 && d[i][j - 1] + 1 == d[i][j]) {
                out.add(new JsonPatcher.Operation(PatchOp.add, path + "/" + i, t.get(j - 1)));
                j--;
            } else if (i > 0 && j > 0 && d[i - 1][j - 1] + 1 == d[i][j]) {
                out.add(new JsonPatcher.Operation(PatchOp.replace, path + "/" + (i - 1), t.get(j - 1)));
                i--;
                j--;
            } else if (i > 0 && j > 0 && d[i - 1][j - 1] == d[i][j]) {
                i--;
                j--;
            } else {
                return;
            }
        }
    }

    static JsonArray toJson(List<JsonPatcher.Operation> operations) {
        var ops = new ArrayList<JsonValue>(operations.size());
        for (JsonPatcher.Operation op : operations) {
            ops.add(op.toJson());
        }
        return JsonTree.array(ops);
    }
}
