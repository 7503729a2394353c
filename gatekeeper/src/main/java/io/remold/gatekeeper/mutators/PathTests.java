package io.remold.gatekeeper.mutators;

import io.remold.api.JsonFields;
import io.remold.gatekeeper.path.Location;
import io.remold.gatekeeper.path.LocationSyntaxException;
import io.remold.gatekeeper.path.PathNode;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An Assign's or ModifySet's {@code parameters.pathTests}: MustExist / MustNotExist conditions on prefixes of its
 * location. A test applies to the node at its depth wherever the walk reaches it, so under a glob it is evaluated
 * per element. An empty object counts as existing.
 */
final class PathTests {
    private static final String FIELD = "spec.parameters.pathTests";
    private static final String MUST_EXIST = "MustExist";
    private static final String MUST_NOT_EXIST = "MustNotExist";

    /** No conditions: every node may exist or be missing. */
    static final PathTests NONE = new PathTests(Map.of());

    /**
     * Condition by depth (index of the subPath's last node). An entry without {@code condition} is kept as {@code
     * ""}: as in Gatekeeper, it allows neither an existing nor a missing node, so the mutation never applies there.
     */
    private final Map<Integer, String> conditions;

    private PathTests(Map<Integer, String> conditions) {
        this.conditions = conditions;
    }

    /** Parses and validates: each subPath must be a prefix of the location, and no two conditions may conflict. */
    static PathTests parse(JsonArray pathTests, List<PathNode> location) {
        if (pathTests == null || pathTests.isEmpty()) {
            return NONE;
        }
        var tests = new ArrayList<Test>();
        for (int i = 0; i < pathTests.size(); i++) {
            tests.add(Test.parse(pathTests.get(i), FIELD + "[" + i + "]"));
        }
        for (int i = 0; i < tests.size(); i++) {
            Test test = tests.get(i);
            if (!isPrefix(test.subPath(), location)) {
                throw new InvalidMutatorException(FIELD + "[" + i + "].subPath",
                        "all subpaths must be a prefix of the `location` value of the mutation: "
                                + Location.format(test.subPath()) + " is not a prefix of "
                                + Location.format(location));
            }
        }
        var conditions = new HashMap<Integer, String>();
        for (int i = 0; i < tests.size(); i++) {
            Test test = tests.get(i);
            String earlier = conditions.put(test.depth(), test.condition());
            if (earlier != null && !earlier.equals(test.condition())) {
                throw conflict(i, Location.format(test.subPath()) + " is required both to exist and not to exist");
            }
        }
        // Gatekeeper's check of "a required node under a forbidden parent" compares list positions, not depths:
        // any MustExist listed after the first MustNotExist conflicts. Kept as is so the same manifests are refused.
        int firstMustNotExist = -1;
        for (int i = 0; i < tests.size(); i++) {
            String condition = tests.get(i).condition();
            if (condition.equals(MUST_NOT_EXIST) && firstMustNotExist < 0) {
                firstMustNotExist = i;
            } else if (condition.equals(MUST_EXIST) && firstMustNotExist >= 0) {
                throw conflict(i, Location.format(tests.get(i).subPath()) + " must exist but is listed after "
                        + Location.format(tests.get(firstMustNotExist).subPath()) + ", which must not exist");
            }
        }
        return new PathTests(Map.copyOf(conditions));
    }

    /** Whether the walk may go on where the node at {@code depth} exists. */
    boolean existsOkay(int depth) {
        String condition = conditions.get(depth);
        return condition == null || condition.equals(MUST_EXIST);
    }

    /** Whether the walk may go on (creating the node) where the node at {@code depth} is missing. */
    boolean missingOkay(int depth) {
        String condition = conditions.get(depth);
        return condition == null || condition.equals(MUST_NOT_EXIST);
    }

    private static boolean isPrefix(List<PathNode> subPath, List<PathNode> location) {
        return subPath.size() <= location.size() && location.subList(0, subPath.size()).equals(subPath);
    }

    private static InvalidMutatorException conflict(int index, String detail) {
        return new InvalidMutatorException(FIELD + "[" + index + "]", "conflicting path test conditions: " + detail);
    }

    private record Test(List<PathNode> subPath, String condition) {
        int depth() {
            return subPath.size() - 1;
        }

        static Test parse(JsonValue entry, String field) {
            if (!(entry instanceof JsonObject test)) {
                throw new InvalidMutatorException(field, "must be an object with subPath and condition");
            }
            String subPath = string(test, "subPath", field);
            String condition = string(test, "condition", field);
            if (test.containsKey("condition") && !condition.equals(MUST_EXIST) && !condition.equals(MUST_NOT_EXIST)) {
                throw new InvalidMutatorException(field + ".condition", "unsupported value \"" + condition
                        + "\": must be " + MUST_EXIST + " or " + MUST_NOT_EXIST);
            }
            try {
                return new Test(Location.parse(subPath), condition);
            } catch (LocationSyntaxException e) {
                throw new InvalidMutatorException(field + ".subPath",
                        "problem parsing sub path `" + subPath + "`: " + e.getMessage());
            }
        }

        private static String string(JsonObject test, String key, String field) {
            return JsonFields.string(test, key, "",
                    v -> new InvalidMutatorException(field + "." + key, "must be a string"));
        }
    }
}
