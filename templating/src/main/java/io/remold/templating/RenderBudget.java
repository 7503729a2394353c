package io.remold.templating;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Characters the templates of one admission request may render: every text a template produces (each function's
 * result, each value, message and reference name) counts, per rule, per request, and across all requests in flight.
 * Each text is itself at most {@link TextValues#MAX_RENDERED_CHARS}, and is counted as soon as it exists, so no rule
 * holds more than its bound plus one text. A request renders on one thread: only the total is shared.
 */
public final class RenderBudget implements AutoCloseable {
    /** 2 Mi characters per rule: twice the most a ConfigMap or Secret holds, so a rule can rewrite any of them. */
    public static final long MAX_PER_RULE = 2L << 20;
    /** 4 Mi characters per request: a few such rules on one object. */
    public static final long MAX_PER_REQUEST = 4L << 20;
    /**
     * 16 Mi characters (at most 32 MiB of heap) across the requests in flight: 256 of them at their own bound
     * would be 1 GiB, eight times the server's 128 MiB heap, which also holds up to 32 MiB of request bodies.
     */
    public static final long MAX_IN_TOTAL = 16L << 20;
    private static final AtomicLong IN_FLIGHT = new AtomicLong();

    private final long perRule;
    private final long perRequest;
    private final long inTotal;
    /** Null for a render's own budget. */
    private final AtomicLong total;
    private long rule;
    private long request;

    RenderBudget(long perRule, long perRequest, long inTotal, AtomicLong total) {
        this.perRule = perRule;
        this.perRequest = perRequest;
        this.inTotal = inTotal;
        this.total = total;
    }

    /** One admission request's budget, a share of the server's total until {@link #close()}. */
    public static RenderBudget forRequest() {
        return new RenderBudget(MAX_PER_RULE, MAX_PER_REQUEST, MAX_IN_TOTAL, IN_FLIGHT);
    }

    /** The budget of one render outside a request (no context's budget): the per-rule bound, no share of the total. */
    static RenderBudget standalone() {
        return new RenderBudget(MAX_PER_RULE, MAX_PER_REQUEST, Long.MAX_VALUE, null);
    }

    /** The next texts are the next rule's. */
    public void startRule() {
        rule = 0;
    }

    /** Counts a text of {@code chars} characters the template at {@code offset} produced; refused past a bound. */
    void charge(int chars, SourceText source, int offset) {
        if (rule + chars > perRule) {
            throw source.error("renders more than " + perRule + " characters in this rule (its values, messages "
                    + "and reference names together)", offset);
        }
        if (request + chars > perRequest) {
            throw source.error("renders more than " + perRequest + " characters in this admission request (all "
                    + "its rules together)", offset);
        }
        if (total != null && total.addAndGet(chars) > inTotal) {
            total.addAndGet(-chars);
            throw source.error("the server renders more than " + inTotal + " characters for the admission "
                    + "requests in flight", offset);
        }
        rule += chars;
        request += chars;
    }

    /** Gives the request's characters back to the server's total. */
    @Override
    public void close() {
        if (total != null) {
            total.addAndGet(-request);
        }
        request = 0;
        rule = 0;
    }
}
