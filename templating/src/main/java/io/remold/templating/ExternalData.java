package io.remold.templating;

import jakarta.json.JsonValue;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where rules get data from external data providers: the template function {@code external "PROVIDER" KEY} and
 * Gatekeeper's {@code externalData}. The server answers from HTTPS providers (each key asked at most once per cache
 * TTL), {@code eval} from fake provider files. Implementations are thread-safe; {@link #fetch} waits at most the
 * provider's timeout and never throws.
 */
public interface ExternalData {
    /** Knows no provider: every key fails (closed). */
    ExternalData NONE = (provider, keys) -> failAll(keys, "no external data provider \"" + provider
            + "\" here", false, "none");

    /**
     * The most one admission request waits on providers in total (a {@link #forRequest} view's budget), under the
     * webhook's default timeout of 5 s.
     */
    java.time.Duration REQUEST_BUDGET = java.time.Duration.ofSeconds(3);

    /** The longest key a provider is asked (or {@code eval} looks up): longer keys fail without a call. */
    int MAX_KEY_LENGTH = 4096;

    /** Longest key or answer shown in an {@code --explain} line. */
    int MAX_EXPLAINED_CHARS = 200;

    /** One answer per key of {@code keys} (in their order), asking the provider once for every key not cached. */
    Map<String, Answer> fetch(String provider, Collection<String> keys);

    /**
     * A view for one admission request that explains nothing: its calls together wait at most
     * {@link #REQUEST_BUDGET}. The default view is this object. (eval's files, which never wait, remember each answer
     * anyway.)
     */
    default ExternalData forRequest() {
        return this;
    }

    /**
     * A view for one admission request whose calls together end by {@code deadlineNanos} ({@link System#nanoTime()}):
     * the request's time budget, which the rules of every family share (the server's {@code request-budget-ms}).
     * The default is {@link #forRequest(boolean)}.
     */
    default ExternalData forRequest(boolean explain, long deadlineNanos) {
        return forRequest(explain);
    }

    /**
     * A view for one admission request: its calls together wait at most {@link #REQUEST_BUDGET}, and when
     * {@code explain} it remembers what each call answered and from where, for {@code --explain} (only then: an
     * explanation costs a line per answer). The default is {@link #forRequest()}.
     */
    default ExternalData forRequest(boolean explain) {
        return forRequest();
    }

    /**
     * A view for the rules of one caller: a rule in {@code namespace}, {@code clusterWide} when it is in the system
     * namespace or from a file without one (Gatekeeper's mutators are cluster-wide: they call this object itself).
     * It shares this view's wait bound and explanation. An implementation that knows which namespaces a provider
     * serves (its {@code spec.namespaces}) refuses the others' calls, failing closed without asking the provider; the
     * default view is this object, serving every caller.
     */
    default ExternalData forCaller(String namespace, boolean clusterWide) {
        return this;
    }

    /** What the calls through this view answered, one line each (for {@code --explain}); empty when not kept. */
    default List<String> explained() {
        return List.of();
    }

    /**
     * One key's answer: a value, or the error why there is none. {@code failOpen} is the provider's failure policy
     * (true: {@code Ignore}, a rule goes on without the value; false: {@code Fail}, the rule fails). {@code source}
     * says where the answer came from ({@code cache}, {@code https://...}, a file), for {@code --explain}.
     */
    record Answer(JsonValue value, String error, boolean failOpen, String source) {
        public static Answer of(JsonValue value, String source) {
            return new Answer(value, null, false, source);
        }

        public static Answer failed(String error, boolean failOpen, String source) {
            return new Answer(null, error, failOpen, source);
        }

        public boolean failed() {
            return error != null;
        }
    }

    /**
     * A view of {@code data} that remembers the {@link #explain} line of every answer, with no wait bound of its own
     * (for answers that never wait: {@code eval}'s files, tests).
     */
    static ExternalData recording(ExternalData data) {
        return new RecordingExternalData(data, new RecordingExternalData.Lines());
    }

    /**
     * The {@code --explain} line of one answer: {@code external PROVIDER "KEY": VALUE (SOURCE)}, the value as compact
     * JSON, or {@code failed: ERROR} (with {@code , failurePolicy Ignore} when it fails open); long texts shortened.
     */
    static String explain(String provider, String key, Answer answer) {
        String what = answer.failed()
                ? "failed: " + answer.error() + (answer.failOpen() ? ", failurePolicy Ignore" : "")
                : String.valueOf(answer.value());
        return "external " + provider + " " + Json.provider().createValue(shortened(key, MAX_EXPLAINED_CHARS)) + ": "
                + shortened(what, MAX_EXPLAINED_CHARS) + " (" + answer.source() + ")";
    }

    /**
     * {@code text} cut to its first {@code maxChars} characters and {@code ...} when longer: how a key, an answer or a
     * provider's error is shown in errors, logs and explanations.
     */
    static String shortened(String text, int maxChars) {
        return text.length() > maxChars ? text.substring(0, maxChars) + "..." : text;
    }

    /** The same failure for every key: what an unreachable or unknown provider answers. */
    static Map<String, Answer> failAll(Collection<String> keys, String error, boolean failOpen, String source) {
        var answers = new LinkedHashMap<String, Answer>();
        for (String key : keys) {
            answers.put(key, Answer.failed(error, failOpen, source));
        }
        return answers;
    }
}
