package io.remold.scripting;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The managed functions a script declares and their parameters, which the runtime passes by name in any order. Read
 * from the function declarations of the source (a later declaration replaces an earlier one, as in JavaScript).
 */
final class Signatures {
    static final String MUTATE = "jsa_mutate";
    static final String VALIDATE = "jsa_validate";
    static final String INIT = "jsa_init";
    static final String CREATED = "jsa_created";
    static final String UPDATED = "jsa_updated";
    static final String DELETED = "jsa_deleted";

    /** The parameters each managed function may name, in the order an error message lists them. */
    private static final Map<String, List<String>> PARAMETERS = Map.of(
            MUTATE, List.of("op", "obj", "sync", "state"),
            VALIDATE, List.of("op", "obj", "sync", "state"),
            INIT, List.of("state", "sync"),
            CREATED, List.of("obj", "sync", "state"),
            UPDATED, List.of("obj", "old", "sync", "state"),
            DELETED, List.of("obj", "sync", "state"));
    /** The seed's prose names jsa_updated's parameters oldObj and newObj: both spellings work. */
    private static final Map<String, String> ALIASES = Map.of("oldObj", "old", "newObj", "obj");
    private static final Pattern DECLARATION =
            Pattern.compile("\\bfunction\\s+(jsa_[A-Za-z0-9_$]*)\\s*\\(([^)]*)\\)");

    private Signatures() {
    }

    /** Each managed function declared, with its parameters (canonical names), or the problem and its line. */
    static Map<String, List<String>> of(String js) {
        var out = new LinkedHashMap<String, List<String>>();
        Matcher m = DECLARATION.matcher(js);
        while (m.find()) {
            String function = m.group(1);
            List<String> allowed = PARAMETERS.get(function);
            if (allowed == null) {
                continue; // the jsa_ prefix is reserved, but an unmanaged function is just a function
            }
            var params = new ArrayList<String>();
            for (String raw : m.group(2).split(",")) {
                String name = raw.strip();
                int eq = name.indexOf('=');
                name = (eq >= 0 ? name.substring(0, eq) : name).strip();
                if (name.isEmpty()) {
                    continue;
                }
                String canonical = function.equals(UPDATED) ? ALIASES.getOrDefault(name, name) : name;
                if (!allowed.contains(canonical) || params.contains(canonical)) {
                    throw new InvalidScriptException("spec.js", function + ": " + (params.contains(canonical)
                            ? "parameter " + name + " is named twice" : "unknown parameter " + name
                            + " (expected some of " + String.join(", ", allowed) + ", in any order)")
                            + " at line " + line(js, m.start()) + " of the script");
                }
                params.add(canonical);
            }
            out.put(function, List.copyOf(params));
        }
        return out;
    }

    private static int line(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
