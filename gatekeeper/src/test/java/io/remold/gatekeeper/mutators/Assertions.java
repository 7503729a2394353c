package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.match.Source;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks the corpus' {@code kind: mutate} cases (cases.yaml, "defaults" and README): the {@code expect} block's
 * {@code error}, {@code error_equals} and {@code error_contains}, and its {@code assertions}:
 * <ul>
 * <li>{@code path}: map keys (strings) and list indexes (integers); {@code "*"} means every element of the list
 * there, and the assertion must hold for each (an absent list yields one absent value);</li>
 * <li>{@code equals} (Gatekeeper's deep equality: integers and fractions never equal), {@code absent}, {@code
 * exists}, {@code length} (of a list or object), {@code contains_item_matching} (some element of the list has
 * these members), {@code int32_equals} (the integer after truncation to 32 bits, as a typed Pod decodes it) and
 * {@code typed_pod_decode_fails} (see {@link #decodesAsTypedPod}).</li>
 * </ul>
 * Use {@link #checkMutator} for a case whose {@code mutator} is a manifest, or {@link #checkMutate} with any way of
 * mutating. Both return null when the case holds, else a description of the difference, as {@link
 * io.remold.gatekeeper.ConformanceCorpus.Check} wants.
 */
public final class Assertions {
    /** How a case mutates its input. */
    @FunctionalInterface
    public interface Mutation {
        JsonObject apply(JsonObject input) throws MutationException;
    }

    private Assertions() {
    }

    /**
     * Compiles the case's {@code mutator} manifest with {@link Mutators#parse} and runs it once on {@code input}
     * (no applyTo or match filtering, no namespace, source All, no operation), then checks {@code expect}.
     */
    public static String checkMutator(JsonObject testCase) {
        Mutator mutator = Mutators.parse(testCase.getJsonObject("mutator"));
        return checkMutate(testCase, input -> mutator.mutate(new Mutable(input, null, null, Source.All, "")));
    }

    /** Runs {@code mutation} on the case's {@code input} and checks {@code expect}. */
    public static String checkMutate(JsonObject testCase, Mutation mutation) {
        JsonObject input = testCase.getJsonObject("input");
        JsonObject expect = testCase.getJsonObject("expect");
        boolean errorExpected = expect.getBoolean("error", false) || expect.containsKey("error_equals")
                || expect.containsKey("error_contains");
        JsonObject output;
        try {
            output = mutation.apply(input);
        } catch (MutationException e) {
            if (!errorExpected) {
                return "unexpected error: " + e.getMessage();
            }
            String message = e.getMessage();
            if (expect.containsKey("error_equals") && !message.equals(expect.getString("error_equals"))) {
                return "error \"" + message + "\" is not \"" + expect.getString("error_equals") + "\"";
            }
            if (expect.containsKey("error_contains") && !message.contains(expect.getString("error_contains"))) {
                return "error \"" + message + "\" does not contain \"" + expect.getString("error_contains") + "\"";
            }
            return null;
        }
        if (errorExpected) {
            return "expected an error, got " + output;
        }
        JsonArray assertions = expect.getJsonArray("assertions");
        return assertions == null ? null : check(assertions, output);
    }

    /** Checks each assertion on {@code output}; the first failure, or null. */
    public static String check(JsonArray assertions, JsonObject output) {
        for (JsonValue entry : assertions) {
            String failure = checkOne((JsonObject) entry, output);
            if (failure != null) {
                return failure + " (assertion " + entry + ")";
            }
        }
        return null;
    }

    private static String checkOne(JsonObject assertion, JsonObject output) {
        if (assertion.containsKey("typed_pod_decode_fails")) {
            boolean fails = assertion.getBoolean("typed_pod_decode_fails");
            return decodesAsTypedPod(output) != fails ? null : "typed Pod decoding " + (fails ? "succeeds" : "fails");
        }
        List<JsonValue> values = resolve(output, assertion.getJsonArray("path"), 0);
        for (JsonValue value : values) {
            String failure = checkValue(assertion, value);
            if (failure != null) {
                return failure;
            }
        }
        return null;
    }

    /** One resolved value (null when absent) against the assertion's operator. */
    private static String checkValue(JsonObject assertion, JsonValue value) {
        if (assertion.containsKey("absent")) {
            return (value == null) == assertion.getBoolean("absent") ? null : "found " + value;
        }
        if (assertion.containsKey("exists")) {
            return (value != null) == assertion.getBoolean("exists") ? null : "found " + value;
        }
        if (value == null) {
            return "absent";
        }
        if (assertion.containsKey("equals")) {
            return ModifySet.sameValue(assertion.get("equals"), value) ? null : "found " + value;
        }
        if (assertion.containsKey("length")) {
            int size = value instanceof JsonArray array ? array.size()
                    : value instanceof JsonObject object ? object.size() : -1;
            return size == assertion.getInt("length") ? null : "found " + value;
        }
        if (assertion.containsKey("contains_item_matching")) {
            JsonObject wanted = assertion.getJsonObject("contains_item_matching");
            boolean found = value instanceof JsonArray array && array.stream().anyMatch(item -> item instanceof
                    JsonObject object && wanted.entrySet().stream().allMatch(member -> object.containsKey(
                    member.getKey()) && ModifySet.sameValue(member.getValue(), object.get(member.getKey()))));
            return found ? null : "no item matches in " + value;
        }
        if (assertion.containsKey("int32_equals")) {
            return value instanceof JsonNumber number && number.isIntegral()
                    && (int) number.longValue() == assertion.getInt("int32_equals") ? null : "found " + value;
        }
        throw new IllegalArgumentException("unknown assertion " + assertion);
    }

    private static List<JsonValue> resolve(JsonValue value, JsonArray path, int from) {
        var out = new ArrayList<JsonValue>();
        if (from == path.size()) {
            out.add(value);
            return out;
        }
        JsonValue step = path.get(from);
        if (step instanceof JsonString name && name.getString().equals("*") && value instanceof JsonArray array) {
            for (JsonValue element : array) {
                out.addAll(resolve(element, path, from + 1));
            }
            return out;
        }
        JsonValue next = null;
        if (step instanceof JsonString name && value instanceof JsonObject object) {
            next = object.get(name.getString());
        } else if (step instanceof JsonNumber index && value instanceof JsonArray array
                && index.intValue() < array.size()) {
            next = array.get(index.intValue());
        }
        if (next == null) {
            out.add(null);
            return out;
        }
        return resolve(next, path, from + 1);
    }

    /**
     * Whether the object would decode into a typed Kubernetes Pod, as far as these cases need: the integer fields of
     * container ports ({@code containerPort}, {@code hostPort}) of every kind of container must be numbers.
     * Decoding truncates large integers to 32 bits rather than failing, so only the JSON type matters.
     */
    static boolean decodesAsTypedPod(JsonObject pod) {
        if (!(pod.get("spec") instanceof JsonObject spec)) {
            return true;
        }
        for (String containers : List.of("containers", "initContainers", "ephemeralContainers")) {
            for (JsonValue container : list(spec.get(containers))) {
                JsonValue ports = container instanceof JsonObject object ? object.get("ports") : null;
                for (JsonValue port : list(ports)) {
                    if (!(port instanceof JsonObject fields)) {
                        return false;
                    }
                    for (Map.Entry<String, JsonValue> field : fields.entrySet()) {
                        boolean integer = field.getKey().equals("containerPort") || field.getKey().equals("hostPort");
                        if (integer && !(field.getValue() instanceof JsonNumber)) {
                            return false;
                        }
                    }
                }
            }
        }
        return true;
    }

    private static List<JsonValue> list(JsonValue value) {
        return value instanceof JsonArray array ? array : List.of();
    }
}
