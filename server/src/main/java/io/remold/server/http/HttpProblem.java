package io.remold.server.http;

/** An answer other than an AdmissionReview: the status code, and the reason sent as JSON. */
final class HttpProblem extends RuntimeException {
    final int code;

    HttpProblem(int code, String reason) {
        super(reason, null, false, false);
        this.code = code;
    }
}
