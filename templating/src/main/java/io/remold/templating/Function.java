package io.remold.templating;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.remold.jsonpath.BoundedRegex;
import jakarta.json.JsonArray;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.stream.Collectors;

/**
 * The pipe functions, Sprig style: a piped value becomes the last argument. Every function takes its arguments
 * in Sprig's order except {@code regexReplaceAll REGEX REPLACEMENT INPUT}, whose input comes last so that it can be piped.
 */
enum Function {
    DEFAULT("default", 2, 2) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            return TextValues.isEmpty(args[1]) ? args[0] : args[1];
        }
    },
    QUOTE("quote", 1, Integer.MAX_VALUE) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            StringJoiner quoted = new StringJoiner(" ");
            for (JsonValue arg : args) {
                if (arg != null) {
                    quoted.add(Json.provider().createValue(TextValues.text(arg)).toString());
                }
            }
            return string(quoted.toString());
        }
    },
    LOWER("lower", 1, 1) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            String input = TextValues.text(args[0]);
            return string(args[0], input, input.toLowerCase(Locale.ROOT));
        }
    },
    UPPER("upper", 1, 1) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            String input = TextValues.text(args[0]);
            return string(args[0], input, input.toUpperCase(Locale.ROOT));
        }
    },
    TRIM("trim", 1, 1) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            String input = TextValues.text(args[0]);
            return string(args[0], input, input.strip());
        }
    },
    TRIM_PREFIX("trimPrefix", 2, 2) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            String prefix = TextValues.text(args[0]);
            String input = TextValues.text(args[1]);
            return string(args[1], input, input.startsWith(prefix) ? input.substring(prefix.length()) : input);
        }
    },
    TRIM_SUFFIX("trimSuffix", 2, 2) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            String suffix = TextValues.text(args[0]);
            String input = TextValues.text(args[1]);
            return string(args[1], input, input.endsWith(suffix) ? input.substring(0, input.length() - suffix.length()) : input);
        }
    },
    REPLACE("replace", 3, 3) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            String input = TextValues.text(args[2]);
            if (!TextValues.replacementFits(input, TextValues.text(args[0]), TextValues.text(args[1]))) {
                throw call.error("renders more than " + TextValues.MAX_RENDERED_CHARS + " characters");
            }
            return string(args[2], input, input.replace(TextValues.text(args[0]), TextValues.text(args[1])));
        }
    },
    REGEX_REPLACE_ALL("regexReplaceAll", 3, 3) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            CallSite site = call.site();
            GoReplacement prepared = site.replacement();
            String input = TextValues.text(args[2]);
            Object key = prepared != null
                    ? site.key(input)
                    : site.key(false, TextValues.text(args[0]), TextValues.text(args[1]), input);
            JsonValue memoized = site.get(key);
            if (memoized != null) {
                return memoized;
            }
            Pattern pattern = pattern(call, args[0]);
            String result = prepared != null
                    ? prepared.replaceAll(pattern, input)
                    : GoReplacement.replaceAll(pattern, input, TextValues.text(args[1]));
            JsonValue value = string(args[2], input, result);
            site.put(key, value, result.length());
            return value;
        }
    },
    REGEX_FIND("regexFind", 2, 2) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            CallSite site = call.site();
            String input = TextValues.text(args[1]);
            Object key = call.args().getFirst() instanceof Expression.RegexLiteral
                    ? site.key(input)
                    : site.key(false, TextValues.text(args[0]), input);
            JsonValue memoized = site.get(key);
            if (memoized != null) {
                return memoized;
            }
            Matcher matcher = pattern(call, args[0]).matcher(input);
            String found = matcher.find() ? matcher.group() : ""; // group 0 needs no capturing pass
            JsonValue value = found.equals(input) && args[1] instanceof JsonString same ? same : string(found);
            site.put(key, value, found.length());
            return value;
        }
    },
    B64ENC("b64enc", 1, 1) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            return string(Base64.getEncoder().encodeToString(TextValues.text(args[0]).getBytes(StandardCharsets.UTF_8)));
        }
    },
    B64DEC("b64dec", 1, 1) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            try {
                return string(new String(Base64.getDecoder().decode(TextValues.text(args[0])), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                throw call.error("input is not base64: " + e.getMessage());
            }
        }
    },
    TO_JSON("toJson", 1, 1) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            return string(args[0] == null ? "null" : args[0].toString());
        }
    },
    JOIN("join", 2, 2) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            if (args[1] instanceof JsonArray list) {
                if ((long) TextValues.text(args[0]).length() * list.size() > TextValues.MAX_RENDERED_CHARS) {
                    throw call.error("renders more than " + TextValues.MAX_RENDERED_CHARS + " characters");
                }
                return string(list.stream().map(TextValues::text).collect(Collectors.joining(TextValues.text(args[0]))));
            }
            return string(TextValues.text(args[1]));
        }
    },
    IMAGE_DOMAIN("imageDomain", 1, 1) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            return imagePart(args[0], ImageReference::domain);
        }
    },
    IMAGE_PATH("imagePath", 1, 1) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            return imagePart(args[0], ImageReference::path);
        }
    },
    IMAGE_TAG("imageTag", 1, 1) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            return imagePart(args[0], ImageReference::tag);
        }
    },
    IMAGE_WITH("imageWith", 4, 4) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            String input = TextValues.text(args[3]);
            var parts = new ImageReference(TextValues.text(args[0]), TextValues.text(args[1]), TextValues.text(args[2]));
            String result = ImageReference.split(input).replacedBy(parts).text();
            return string(args[3], input, result.equals(input) ? input : result);
        }
    },
    SHA256SUM("sha256sum", 1, 1) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256")
                        .digest(TextValues.text(args[0]).getBytes(StandardCharsets.UTF_8));
                return string(HexFormat.of().formatHex(digest));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JDK has SHA-256", e);
            }
        }
    },
    /**
     * {@code external PROVIDER KEY}: the provider's answer for the key's text, asked through the request's
     * {@link ExternalData} view (never memoized here: the view's cache decides how long an answer lives). A missing
     * key asks nothing and gives null; a failed key gives null when the provider fails open, else fails the render.
     */
    EXTERNAL("external", 2, 2) {
        @Override
        JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args) {
            if (args[1] == null || args[1] == JsonValue.NULL) {
                return null;
            }
            String provider = TextValues.text(args[0]);
            String key = TextValues.text(args[1]);
            ExternalData.Answer answer = scope.context().external().fetch(provider, List.of(key)).get(key);
            if (answer == null) {
                answer = ExternalData.Answer.failed("the provider gave no answer", false, "none");
            }
            if (!answer.failed()) {
                return answer.value();
            }
            if (answer.failOpen()) {
                return null;
            }
            throw call.source().error("external " + quoted(provider) + " key " + quoted(key) + ": " + answer.error(),
                    call.offset());
        }
    };

    private static final Map<String, Function> BY_NAME =
            Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(Function::functionName, f -> f));

    /** Remold's own functions, which a Go template of a KubeMod rule cannot call (KubeMod has Sprig's only). */
    private static final Set<Function> REMOLD_ONLY =
            EnumSet.of(IMAGE_DOMAIN, IMAGE_PATH, IMAGE_TAG, IMAGE_WITH, EXTERNAL);

    /** Longest key or provider name an error message of {@code external} quotes whole. */
    private static final int MAX_QUOTED_CHARS = 200;

    private final String functionName;
    private final int minArgs;
    private final int maxArgs;

    Function(String functionName, int minArgs, int maxArgs) {
        this.functionName = functionName;
        this.minArgs = minArgs;
        this.maxArgs = maxArgs;
    }

    abstract JsonValue apply(Expression.Call call, Scope scope, JsonValue[] args);

    static Function named(String name) {
        return BY_NAME.get(name);
    }

    static boolean exists(String name) {
        return BY_NAME.containsKey(name);
    }

    boolean inSprig() {
        return !REMOLD_ONLY.contains(this);
    }

    String functionName() {
        return functionName;
    }

    String arity() {
        if (maxArgs == Integer.MAX_VALUE) {
            return "at least " + minArgs + (minArgs == 1 ? " argument" : " arguments");
        }
        return minArgs + (minArgs == 1 ? " argument" : " arguments");
    }

    boolean acceptsArgCount(int count) {
        return count >= minArgs && count <= maxArgs;
    }

    /** The index of the argument that is a regular expression, or -1. */
    int regexArgument() {
        return this == REGEX_FIND || this == REGEX_REPLACE_ALL ? 0 : -1;
    }

    private static JsonValue imagePart(JsonValue image, java.util.function.Function<ImageReference, String> part) {
        return string(part.apply(ImageReference.split(TextValues.text(image))));
    }

    private static JsonValue string(String value) {
        return Json.provider().createValue(value);
    }

    /** A text quoted the way JSON writes it, shortened past {@value #MAX_QUOTED_CHARS} characters (for errors). */
    private static String quoted(String text) {
        return string(ExternalData.shortened(text, MAX_QUOTED_CHARS)).toString();
    }

    /** {@code result} as a JSON string; the argument itself when it is a string and the function left it as it was. */
    private static JsonValue string(JsonValue argument, String input, String result) {
        return result == input && argument instanceof JsonString ? argument : string(result);
    }

    private static Pattern pattern(Expression.Call call, JsonValue regex) {
        if (call.args().getFirst() instanceof Expression.RegexLiteral literal) {
            return literal.pattern();
        }
        try {
            return BoundedRegex.compile(TextValues.text(regex));
        } catch (PatternSyntaxException e) {
            throw call.error("bad regular expression: " + e.getMessage());
        }
    }
}
