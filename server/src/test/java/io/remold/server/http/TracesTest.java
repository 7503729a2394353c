package io.remold.server.http;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.sameInstance;

/**
 * Traces of real HTTPS admission requests, exported over OTLP/HTTP to a collector in the test (a loopback HTTP server
 * that decodes the protobuf requests): a span per request with what it asked and how it ended, a child span per
 * rule family stage, and the caller's W3C trace context as parent.
 */
class TracesTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT_ID = "00f067aa0ba902b7";

    private final List<ExportTraceServiceRequest> received = new CopyOnWriteArrayList<>();
    private HttpServer collector;

    @BeforeEach
    void startCollector() throws IOException {
        collector = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        collector.createContext("/v1/traces", exchange -> {
            try (exchange) {
                received.add(ExportTraceServiceRequest.parseFrom(exchange.getRequestBody().readAllBytes()));
                byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
                exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
                exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
                exchange.getResponseBody().write(answer);
            }
        });
        collector.start();
    }

    @AfterEach
    void stopCollector() {
        collector.stop(0);
    }

    private List<Span> spans() {
        return received.stream().flatMap(r -> r.getResourceSpansList().stream())
                .flatMap(r -> r.getScopeSpansList().stream()).flatMap(s -> s.getSpansList().stream()).toList();
    }

    private static Map<String, Object> attributes(Span span) {
        return span.getAttributesList().stream().collect(Collectors.toMap(KeyValue::getKey, kv -> value(kv.getValue())));
    }

    private static Object value(AnyValue value) {
        return value.hasBoolValue() ? (Object) value.getBoolValue() : value.getStringValue();
    }

    private static String hex(com.google.protobuf.ByteString bytes) {
        return HexFormat.of().formatHex(bytes.toByteArray());
    }

    private static HttpResponse<String> post(TestServer server, String path, String body, String traceparent) {
        var request = HttpRequest.newBuilder(server.uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (traceparent != null) {
            request.header("traceparent", traceparent);
        }
        return TestServer.send(server.client, request.build());
    }

    @Test
    void eachAdmissionRequestIsASpanWithItsRuleStagesAsChildren(@TempDir Path dir) {
        var tracing = new OtlpTracing(URI.create("http://127.0.0.1:" + collector.getAddress().getPort() + "/"), "remold");
        try (var server = new TestServer(dir, tracing)) {
            server.rules(DecisionsOverHttpsTest.RULES);
            String pod = WebhookServerTest.review("m1", "CREATE", "");
            assertThat(post(server, "/mutate", pod, "00-" + TRACE_ID + "-" + PARENT_ID + "-01").statusCode(), is(200));
            String latest = WebhookServerTest.review("v1", "CREATE", "").replace("\"namespace\":\"team-a\"}}",
                    "\"namespace\":\"team-a\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:latest\"}]}}");
            assertThat(post(server, "/validate", latest, null).statusCode(), is(200));
            assertThat(post(server, "/mutate", "{not json", null).statusCode(), is(400));
        }
        tracing.close(); // exports what is queued

        List<Span> spans = spans();
        Span mutate = only(spans, "admission /mutate", true);
        assertThat(hex(mutate.getTraceId()), is(TRACE_ID));
        assertThat(hex(mutate.getParentSpanId()), is(PARENT_ID));
        assertThat(mutate.getKind(), is(Span.SpanKind.SPAN_KIND_SERVER));
        assertThat(attributes(mutate), equalTo(Map.of("remold.webhook", "/mutate", "remold.operation", "CREATE",
                "remold.kind", "Pod", "remold.namespace", "team-a", "remold.outcome", "patched",
                "remold.allowed", true, "remold.patched", true)));
        Span modRules = children(spans, mutate).get(0);
        assertThat(children(spans, mutate).size(), is(1));
        assertThat(modRules.getName(), is("ModRule"));
        assertThat(modRules.getStartTimeUnixNano(), greaterThanOrEqualTo(mutate.getStartTimeUnixNano()));
        assertThat(modRules.getEndTimeUnixNano(), lessThanOrEqualTo(mutate.getEndTimeUnixNano()));

        Span validate = only(spans, "admission /validate", true);
        assertThat("no traceparent: a trace of its own", validate.getParentSpanId().isEmpty(), is(true));
        assertThat(hex(validate.getTraceId()), is(not(TRACE_ID)));
        assertThat(attributes(validate).get("remold.allowed"), is(false));
        assertThat(attributes(validate).get("remold.outcome"), is("rejected"));
        assertThat(children(spans, validate).stream().map(Span::getName).toList(), contains("ModRule"));

        Span malformed = only(spans, "admission /mutate", false);
        assertThat(attributes(malformed).get("remold.outcome"), is("bad_request"));
        assertThat(children(spans, malformed), is(empty()));
        assertThat(spans.stream().map(Span::getName).toList(), containsInAnyOrder("admission /mutate",
                "admission /mutate", "admission /validate", "ModRule", "ModRule"));
    }

    @Test
    void tracingOffHandsEveryRequestTheSameInertSpan() {
        var span = Tracing.OFF.start("/mutate", name -> java.util.Optional.of("00-" + TRACE_ID + "-" + PARENT_ID + "-01"));
        assertThat(span, sameInstance(Tracing.RequestSpan.NONE));
        assertThat(span.stages(), sameInstance(io.remold.engine.StageObserver.NONE));
        assertThat(io.remold.engine.StageObserver.NONE.now(), is(0L));
    }

    /** The request span named {@code name} that did ({@code decided}) or did not get as far as a decision. */
    private static Span only(List<Span> spans, String name, boolean decided) {
        List<Span> matching = spans.stream().filter(s -> s.getName().equals(name))
                .filter(s -> attributes(s).containsKey("remold.operation") == decided).toList();
        assertThat(name + " among " + spans.stream().map(s -> s.getName() + attributes(s)).toList(), matching.size(),
                is(1));
        return matching.get(0);
    }

    private static List<Span> children(List<Span> spans, Span parent) {
        return spans.stream().filter(s -> s.getParentSpanId().equals(parent.getSpanId())).toList();
    }
}
