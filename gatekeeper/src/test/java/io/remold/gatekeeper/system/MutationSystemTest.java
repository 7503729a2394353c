package io.remold.gatekeeper.system;

import io.remold.api.YamlJson;
import io.remold.gatekeeper.match.GroupKind;
import io.remold.gatekeeper.match.GroupVersionKind;
import io.remold.gatekeeper.mutators.Mutable;
import io.remold.gatekeeper.mutators.MutationException;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.gatekeeper.mutators.MutatorId;
import io.remold.gatekeeper.mutators.SchemaBinding;
import io.remold.gatekeeper.path.Location;
import io.remold.gatekeeper.path.PathNode;
import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mutation loop and schema conflicts beyond the corpus. */
class MutationSystemTest {
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final JsonObject POD = (JsonObject) YamlJson.parse("""
            apiVersion: v1
            kind: Pod
            metadata: {name: p, namespace: ns}
            """, "test").getFirst();
    private static final List<SchemaBinding> POD_CREATE =
            List.of(new SchemaBinding(new GroupVersionKind("", "v1", "Pod"), "CREATE"));

    /** Sets {@code spec.<field>} to the value, when it is not set already; a test double. */
    private record SetField(MutatorId id, String field, String value, List<PathNode> path,
                            List<SchemaBinding> schemaBindings) implements Mutator {
        SetField(String name, String field, String value) {
            this(new MutatorId("mutations.gatekeeper.sh", "Assign", "", name), field, value, List.of(), List.of());
        }

        @Override
        public boolean matches(Mutable mutable) {
            return true;
        }

        @Override
        public JsonObject mutate(Mutable mutable) {
            JsonObject object = mutable.object();
            JsonObject spec = object.containsKey("spec") ? object.getJsonObject("spec") : JsonValue.EMPTY_JSON_OBJECT;
            if (spec.containsKey(field) && spec.getString(field).equals(value)) {
                return object;
            }
            return JsonTree.with(object, "spec", JsonTree.with(spec, field, JSON.createValue(value)));
        }

        @Override
        public boolean usesExternalData() {
            return false;
        }
    }

    /** A test double with no location or schema. */
    private interface Unplaced extends Mutator {
        @Override
        default List<PathNode> path() {
            return List.of();
        }

        @Override
        default List<SchemaBinding> schemaBindings() {
            return List.of();
        }

        @Override
        default boolean usesExternalData() {
            return false;
        }
    }

    /** Sets {@code spec} on its first call, removes it on its second, then leaves the object alone. */
    private record SetThenUnset(AtomicInteger calls) implements Unplaced {
        @Override
        public MutatorId id() {
            return new MutatorId("", "", "", "toggle");
        }

        @Override
        public boolean matches(Mutable mutable) {
            return true;
        }

        @Override
        public JsonObject mutate(Mutable mutable) {
            return switch (calls.incrementAndGet()) {
                case 1 -> JsonTree.with(mutable.object(), "spec", JsonValue.EMPTY_JSON_OBJECT);
                case 2 -> JsonTree.without(mutable.object(), "spec");
                default -> mutable.object();
            };
        }

    }

    /** Admits only the given kinds (null: any) and applies {@code change}; a test double. */
    private record ForKinds(MutatorId id, Set<GroupKind> kindsAdmitted, UnaryOperator<JsonObject> change)
            implements Unplaced {
        ForKinds(String name, Set<GroupKind> kinds, UnaryOperator<JsonObject> change) {
            this(new MutatorId("mutations.gatekeeper.sh", "Assign", "", name), kinds, change);
        }

        @Override
        public boolean matches(Mutable mutable) {
            if (kindsAdmitted != null && !kindsAdmitted.contains(GroupKind.of(mutable.object()))) {
                throw new AssertionError(id + " asked about a kind it does not admit: " + mutable.object());
            }
            return true;
        }

        @Override
        public JsonObject mutate(Mutable mutable) {
            return change.apply(mutable.object());
        }

    }

    private static UnaryOperator<JsonObject> set(String key, String value) {
        return o -> value.equals(o.getString(key, null)) ? o : JsonTree.with(o, key, JSON.createValue(value));
    }

