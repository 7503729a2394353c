package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import io.remold.kinitiras.Validator;
import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A validate {@code template} of a ClusterValidatePolicy ({@code ValidateRuleTemplate}, type {@code condition})
 * compiled once. The condition hits when the {@code dataRef} value exists ({@code Exist}), is missing ({@code
 * NotExist}), is (not) in the value's list ({@code In}, {@code NotIn}), or compares as {@code cond} says with the
 * value or the {@code valueRef} value (when that exists), optionally processed ({@code valueProcess}: {@code value
 * <op> operationWith}). A hit refuses with the message; with {@code affectMode: allow} a hit lets the request pass
 * and anything else refuses with an empty reason, as kinitiras does. {@code old} data is the old object only for
 * UPDATE. A template without a condition lets everything pass (kinitiras renders no CUE for it).
 */
public final class ValidateTemplate implements Validator {
    private static final JsonProvider JSON = JsonProvider.provider();
    static final Set<String> TYPES = Set.of("condition");
    static final Set<String> CONDITIONS = Set.of("Equal", "NotEqual", "Exist", "NotExist", "In", "NotIn", "Gt",
            "Gte", "Lt", "Lte");
    private static final Map<String, Cue.Comparison> COMPARISONS = Map.of("Equal", Cue.Comparison.EQ, "NotEqual",
            Cue.Comparison.NE, "Gt", Cue.Comparison.GT, "Gte", Cue.Comparison.GE, "Lt", Cue.Comparison.LT, "Lte",
            Cue.Comparison.LE);
    private static final Set<String> OPERATIONS = Set.of("+", "-", "*", "/");
    /** Go prints a float64 from 10^21 on in exponent form, which CUE reads as a float. */
    private static final BigDecimal GO_EXPONENT_FORM = new BigDecimal("1e21");
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");
    private static final Pattern NOT_FINITE = Pattern.compile("(?i)[+-]?(?:inf|infinity|nan)|[+-]?0[xX].*");

    private final Optional<Condition> condition;

    /** What the condition compares the data with. */
    sealed interface Operand permits Listed, Fixed, Referenced, Absent {
    }

    /** {@code In}, {@code NotIn}: the value's list. */
    record Listed(jakarta.json.JsonArray values) implements Operand {
    }

    /**
     * A constant, already processed; or why processing it fails, which kinitiras's CUE reports only when the data
     * exists (the computation sits inside the condition). The constant as given and its processing render the CUE.
     */
    record Fixed(JsonValue value, String failure, JsonValue given, Optional<Process> process) implements Operand {
    }

    /** The {@code valueRef} value, processed by {@code process} when present. */
    record Referenced(Reference.At reference, Optional<Process> process) implements Operand {
    }

    /** {@code Exist}, {@code NotExist}. */
    record Absent() implements Operand {
    }

    /**
     * {@code valueProcess}: {@code <value> operation with}, where kinitiras prints {@code with} (a float64) into the
     * CUE, so a whole number under 10^21 is a CUE int: a string times an int is then CUE's repetition.
     */
    record Process(String operation, BigDecimal with) {
        /** {@code (<value> <operation> <with>)} in CUE, {@code with} printed as Go prints a float64. */
        String cue(String value) {
            String number = isInt(with) ? with.toBigInteger().toString() : with.stripTrailingZeros().toString();
            return "(" + value + " " + operation + " " + number + ")";
        }

        JsonValue apply(JsonValue value) throws PolicyEvaluationException {
            if (value instanceof JsonString s && operation.equals("*") && isInt(with)) {
                return repeat(s.getString(), with);
            }
            return JSON.createValue(apply(Cue.number(value, "value")));
        }

        private static boolean isInt(BigDecimal number) {
            return number.stripTrailingZeros().scale() <= 0 && number.abs().compareTo(GO_EXPONENT_FORM) < 0;
        }

        private static JsonValue repeat(String text, BigDecimal times) throws PolicyEvaluationException {
            if (times.signum() < 0) {
                throw new PolicyEvaluationException("negative repeat count");
            }
            if (!text.isEmpty() && times.compareTo(BigDecimal.valueOf(Fields.MAX_TEXT / text.length())) > 0) {
                throw new PolicyEvaluationException("valueProcess: the repeated string would be longer than "
                        + Fields.MAX_TEXT + " characters");
            }
            return JSON.createValue(text.isEmpty() ? "" : text.repeat(times.intValue()));
        }

