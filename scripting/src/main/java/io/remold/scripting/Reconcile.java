package io.remold.scripting;

import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;

/**
 * The object a script returned, with every part equal to the object it was given taken from the latter. A script
 * sees numbers as JavaScript doubles: {@code 1.0} comes back as {@code 1} and integers beyond 2^53 rounded, which a
 * plain comparison would turn into patch operations the script never made. Equal here means equal as JavaScript sees
 * it; sharing the unchanged parts also lets the engine's diff skip them by identity.
 */
final class Reconcile {
    private Reconcile() {
    }

    static JsonValue keep(JsonValue given, JsonValue returned) {
        if (given == returned) {
            return given;
        }
        if (given instanceof JsonNumber a && returned instanceof JsonNumber b) {
            return a.doubleValue() == b.doubleValue() ? given : returned;
        }
        if (given instanceof JsonObject a && returned instanceof JsonObject b) {
            JsonObject out = b;
            boolean same = a.size() == b.size();
            for (var e : b.entrySet()) {
                JsonValue before = a.get(e.getKey());
                if (before == null) {
                    same = false;
                    continue;
                }
                JsonValue kept = keep(before, e.getValue());
                if (kept != e.getValue()) {
                    out = JsonTree.with(out, e.getKey(), kept);
                }
                same &= kept == before;
            }
            return same && keysInOrder(a, b) ? given : out;
        }
        if (given instanceof JsonArray a && returned instanceof JsonArray b) {
            List<JsonValue> out = new ArrayList<>(b.size());
            boolean same = a.size() == b.size();
            for (int i = 0; i < b.size(); i++) {
                JsonValue kept = i < a.size() ? keep(a.get(i), b.get(i)) : b.get(i);
                out.add(kept);
                same &= i < a.size() && kept == a.get(i);
            }
            return same ? given : JsonTree.array(out);
        }
        return given.equals(returned) ? given : returned;
    }

    private static boolean keysInOrder(JsonObject a, JsonObject b) {
        var ia = a.keySet().iterator();
        var ib = b.keySet().iterator();
        while (ia.hasNext() && ib.hasNext()) {
            if (!ia.next().equals(ib.next())) {
                return false;
            }
        }
        return !ia.hasNext() && !ib.hasNext();
    }
}
