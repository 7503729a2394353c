package io.remold.server.http;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.Clock;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.remold.engine.RuleFamily;
import io.remold.engine.StageObserver;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Spans exported over OTLP/HTTP (protobuf, the JDK's HttpClient) in batches: a full queue drops spans rather than
 * holding requests or memory (the SDK's batch processor: 2048 spans queued at most).
 */
public final class OtlpTracing implements Tracing {
    static final AttributeKey<String> WEBHOOK = AttributeKey.stringKey("remold.webhook");
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("remold.operation");
    static final AttributeKey<String> KIND = AttributeKey.stringKey("remold.kind");
    static final AttributeKey<String> NAMESPACE = AttributeKey.stringKey("remold.namespace");
    static final AttributeKey<Boolean> ALLOWED = AttributeKey.booleanKey("remold.allowed");
    static final AttributeKey<Boolean> PATCHED = AttributeKey.booleanKey("remold.patched");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("remold.outcome");
    static final AttributeKey<String> FAMILY = AttributeKey.stringKey("remold.family");
    private static final Duration EXPORT_TIMEOUT = Duration.ofSeconds(10);
    private static final TextMapGetter<Function<String, Optional<String>>> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Function<String, Optional<String>> headers) {
            return List.of("traceparent", "tracestate");
        }

        @Override
        public String get(Function<String, Optional<String>> headers, String key) {
            return headers == null ? null : headers.apply(key).orElse(null);
        }
    };

    private final SdkTracerProvider provider;
    private final Tracer tracer;
    private final Clock clock = Clock.getDefault();

    /** Exports to {@code endpoint} (the collector's base URL: spans go to its /v1/traces) as {@code service}. */
    public OtlpTracing(URI endpoint, String service) {
        String base = endpoint.toString().replaceAll("/+$", "");
        var exporter = OtlpHttpSpanExporter.builder().setEndpoint(base + "/v1/traces").setTimeout(EXPORT_TIMEOUT)
                .build();
        this.provider = SdkTracerProvider.builder()
                .setResource(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), service)))
                .addSpanProcessor(BatchSpanProcessor.builder(exporter).build())
                .build();
        this.tracer = provider.get("io.remold.server");
    }

    @Override
    public RequestSpan start(String webhook, Function<String, Optional<String>> headers) {
        Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, HEADERS);
        long startEpochNanos = clock.now();
        long startNanos = System.nanoTime();
        Span span = tracer.spanBuilder("admission " + webhook).setParent(parent).setSpanKind(SpanKind.SERVER)
                .setStartTimestamp(startEpochNanos, TimeUnit.NANOSECONDS).setAttribute(WEBHOOK, webhook).startSpan();
        return new Request(tracer, span, Context.root().with(span), startEpochNanos, startNanos);
    }

    @Override
    public void close() {
        provider.shutdown().join(EXPORT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /**
     * A request's span ({@code context} holds it, for its children); the stages' times ({@link System#nanoTime()})
     * are placed on the span's wall clock, which read {@code startEpochNanos} when {@code nanoTime} read
     * {@code startNanos}.
     */
    private record Request(Tracer tracer, Span span, Context context, long startEpochNanos, long startNanos)
            implements RequestSpan, StageObserver {
        @Override
        public void review(AdmissionReview review) {
            span.setAttribute(OPERATION, review.operation().name());
            span.setAttribute(KIND, review.kind());
            span.setAttribute(NAMESPACE, review.namespace() == null ? "" : review.namespace());
        }

        @Override
        public StageObserver stages() {
            return this;
        }

        @Override
        public void ran(RuleFamily family, long stageStart, long stageEnd) {
            tracer.spanBuilder(family.name()).setParent(context).setSpanKind(SpanKind.INTERNAL)
                    .setAttribute(FAMILY, family.name())
                    .setStartTimestamp(startEpochNanos + stageStart - startNanos, TimeUnit.NANOSECONDS).startSpan()
                    .end(startEpochNanos + stageEnd - startNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void end(Metrics.Outcome outcome) {
            span.setAttribute(OUTCOME, outcome.name());
            switch (outcome) {
                case allowed, patched, rejected -> {
                    span.setAttribute(ALLOWED, outcome != Metrics.Outcome.rejected);
                    span.setAttribute(PATCHED, outcome == Metrics.Outcome.patched);
                }
                // the server failed; a bad request or an unread body is the client's (no error status for those)
                case error -> span.setStatus(StatusCode.ERROR, "evaluation failed");
                case bad_request, unread -> { }
            }
            span.end(startEpochNanos + System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        }
    }
}
