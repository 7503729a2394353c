package io.remold.kinitiras.convert;

import io.remold.api.AdmissionOperation;
import io.remold.engine.convert.CannotConvert;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;

import java.util.List;

/** A rule's {@code targetOperations} as a ModRule's {@code admissionOperations}. */
final class Operations {
    private Operations() {
    }

    /**
     * The operations of {@code runs} (those the form acts on) that the rule targets: every one when it lists none,
     * as kinitiras's managers read it. CONNECT, which a ModRule cannot name, is refused where listed (Remold's
     * webhooks receive it only when installed with {@code --operations} naming it).
     */
    static List<AdmissionOperation> of(JsonObject rule, String field, List<AdmissionOperation> runs) {
        if (!(rule.get("targetOperations") instanceof JsonArray listed) || listed.isEmpty()) {
            return runs;
        }
        List<String> names = listed.getValuesAs(JsonString.class).stream().map(JsonString::getString).toList();
        if (names.contains(AdmissionOperation.CONNECT.name())) {
            throw new CannotConvert(field + ".targetOperations: CONNECT, which a ModRule cannot name");
        }
        return runs.stream().filter(op -> names.contains(op.name())).toList();
    }
}
