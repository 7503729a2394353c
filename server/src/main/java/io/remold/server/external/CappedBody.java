package io.remold.server.external;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read into memory up to {@code cap} bytes: one byte more cancels the subscription (the client then
 * closes the connection, so a provider streaming without end is not read on) and fails the body.
 */
final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {
    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final int cap;
    private Flow.Subscription subscription;

    CappedBody(int cap) {
        this.cap = cap;
    }

    static HttpResponse.BodyHandler<byte[]> handler(int cap) {
        return info -> new CappedBody(cap);
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (body.isDone()) {
            return; // cancelled: buffers already on their way are dropped
        }
        for (ByteBuffer buffer : buffers) {
            if (bytes.size() + buffer.remaining() > cap) {
                subscription.cancel();
                body.completeExceptionally(new IOException("the answer is larger than " + cap / 1024 + " KiB"));
                return;
            }
            byte[] chunk = new byte[buffer.remaining()];
            buffer.get(chunk);
            bytes.writeBytes(chunk);
        }
    }

    @Override
    public void onError(Throwable error) {
        body.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
        body.complete(bytes.toByteArray());
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return body;
    }
}
