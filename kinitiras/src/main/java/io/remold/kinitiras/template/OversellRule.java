package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code resourcesOversell}: the first container's requests set to its limits times a factor, computed as
 * kinitiras's CUE computes them: cpu as {@code <round(limit × factor × 1000)>m} (0m without a limit, or when the
 * request is "0"), memory and ephemeral-storage as plain numbers of bytes (only the suffixes Gi, G, Mi, M, Ki, K, Ti
 * and T are read; another gives 0). A memory factor without a memory limit, or an ephemeral-storage limit of "0", is
 * an evaluation error, as it is in kinitiras. The rule is off (only the missing maps are written) unless at least
 * one factor is in (0, 1); when it is on, every factor given is used, even one outside that range.
 */
record OversellRule(boolean remove, Optional<BigDecimal> cpu, Optional<BigDecimal> memory,
                    Optional<BigDecimal> disk, boolean on) implements TemplateRule {
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final String[] SUFFIXES = {"Gi", "G", "Mi", "M", "Ki", "K", "Ti", "T"};
    private static final int[] POWERS = {3, 3, 2, 2, 1, 1, 4, 4};
    private static final Pattern DIGITS = Pattern.compile("[0-9]*");
    private static final Pattern ATOI = Pattern.compile("[+-]?[0-9]{1,19}");

    static OversellRule parse(String op, JsonObject template, String field) {
        JsonObject rule = Fields.object(template, "resourcesOversell", field);
        String at = Fields.at(field, "resourcesOversell");
        Optional<BigDecimal> cpu = rule == null ? Optional.empty() : factor(rule, "cpuFactor", at);
        Optional<BigDecimal> memory = rule == null ? Optional.empty() : factor(rule, "memoryFactor", at);
        Optional<BigDecimal> disk = rule == null ? Optional.empty() : factor(rule, "diskFactor", at);
        boolean on = valid(cpu) || valid(memory) || valid(disk);
        return new OversellRule(op.equals("remove"), cpu, memory, disk, on);
    }

    private static Optional<BigDecimal> factor(JsonObject rule, String name, String field) {
        String text = Fields.text(rule, name, field);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        if (!Constant.CUE_NUMBER.matcher(text).matches()) {
            throw new InvalidTemplateException(Fields.at(field, name), "\"" + text + "\" is not a number");
        }
        return Optional.of(new BigDecimal(text));
    }

    private static boolean valid(Optional<BigDecimal> factor) {
        return factor.filter(f -> f.signum() > 0 && f.compareTo(BigDecimal.ONE) < 0).isPresent();
    }

    @Override
    public List<JsonObject> patches(PolicyInput input, JsonValue fetched) throws PolicyEvaluationException {
        Patch.FirstContainer container = Patch.FirstContainer.of(input.object());
        List<JsonObject> patches = ResourcesRule.missingMaps(container);
        if (!on) {
            return patches;
        }
        JsonObject resources = struct(resources(input.object(), container.pod()), "resources");
        JsonObject limits = struct(Patch.at(resources, "limits"), "limits");
        JsonObject requests = struct(Patch.at(resources, "requests"), "requests");
        String base = container.pointer() + "/resources/requests/";
        // kinitiras computes every given factor's value before writing any patch: an error in one fails them all
        BigDecimal cpuValue = cpu.isPresent() ? cpu(limits, requests, cpu.get()) : null;
        Optional<BigDecimal> memoryBytes = memory.isPresent()
                ? bytes(limits.get("memory"), memory.get(), "memory") : Optional.empty();
        Optional<Boolean> diskLimitZero = Optional.empty();
        Optional<BigDecimal> diskBytes = Optional.empty();
        if (disk.isPresent()) {
            JsonValue limit = limits.get("ephemeral-storage");
            diskLimitZero = limit == null ? Optional.of(true) : zeroDisk(limit);
            if (diskLimitZero.equals(Optional.of(false))) {
                diskBytes = bytes(limit, disk.get(), "ephemeral-storage");
            }
        }
        if (cpuValue != null) {
            if (remove) {
                removeIfPresent(requests, "cpu", base, patches);
            } else {
                BigInteger millis = round(cpuValue.multiply(BigDecimal.valueOf(1000), Cue.ARITHMETIC));
                if (millis.bitLength() > 63) {
                    throw new PolicyEvaluationException("strconv.FormatInt: cpu value out of range");
                }
                patches.add(Patch.of("replace", base + "cpu", millis + "m"));
            }
        }
        if (memory.isPresent()) {
            if (remove) {
                removeIfPresent(requests, "memory", base, patches);
            } else {
                patches.add(Patch.of("replace", base + "memory", JSON.createValue(round(memoryBytes
                        .orElseThrow(() -> incomplete("memory: the container has no memory limit"))))));
            }
        }
        if (disk.isPresent()) {
            boolean zero = diskLimitZero.orElseThrow(() -> incomplete("isZeroDiskLimit: the ephemeral-storage limit"
                    + " is \"0\" or empty"));
            if (!zero && remove) {
                removeIfPresent(requests, "ephemeral-storage", base, patches);
            } else if (!zero) {
                patches.add(Patch.of("replace", base + "ephemeral-storage",
                        JSON.createValue(round(diskBytes.orElseThrow()))));
            }
        }
        return patches;
    }

    @Override
    public List<String> cueImports() {
        return !on ? List.of() : remove ? List.of("strconv", "strings") : List.of("math", "strconv", "strings");
    }

    @Override
    public List<String> cueSteps() {
        if (!on) {
            return ResourcesRule.byKind(ResourcesRule::missingMapSteps);
        }
        return ResourcesRule.byKind((container, pointer) -> {
            List<String> own = ResourcesRule.missingMapSteps(container, pointer);
            String base = pointer + "/resources/requests/";
            cpu.ifPresent(f -> own.add(remove ? removeStep("cpu", base)
                    : CueRendering.patch("replace", base + "cpu",
                    "strconv.FormatInt(math.Round(cpu * 1000), 10) + \"m\"")));
            memory.ifPresent(f -> own.add(remove ? removeStep("memory", base)
                    : CueRendering.patch("replace", base + "memory", "math.Round(memory)")));
            disk.ifPresent(f -> own.add(CueRendering.when("!zeroDiskLimit", remove
                    ? removeStep("ephemeral-storage", base)
                    : CueRendering.patch("replace", base + "ephemeral-storage", "math.Round(disk)"))));
            return own;
        });
    }

    private static String removeStep(String name, String base) {
        return CueRendering.when("requests." + CueRendering.string(name) + " != _|_",
                CueRendering.patch("remove", base + name, null));
    }

    /**
     * The first container's maps, then each given factor's request, as fields the steps read. As in kinitiras's
     * CUE they are computed whatever the operation, so what fails there fails the template.
     */
    @Override
    public String cueDeclarations() {
        if (!on) {
            return "";
        }
        StringBuilder cue = new StringBuilder("""
                resources: {}
                if object.kind == "Pod" {resources: object.spec.containers[0].resources}
                if object.kind != "Pod" {resources: object.spec.template.spec.containers[0].resources}
                limits: {}
                if resources.limits != _|_ {limits: resources.limits}
                requests: {}
                if resources.requests != _|_ {requests: resources.requests}
                """);
        cpu.ifPresent(f -> cue.append("""
                cpuFactor: %s
                zeroCpuRequest: *false | bool
                if requests.cpu != _|_ {if requests.cpu == "0" {zeroCpuRequest: true}}
                cpu: *0 | number
                if limits.cpu != _|_ {
                    milliCpu: strings.HasSuffix(limits.cpu, "m")
                    if zeroCpuRequest {cpu: 0.0}
                    if !zeroCpuRequest {
                        if milliCpu {cpu: strconv.Atoi(strings.TrimSuffix(limits.cpu, "m")) * 0.001 * cpuFactor}
                        if !milliCpu {cpu: strconv.Atoi(limits.cpu) * cpuFactor}
                    }
                }
                """.formatted(f)));
        memory.ifPresent(f -> cue.append("""
                memoryFactor: %s
                memoryWithUnit: *false | bool
                if limits.memory != _|_ {memoryWithUnit: limits.memory !~ "^[0-9]*$"}
                memory: *0 | number
                """.formatted(f)).append(bytes("memory", "limits.memory", "memoryWithUnit", "memoryFactor", "")));
        disk.ifPresent(f -> cue.append("""
                diskFactor: %s
                zeroDiskLimit: bool
                diskWithUnit: *false | bool
                if limits."ephemeral-storage" == _|_ {zeroDiskLimit: true}
                if limits."ephemeral-storage" != _|_ {
                    diskWithUnit: limits."ephemeral-storage" !~ "^[0-9]*$"
                    if limits."ephemeral-storage" != "0" && limits."ephemeral-storage" != "" {zeroDiskLimit: false}
                }
                disk: *0 | number
                if !zeroDiskLimit {
                %s}
                """.formatted(f, bytes("disk", "limits.\"ephemeral-storage\"", "diskWithUnit", "diskFactor",
                "    "))));
        return cue.toString();
    }

    /**
     * {@code name}: the limit's bytes times the factor, reading the suffixes as {@link #bytes(JsonValue, BigDecimal,
     * String)} does, each line after {@code indent}.
     */
    private static String bytes(String name, String limit, String withUnit, String factor, String indent) {
        StringBuilder cue = new StringBuilder();
        for (int i = 0; i < SUFFIXES.length; i++) {
            String suffix = CueRendering.string(SUFFIXES[i]);
            String unit = SUFFIXES[i].endsWith("i") ? " * 1024" : " * 1000";
            cue.append(indent).append("if ").append(withUnit).append(" {if strings.HasSuffix(").append(limit)
                    .append(", ").append(suffix).append(") {").append(name).append(": strconv.Atoi(strings.TrimSuffix(")
                    .append(limit).append(", ").append(suffix).append("))").append(unit.repeat(POWERS[i]))
                    .append(" * ").append(factor).append("}}\n");
        }
        return cue.append(indent).append("if !").append(withUnit).append(" {").append(name).append(": strconv.Atoi(")
                .append(limit).append(") * ").append(factor).append("}\n").toString();
    }

    private static void removeIfPresent(JsonObject requests, String name, String base, List<JsonObject> patches) {
        if (requests.containsKey(name)) {
            patches.add(Patch.of("remove", base + name));
        }
    }

    /**
     * The first container's resources as kinitiras's oversell CUE binds them: a missing step gives nothing, a step
     * into anything but a struct (or a list without a first element) is an error.
     */
    private static Optional<JsonValue> resources(JsonValue object, boolean pod) throws PolicyEvaluationException {
        List<String> steps = pod ? List.of("spec", "containers", "0", "resources")
                : List.of("spec", "template", "spec", "containers", "0", "resources");
        JsonValue current = object;
        for (String step : steps) {
            if (step.equals("0") && current instanceof JsonArray list && !list.isEmpty()) {
                current = list.get(0);
            } else if (!step.equals("0") && current instanceof JsonObject struct) {
                if (!struct.containsKey(step)) {
                    return Optional.empty();
                }
                current = struct.get(step);
            } else {
                throw new PolicyEvaluationException("resources: cannot select " + step + " of "
                        + Cue.kind(current));
            }
        }
        return Optional.of(current);
    }

    /** A map the CUE unifies with {@code {}}: absent is empty, anything but an object conflicts. */
    private static JsonObject struct(Optional<JsonValue> value, String name) throws PolicyEvaluationException {
        if (value.isEmpty()) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        if (value.get() instanceof JsonObject o) {
            return o;
        }
        throw new PolicyEvaluationException(name + ": conflicting values {} and " + Cue.kind(value.get()));
    }

    private BigDecimal cpu(JsonObject limits, JsonObject requests, BigDecimal factor) throws PolicyEvaluationException {
        JsonValue request = requests.get("cpu");
        boolean zeroRequest = request != null && Cue.compare(request, Cue.Comparison.EQ, JSON.createValue("0"));
        JsonValue limit = limits.get("cpu");
        if (limit == null) {
            return BigDecimal.ZERO;
        }
        String text = string(limit, "cpu limit");
        if (zeroRequest) {
            return BigDecimal.ZERO;
        }
        if (text.endsWith("m")) {
            return atoi(text.substring(0, text.length() - 1)).multiply(new BigDecimal("0.001"), Cue.ARITHMETIC)
                    .multiply(factor, Cue.ARITHMETIC);
        }
        return atoi(text).multiply(factor, Cue.ARITHMETIC);
    }

    /** Bytes of a memory or storage limit times the factor; empty (CUE's incomplete) when a number is missing. */
    private static Optional<BigDecimal> bytes(JsonValue limit, BigDecimal factor, String what)
            throws PolicyEvaluationException {
        if (limit == null) {
            return Optional.empty();
        }
        String text = string(limit, what + " limit");
        if (DIGITS.matcher(text).matches()) {
            return Optional.of(atoi(text).multiply(factor, Cue.ARITHMETIC));
        }
        for (int i = 0; i < SUFFIXES.length; i++) {
            if (text.endsWith(SUFFIXES[i])) {
                BigDecimal value = atoi(text.substring(0, text.length() - SUFFIXES[i].length()));
                BigDecimal unit = BigDecimal.valueOf(SUFFIXES[i].endsWith("i") ? 1024 : 1000);
                for (int p = 0; p < POWERS[i]; p++) {
                    value = value.multiply(unit, Cue.ARITHMETIC);
                }
                return Optional.of(value.multiply(factor, Cue.ARITHMETIC));
            }
        }
        return Optional.of(BigDecimal.ZERO);
    }

    private static Optional<Boolean> zeroDisk(JsonValue limit) throws PolicyEvaluationException {
        string(limit, "ephemeral-storage limit");
        String text = ((JsonString) limit).getString();
        return text.equals("0") || text.isEmpty() ? Optional.empty() : Optional.of(false);
    }

    private static String string(JsonValue value, String what) throws PolicyEvaluationException {
        if (value instanceof JsonString s) {
            return s.getString();
        }
        throw new PolicyEvaluationException("invalid argument: " + what + " is " + Cue.kind(value)
                + ", not a string");
    }

    /** Go's {@code strconv.Atoi}: an optionally signed decimal integer within int64. */
    private static BigDecimal atoi(String text) throws PolicyEvaluationException {
        if (!ATOI.matcher(text).matches()) {
            throw new PolicyEvaluationException("strconv.Atoi: parsing \"" + text + "\": invalid syntax");
        }
        try {
            return BigDecimal.valueOf(Long.parseLong(text));
        } catch (NumberFormatException e) {
            throw new PolicyEvaluationException("strconv.Atoi: parsing \"" + text + "\": value out of range");
        }
    }

    /** CUE's {@code math.Round}: half away from zero. */
    private static BigInteger round(BigDecimal value) {
        return value.setScale(0, RoundingMode.HALF_UP).toBigInteger();
    }

    private static PolicyEvaluationException incomplete(String what) {
        return new PolicyEvaluationException("incomplete value: " + what);
    }
}
