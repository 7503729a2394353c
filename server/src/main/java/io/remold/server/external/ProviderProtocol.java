package io.remold.server.external;

import io.remold.templating.ExternalData;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Gatekeeper's external data protocol ({@code externaldata.gatekeeper.sh/v1beta1}): the ProviderRequest body, and
 * the ProviderResponse read into one result per key.
 */
final class ProviderProtocol {
    static final String API_VERSION = "externaldata.gatekeeper.sh/v1beta1";
    /** Longest error text kept from a provider: its errors end up in rule errors, warnings and logs. */
    static final int MAX_ERROR_CHARS = 512;
    static final String NOT_IDEMPOTENT = "the provider says its answers are not idempotent; Remold caches answers";
    /** Looked up once: {@code Json.*} would look the provider up on every call. */
    static final JsonProvider JSON = JsonProvider.provider();

    /** A key's result: its value, or the error the provider gave for it. */
    record Item(JsonValue value, String error) {
    }

    /** The whole answer cannot be used (systemError, malformed): every key asked fails with this message. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    private ProviderProtocol() {
    }

    static byte[] request(Collection<String> keys) {
        JsonArray array = JSON.createArrayBuilder(List.copyOf(keys)).build();
        return JSON.createObjectBuilder().add("apiVersion", API_VERSION).add("kind", "ProviderRequest")
                .add("request", JSON.createObjectBuilder().add("keys", array)).build().toString()
                .getBytes(StandardCharsets.UTF_8);
    }

    /** The items of a ProviderResponse by key; a key the provider did not answer is absent. */
    static Map<String, Item> response(byte[] body) throws Refused {
        JsonValue document;
        try (var reader = JSON.createReader(new ByteArrayInputStream(body))) {
            document = reader.readValue();
        } catch (JsonException e) {
            throw new Refused("malformed answer: " + e.getMessage());
        } catch (NumberFormatException e) {
            // Parsson reads each number as a BigDecimal, which refuses an exponent beyond an int (1E9999999999)
            throw new Refused("malformed answer: a number out of range (" + e.getMessage() + ")");
        }
        if (!(document instanceof JsonObject object) || !(object.get("response") instanceof JsonObject response)) {
            throw new Refused("malformed answer: expected a ProviderResponse with a response object");
        }
        if (response.get("systemError") instanceof JsonString error && !error.getString().isEmpty()) {
            throw new Refused("provider's system error: " + shortened(error.getString()));
        }
        // Gatekeeper's mutation refuses such an answer (validateExternalDataResponse): an absent flag is false.
        if (response.get("idempotent") != JsonValue.TRUE) {
            throw new Refused(NOT_IDEMPOTENT);
        }
        JsonValue items = response.get("items");
        if (items == null || items == JsonValue.NULL) {
            return Map.of();
        }
        if (!(items instanceof JsonArray list)) {
            throw new Refused("malformed answer: response.items is not a list");
        }
        var out = new HashMap<String, Item>();
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof JsonObject item) || !(item.get("key") instanceof JsonString key)) {
                throw new Refused("malformed answer: response.items[" + i + "] has no string key");
            }
            String error = item.get("error") instanceof JsonString s && !s.getString().isEmpty()
                    ? shortened(s.getString()) : null;
            JsonValue value = item.getOrDefault("value", JsonValue.NULL);
            out.put(key.getString(), new Item(error == null ? value : null, error));
        }
        return out;
    }

    private static String shortened(String error) {
        return ExternalData.shortened(error, MAX_ERROR_CHARS);
    }
}