    @Test
    void mutatorsForOtherKindsAreNeverAsked() throws MutationException {
        var system = MutationSystem.of(List.of(
                new ForKinds("a-deployments", Set.of(new GroupKind("apps", "Deployment")), set("d", "1")),
                new ForKinds("b-any", null, set("any", "1")),
                new ForKinds("c-pods", Set.of(new GroupKind("", "Pod")), set("p", "1"))));
        JsonObject result = system.mutate(mutable(POD)).object();
        assertEquals("1", result.getString("any"));
        assertEquals("1", result.getString("p"));
        assertFalse(result.containsKey("d"));
    }

    @Test
    void aMutatorThatChangesTheKindHandsTheRestOfThePassToTheNewKindsMutators() throws MutationException {
        var system = MutationSystem.of(List.of(
                new ForKinds("a-pod-to-widget", Set.of(new GroupKind("", "Pod")), set("kind", "Widget")),
                new ForKinds("b-pods", Set.of(new GroupKind("", "Pod")), set("pod", "1")),
                new ForKinds("c-widgets", Set.of(new GroupKind("", "Widget")), set("widget", "1"))));
        var result = system.mutate(mutable(POD));
        assertEquals("Widget", result.object().getString("kind"));
        assertEquals("1", result.object().getString("widget"));
        assertFalse(result.object().containsKey("pod"));
        assertEquals(List.of("a-pod-to-widget", "c-widgets"),
                result.changedBy().stream().map(MutatorId::name).toList());
        assertEquals(2, result.passes());
    }

    private static Mutator schemaOnly(String kind, String name, String location, boolean externalData) {
        return new FakeMutator(new MutatorId("mutations.gatekeeper.sh", kind, "", name), Location.parse(location),
                POD_CREATE, externalData, null, 0, null, new AtomicInteger());
    }

    @Test
    void nothingToDoReturnsTheSameObject() throws MutationException {
        var result = MutationSystem.of(List.of(new SetField("a", "x", "1"))).mutate(mutable(
                JsonTree.with(POD, "spec", JSON.createObjectBuilder().add("x", "1").build())));
        assertFalse(result.mutated());
        assertEquals(1, result.passes());
        assertEquals(List.of(), result.changedBy());
    }

    @Test
    void changesAreReportedInTheOrderTheyHappened() throws MutationException {
        var result = MutationSystem.of(List.of(new SetField("b", "y", "2"), new SetField("a", "x", "1")))
                .mutate(mutable(POD));
        assertTrue(result.mutated());
        assertEquals(2, result.passes());
        assertEquals(List.of("a", "b"), result.changedBy().stream().map(MutatorId::name).toList());
        assertEquals("{\"x\":\"1\",\"y\":\"2\"}", result.object().getJsonObject("spec").toString());
    }

    @Test
    void mutatorsThatKeepChangingTheObjectDoNotConverge() {
        var unstable = new FakeMutator(new MutatorId("", "", "", "a"), List.of(), List.of(), false,
                Map.of("a", "v"), 10, null, new AtomicInteger());
        var e = assertThrows(MutationException.class, () -> MutationSystem.of(List.of(unstable)).mutate(mutable(POD)));
        assertEquals("mutation not converging for Pod ns p after 2 passes", e.getMessage());
        assertEquals(2, unstable.calls().get());
    }

    @Test
    void settlingBackOnTheInputIsAnOscillation() {
        var calls = new AtomicInteger();
        var e = assertThrows(MutationException.class,
                () -> MutationSystem.of(List.of(new SetThenUnset(calls), FakeMutator.withId(new MutatorId("", "", "",
                        "idle")))).mutate(mutable(POD)));
        assertEquals("oscillating mutation for Pod ns p", e.getMessage());
        assertEquals(3, calls.get());
    }

    @Test
    void anErrorFailsTheWholeMutation() {
        var failing = new FakeMutator(new MutatorId("mutations.gatekeeper.sh", "Assign", "", "z"), List.of(),
                List.of(), false, null, 0, "boom", new AtomicInteger());
        var system = MutationSystem.of(List.of(new SetField("a", "x", "1"), failing));
        var e = assertThrows(MutationException.class, () -> system.mutate(mutable(POD)));
        assertEquals("mutation for mutator Assign.mutations.gatekeeper.sh /z failed for Pod ns p: boom",
                e.getMessage());
    }

