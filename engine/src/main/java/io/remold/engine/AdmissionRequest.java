package io.remold.engine;

import io.remold.api.AdmissionOperation;
import jakarta.json.JsonValue;

import java.util.Objects;

/**
 * What the engine decides about. {@code namespace} is empty for cluster-scoped objects. For DELETE the object
 * examined is {@code oldObject}. {@code namespaceRef} and {@code nodeRef} (may be null) become
 * {@code syntheticRefs.namespace} and {@code syntheticRefs.node}. {@code explain} asks for a reason per rule.
 * {@code userName} is who made the request ({@code userInfo.username}; empty when unknown), for Gatekeeper's
 * {@code externalData} with {@code dataSource: Username}.
 */
public record AdmissionRequest(AdmissionOperation operation, String namespace, JsonValue object,
                               JsonValue oldObject, JsonValue namespaceRef, JsonValue nodeRef, boolean explain,
                               String userName) {
    public AdmissionRequest {
        Objects.requireNonNull(operation, "operation");
        namespace = namespace == null ? "" : namespace;
        userName = userName == null ? "" : userName;
    }

    /** A request whose user is unknown. */
    public AdmissionRequest(AdmissionOperation operation, String namespace, JsonValue object, JsonValue oldObject,
                            JsonValue namespaceRef, JsonValue nodeRef, boolean explain) {
        this(operation, namespace, object, oldObject, namespaceRef, nodeRef, explain, "");
    }

    /** The same request about {@code object} (what earlier rules made of the request's). */
    public AdmissionRequest withObject(JsonValue object) {
        return new AdmissionRequest(operation, namespace, object, oldObject, namespaceRef, nodeRef, explain, userName);
    }

    /** A CREATE without references or explanation. */
    public static AdmissionRequest create(String namespace, JsonValue object) {
        return new AdmissionRequest(AdmissionOperation.CREATE, namespace, object, null, null, null, false);
    }
}
