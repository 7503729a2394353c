package io.remold.server.http;

import java.time.Duration;

/**
 * Bounds on webhook requests' bodies: per body, for all bodies in flight together, and the time a body may take to
 * arrive after its headers.
 */
public record HttpLimits(long maxBodyBytes, long maxBodyBytesInFlight, Duration readTimeout) {
}
