package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.ConformanceCorpus;
import io.remold.gatekeeper.match.GroupVersionKind;
import io.remold.gatekeeper.match.Source;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Map;

/**
 * A parsed mutator's applyTo: whether it matches an object and operation ({@code mutator_matches}), and the kinds and
 * operations it binds for schema conflicts ({@code schema_bindings}).
 */
class MutatorApplyToConformanceTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    @Test
    void mutatorMatches() {
        ConformanceCorpus.run("apply_to", KNOWN_DEVIATIONS, c -> {
            Mutator mutator = Mutators.parse(c.getJsonObject("mutator"));
            var mutable = new Mutable(c.getJsonObject("object"), null, "", Source.valueOf(c.getString("source")),
                    c.getString("operation"));
            boolean wanted = c.getJsonObject("expect").getBoolean("matches");
            return mutator.matches(mutable) == wanted ? null : "expected matches " + wanted;
        }, "mutator_matches");
    }

    @Test
    void schemaBindings() {
        ConformanceCorpus.run("apply_to", KNOWN_DEVIATIONS, c -> {
            var wanted = new ArrayList<SchemaBinding>();
            for (JsonValue v : c.getJsonObject("expect").getJsonArray("bindings_in_order")) {
                JsonObject b = v.asJsonObject();
                wanted.add(new SchemaBinding(new GroupVersionKind(b.getString("group"), b.getString("version"),
                        b.getString("kind")), b.getString("operation")));
            }
            var bindings = Mutators.parse(c.getJsonObject("mutator")).schemaBindings();
            return bindings.equals(wanted) ? null : "expected " + wanted + ", got " + bindings;
        }, "schema_bindings");
    }
}
