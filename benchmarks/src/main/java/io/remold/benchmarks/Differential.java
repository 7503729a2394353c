package io.remold.benchmarks;

import io.remold.engine.Engine;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The differential test against Gatekeeper ({@code benchmarks/differential.sh}): the same {@link GeneratedReviews} go
 * to both mutating webhooks, each answer's JSON Patch is applied to the review's object, and the two resulting objects
 * must be equal. A mutation that fails in both (Gatekeeper answers an error, Remold a warning: both webhooks fail
 * open) counts as the same result.
 *
 * <pre>
 *   Differential write DIR                      # DIR/rules/mutators.yaml and DIR/namespaces (one a line)
 *   Differential run SEED COUNT GATEKEEPER_URL REMOLD_URL
 *   Differential same REVIEW ANSWER ANSWER      # compare.sh: two answers to one review make the same change
 * </pre>
 */
public final class Differential {
    private static final JsonProvider JSON = JsonProvider.provider();

    /** What a webhook made of an object: the patched object, or why its mutation failed. */
    record Outcome(JsonValue object, String error, String patch) {
        boolean sameAs(Outcome other) {
            return error != null ? other.error != null : other.error == null && object.equals(other.object);
        }

        String describe() {
            return error != null ? "failed: " + error : "patch " + patch;
        }
    }

    private Differential() {
    }

    /** The object after a webhook's answer: its JSON Patch applied, or the failure it reported. */
    static Outcome outcome(JsonObject object, JsonObject response) {
        if (!response.getBoolean("allowed", false)) {
            return new Outcome(null, String.valueOf(response.get("status")), null);
        }
        if (response.get("warnings") instanceof JsonArray warnings) {
            for (JsonString warning : warnings.getValuesAs(JsonString.class)) {
                if (warning.getString().startsWith("Gatekeeper mutation ")) {
                    return new Outcome(null, warning.getString(), null);
                }
            }
        }
        if (!(response.get("patch") instanceof JsonString encoded)) {
            return new Outcome(object, null, "[]");
        }
        String patch = new String(Base64.getDecoder().decode(encoded.getString()), StandardCharsets.UTF_8);
        JsonArray operations = JSON.createReader(new StringReader(patch)).readArray();
        return new Outcome(JSON.createPatch(operations).apply(object), null, patch);
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("write")) {
            Path dir = Files.createDirectories(Path.of(args[1], "rules")).getParent();
            Files.writeString(dir.resolve("rules/mutators.yaml"), GatekeeperMix.yaml(GatekeeperMix.VARIED));
            Files.write(dir.resolve("namespaces"), GeneratedReviews.NAMESPACES);
        } else if (args.length == 4 && args[0].equals("same")) {
            System.exit(same(read(Path.of(args[1])), read(Path.of(args[2])), read(Path.of(args[3]))) ? 0 : 1);
        } else if (args.length == 5 && args[0].equals("run")) {
            System.exit(run(Long.parseLong(args[1]), Integer.parseInt(args[2]), URI.create(args[3]),
                URI.create(args[4])) ? 0 : 1);
        } else {
            System.err.println("usage: Differential write DIR | run SEED COUNT GATEKEEPER_URL REMOLD_URL"
                + " | same REVIEW ANSWER ANSWER");
            System.exit(2);
        }
    }

    /** Whether two answers to a review change its object, and in the same way; prints both patches. */
    private static boolean same(JsonObject review, JsonObject first, JsonObject second) {
        JsonObject object = review.getJsonObject("request").getJsonObject("object");
        Outcome a = outcome(object, first.getJsonObject("response"));
        Outcome b = outcome(object, second.getJsonObject("response"));
        boolean same = a.error == null && !a.object.equals(object) && a.sameAs(b);
        System.out.printf("%s answers: %s%n                %s%n", same ? "the same change," : "DIFFERENT", a.describe(),
            b.describe());
        return same;
    }

    private static JsonObject read(Path file) throws IOException {
        return JSON.createReader(new StringReader(Files.readString(file))).readObject();
    }

    /** Sends every review to both webhooks; prints each difference with the seed and index; true if there is none. */
    private static boolean run(long seed, int count, URI gatekeeper, URI remold) throws Exception {
        // Both webhooks serve self-signed certificates on 127.0.0.1.
        System.setProperty("jdk.internal.httpclient.disableHostnameVerification", "true");
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .sslContext(LoadGenerator.tls(null, true)).build();
        int mutated = 0;
        int failed = 0;
        List<String> differences = new ArrayList<>();
        List<JsonObject> reviews = GeneratedReviews.reviews(seed, count);
        for (int i = 0; i < reviews.size(); i++) {
            JsonObject review = reviews.get(i);
            JsonObject object = review.getJsonObject("request").getJsonObject("object");
            Outcome expected = outcome(object, post(http, gatekeeper, review));
            Outcome actual = outcome(object, post(http, remold, review));
            if (!expected.sameAs(actual)) {
                JsonObject metadata = object.getJsonObject("metadata");
                differences.add("""
                    DIFFERENCE seed=%d index=%d: %s %s/%s (%s)
                      gatekeeper: %s
                      remold:     %s
                      remold's object against gatekeeper's: %s""".formatted(seed, i, object.getString("kind"),
                    metadata.getString("namespace"), metadata.getString("name", metadata.getString("generateName")),
                    review.getJsonObject("request").getString("operation"), expected.describe(), actual.describe(),
                    expected.error != null || actual.error != null ? "-" : Engine.diff(expected.object, actual.object)));
            } else if (expected.error != null) {
                failed++;
            } else if (!expected.object.equals(object)) {
                mutated++;
            }
        }
        differences.forEach(System.out::println);
        System.out.printf("differential: seed=%d count=%d: %d identical (%d mutated, %d failed in both), %d different%n",
            seed, count, count - differences.size(), mutated, failed, differences.size());
        return differences.isEmpty();
    }

    private static JsonObject post(HttpClient http, URI url, JsonObject review) throws IOException,
            InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(url)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(review.toString())).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(url + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.createReader(new StringReader(response.body())).readObject().getJsonObject("response");
    }
}
