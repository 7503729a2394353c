package io.remold.server.http;

import io.remold.engine.StageObserver;

import java.util.Optional;
import java.util.function.Function;

/**
 * Traces of admission requests: a span per request, with a child span per rule family stage that ran. {@link #OFF}
 * unless an OTLP endpoint is configured; then {@link OtlpTracing}, the only class that loads OpenTelemetry.
 */
public sealed interface Tracing extends AutoCloseable permits Tracing.Off, OtlpTracing {
    Tracing OFF = new Off();

    /**
     * The span of a request to {@code webhook} (its path), started now, child of the W3C trace context among the
     * request's {@code headers} (by lower-case name) when there is one.
     */
    RequestSpan start(String webhook, Function<String, Optional<String>> headers);

    /** Exports the spans still queued and stops. */
    @Override
    void close();

    /** One request's span. */
    interface RequestSpan {
        RequestSpan NONE = new RequestSpan() {
            @Override
            public void review(AdmissionReview review) {
            }

            @Override
            public StageObserver stages() {
                return StageObserver.NONE;
            }

            @Override
            public void end(Metrics.Outcome outcome) {
            }
        };

        /** What the request asks: its operation, kind and namespace. */
        void review(AdmissionReview review);

        /** Where the engine reports the stages that ran: each becomes a child span. */
        StageObserver stages();

        /** Ends the span with the request's outcome (allowed, patched; an error sets the span's status). */
        void end(Metrics.Outcome outcome);
    }

    /** No traces: every request gets {@link RequestSpan#NONE}, and the engine reads no clock for stages. */
    final class Off implements Tracing {
        private Off() {
        }

        @Override
        public RequestSpan start(String webhook, Function<String, Optional<String>> headers) {
            return RequestSpan.NONE;
        }

        @Override
        public void close() {
        }
    }
}