        private BigDecimal apply(BigDecimal value) throws PolicyEvaluationException {
            return switch (operation) {
                case "+" -> value.add(with, Cue.ARITHMETIC);
                case "-" -> value.subtract(with, Cue.ARITHMETIC);
                case "*" -> value.multiply(with, Cue.ARITHMETIC);
                default -> {
                    if (with.signum() == 0) {
                        throw new PolicyEvaluationException("division by zero");
                    }
                    yield value.divide(with, Cue.ARITHMETIC);
                }
            };
        }
    }

    record Condition(String cond, Reference.At data, Operand operand, Optional<Reference> valueSource,
                     String message, boolean allow) {
    }

    private ValidateTemplate(Optional<Condition> condition) {
        this.condition = condition;
    }

    /** Compiles {@code template}, found at {@code field} (e.g. {@code spec.validateRules[0].template}). */
    public static ValidateTemplate parse(JsonObject template, String field) throws InvalidTemplateException {
        Fields.oneOf(template, "type", field, TYPES);
        JsonObject condition = Fields.object(template, "condition", field);
        return new ValidateTemplate(condition == null ? Optional.empty()
                : Optional.of(condition(condition, Fields.at(field, "condition"))));
    }

    private static Condition condition(JsonObject condition, String field) {
        boolean allow = Fields.oneOf(condition, "affectMode", field, Set.of("", "reject", "allow")).equals("allow");
        String cond = Fields.oneOf(condition, "cond", field, CONDITIONS);
        String message = Fields.cueStringContent(Fields.text(condition, "message", field), Fields.at(field,
                "message"));
        JsonObject dataRef = Fields.object(condition, "dataRef", field);
        if (dataRef == null) {
            throw new InvalidTemplateException(Fields.at(field, "dataRef"), "Required value");
        }
        Reference.At data = Reference.At.parse(dataRef, Fields.at(field, "dataRef"));
        if (data.reference().from().equals("owner")) {
            throw new InvalidTemplateException(Fields.at(Fields.at(field, "dataRef"), "from"), "owner is not"
                    + " supported for dataRef: kinitiras's rendered CUE does not bind it");
        }
        JsonObject valueRef = Fields.object(condition, "valueRef", field);
        JsonObject value = Fields.object(condition, "value", field);
        Optional<Reference> valueSource = Optional.ofNullable(valueRef)
                .map(r -> Reference.parse(r, Fields.at(field, "valueRef")));
        // kinitiras reads operationWith whatever the condition; the rest is rendered only into comparisons
        JsonObject processing = Fields.object(condition, "valueProcess", field);
        boolean comparison = COMPARISONS.containsKey(cond);
        Optional<Process> process = processing == null ? Optional.empty()
                : Optional.of(process(processing, Fields.at(field, "valueProcess"), comparison));
        Operand operand;
        if (cond.equals("Exist") || cond.equals("NotExist")) {
            operand = new Absent();
        } else if (!comparison) {
            if (valueRef != null || value == null) {
                throw new InvalidTemplateException(Fields.at(field, "value"), cond + " needs a value with a"
                        + " list (kinitiras's rendered CUE does not compile otherwise)");
            }
            operand = new Listed(Constant.parse(value, Fields.at(field, "value")).slice());
        } else if (valueRef != null) {
            operand = new Referenced(Reference.At.parse(valueRef, Fields.at(field, "valueRef")), process);
        } else if (value != null) {
            operand = fixed(Constant.parse(value, Fields.at(field, "value")).operand(Fields.at(field, "value")),
                    process);
        } else {
            throw new InvalidTemplateException(Fields.at(field, "value"), "Required value: " + cond
                    + " needs a value or a valueRef");
        }
        return new Condition(cond, data, operand, valueSource.filter(Reference::fetched), message, allow);
    }

    private static Fixed fixed(JsonValue constant, Optional<Process> process) {
        if (process.isEmpty()) {
            return new Fixed(constant, null, constant, process);
        }
        try {
            return new Fixed(process.get().apply(constant), null, constant, process);
        } catch (PolicyEvaluationException e) {
            return new Fixed(null, e.getMessage(), constant, process);
        }
    }