    @Test
    void theLaterOfTwoMutatorsWithOneIdCounts() throws MutationException {
        var result = MutationSystem.of(List.of(new SetField("a", "x", "1"), new SetField("a", "x", "2")))
                .mutate(mutable(POD));
        assertEquals("2", result.object().getJsonObject("spec").getString("x"));
    }

    @Test
    void aNullMutatorIsRefused() {
        var e = assertThrows(NullPointerException.class,
                () -> MutationSystem.of(Arrays.asList(new SetField("a", "x", "1"), null)));
        assertEquals("attempted to add nil mutator", e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({
        // A ModifySet's location is a set, an AssignImage's a string: an Assign below either conflicts.
        "ModifySet, spec.containers[name: a].args, false, spec.containers[name: a].args.x, true",
        "AssignImage, spec.containers[name: a].image, false, spec.containers[name: *].image.x, true",
        "Assign, spec.containers[name: a].image, false, spec.containers[name: *].image.x, false",
        "Assign, spec.containers[name: a].image, true, spec.containers[name: *].image, false",
        // Lists keyed by different fields.
        "Assign, spec.containers[name: a].image, false, spec.containers[id: a].image, true",
        "Assign, spec.volumes[name: a], false, spec.volumes.x, true"})
    void schemaConflicts(String kind, String location, boolean externalData, String assignLocation,
                         boolean conflict) {
        var first = schemaOnly(kind, "first", location, externalData);
        var second = schemaOnly("Assign", "second", assignLocation, false);
        var conflicts = MutationSystem.of(List.of(first, second)).conflicts();
        assertEquals(conflict, conflicts.containsKey(first.id()));
        assertEquals(conflict, conflicts.containsKey(second.id()));
    }

    @Test
    void theReasonNamesTheMutatorsAndWhereTheyDisagree() {
        var a = schemaOnly("Assign", "a", "spec.containers[name: a].image", false);
        var b = schemaOnly("ModifySet", "b", "spec.containers.image", false);
        var c = schemaOnly("Assign", "c", "metadata.labels.x", false);
        var system = MutationSystem.of(List.of(a, b, c));
        assertEquals("the following mutators have conflicting schemas: [Assign.mutations.gatekeeper.sh /a,"
                + "ModifySet.mutations.gatekeeper.sh /b] (they disagree on the type of spec.containers in v1 Pod on "
                + "CREATE)", system.conflicts().get(a.id()));
        assertEquals(List.of(a.id(), b.id()), system.conflicts().keySet().stream().sorted().toList());
        assertEquals(List.of(a.id(), c.id(), b.id()), system.order());
    }

    @Test
    void disabledMutatorsDoNotRunButUnrelatedOnesDo() throws MutationException {
        var conflicting = new FakeMutator(new MutatorId("", "", "", "a"), Location.parse("spec.x[name: y]"),
                POD_CREATE, false, Map.of("a", "1"), 0, null, new AtomicInteger());
        var other = new FakeMutator(new MutatorId("", "", "", "b"), Location.parse("spec.x.y"), POD_CREATE, false,
                Map.of("b", "1"), 0, null, new AtomicInteger());
        var unrelated = new FakeMutator(new MutatorId("", "", "", "c"), Location.parse("spec.z"), POD_CREATE, false,
                Map.of("c", "1"), 0, null, new AtomicInteger());
        var result = MutationSystem.of(List.of(conflicting, other, unrelated)).mutate(mutable(POD));
        assertEquals("{\"c\":\"1\"}", result.object().getJsonObject("metadata").getJsonObject("labels").toString());
        assertEquals(0, conflicting.calls().get());
        assertSame(POD, MutationSystem.of(List.of(conflicting, other)).mutate(mutable(POD)).object());
    }

    private static Mutable mutable(JsonObject object) {
        return new Mutable(object, null, "", null, "CREATE");
    }
}