    /** {@code valueProcess}; its operation is checked only where kinitiras renders it ({@code rendered}). */
    private static Process process(JsonObject process, String field, boolean rendered) {
        String operation = rendered ? Fields.oneOf(process, "operation", field, OPERATIONS)
                : Fields.text(process, "operation", field);
        JsonValue with = process.get("operationWith");
        String at = Fields.at(field, "operationWith");
        if (with instanceof JsonNumber n) {
            return new Process(operation, BigDecimal.valueOf(Fields.integer(n, at, Integer.MIN_VALUE,
                    Integer.MAX_VALUE)));
        }
        if (!(with instanceof JsonString s)) {
            throw new InvalidTemplateException(at, "Required value: an integer or a string");
        }
        String text = Fields.bounded(s.getString(), at);
        boolean percent = text.endsWith("%");
        String number = percent ? text.substring(0, text.length() - 1) : text;
        if (NOT_FINITE.matcher(number).matches()) {
            throw new InvalidTemplateException(at, "\"" + text + "\" is not a finite number");
        }
        // kinitiras ignores a parse error (the value is then 0) and computes in float64
        double parsed = DECIMAL.matcher(number).matches() ? Double.parseDouble(number) : 0;
        if (Double.isInfinite(parsed)) {
            throw new InvalidTemplateException(at, "\"" + text + "\" is out of range");
        }
        if (percent) {
            parsed /= 100;
        }
        return new Process(operation, new BigDecimal(Double.toString(parsed)));
    }

    /**
     * The template as the {@code renderedCue} kinitiras's policy webhook writes into the rule: run by kinitiras's
     * engine with {@code data: {object, oldObject, extraParams}} (the old object only on UPDATE), and its {@code
     * valid} inverted for {@code affectMode: allow}, it gives what {@link #refusal} gives. Empty without a condition:
     * kinitiras then renders nothing and skips the rule.
     */
    public String renderedCue() {
        if (condition.isEmpty()) {
            return "";
        }
        Condition c = condition.get();
        String bindings = c.valueSource().map(r -> CueRendering.binding(r.cueKey(false))).orElse("")
                + (c.data().reference().fetched() ? CueRendering.binding(c.data().reference().cueKey(true)) : "");
        String data = c.data().cue(true);
        String reject = "valid: false, reason: " + CueRendering.string(c.message());
        if (c.cond().equals("NotExist")) {
            return CueRendering.validate(false, bindings, CueRendering.when(data + " == _|_", reject) + "\n");
        }
        String hit = switch (c.operand()) {
            case Absent a -> reject;
            case Listed l -> CueRendering.when((c.cond().equals("In") ? "" : "!") + "list.Contains("
                    + CueRendering.literal(l.values()) + ", " + data + ")", reject);
            case Fixed f -> CueRendering.when(data + " " + COMPARISONS.get(c.cond()).symbol + " "
                    + f.process().map(p -> p.cue(CueRendering.literal(f.given())))
                    .orElse(CueRendering.literal(f.given())), reject);
            case Referenced r -> {
                String value = r.reference().cue(false);
                yield CueRendering.when(value + " != _|_", CueRendering.when(data + " "
                        + COMPARISONS.get(c.cond()).symbol + " " + r.process().map(p -> p.cue(value)).orElse(value),
                        reject));
            }
        };
        return CueRendering.validate(c.operand() instanceof Listed, bindings, CueRendering.when(data + " != _|_", hit)
                + "\n");
    }

    @Override
    public Optional<String> refusal(PolicyInput input) throws PolicyEvaluationException {
        if (condition.isEmpty()) {
            return Optional.empty();
        }
        Condition c = condition.get();
        PolicyInput seen = "UPDATE".equals(input.operation()) ? input
                : new PolicyInput(input.operation(), input.object(), JsonValue.NULL, input.sources(),
                        input.deadlineNanos());
        JsonValue value = c.valueSource().isPresent() ? c.valueSource().get().fetch(seen) : null;
        Reference source = c.data().reference();
        JsonValue data = source.fetched() ? source.fetch(seen) : null;
        boolean hit = hit(c, c.data().find(seen, data), seen, value);
        if (hit != c.allow()) {
            return Optional.of(hit ? c.message() : "");
        }
        return Optional.empty();
    }

    private static boolean hit(Condition c, Optional<JsonValue> data, PolicyInput input, JsonValue fetchedValue)
            throws PolicyEvaluationException {
        if (c.cond().equals("NotExist")) {
            return data.isEmpty();
        }
        if (data.isEmpty()) {
            return false;
        }
        return switch (c.operand()) {
            case Absent a -> true;
            case Listed l -> Cue.contains(l.values(), data.get()) == c.cond().equals("In");
            case Fixed f -> {
                if (f.failure() != null) {
                    throw new PolicyEvaluationException(f.failure());
                }
                yield Cue.compare(data.get(), COMPARISONS.get(c.cond()), f.value());
            }
            case Referenced r -> {
                Optional<JsonValue> found = r.reference().find(input, fetchedValue);
                if (found.isEmpty()) {
                    yield false;
                }
                JsonValue operand = found.get();
                if (r.process().isPresent()) {
                    operand = r.process().get().apply(operand);
                }
                yield Cue.compare(data.get(), COMPARISONS.get(c.cond()), operand);
            }
        };
    }
}
