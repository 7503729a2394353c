package io.remold.server.kube;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1ResourceAttributes;
import io.kubernetes.client.openapi.models.V1SubjectAccessReview;
import io.kubernetes.client.openapi.models.V1SubjectAccessReviewSpec;
import io.remold.server.rules.Requester;

/**
 * Asks the API server whether a user may do something (a SubjectAccessReview, which the installer lets the server
 * create when rules may reference objects): the answer of the cluster's own authorizers, RBAC or other.
 */
final class AccessReviews {
    private final AuthorizationV1Api api;

    AccessReviews(ApiClient client) {
        this.api = new AuthorizationV1Api(client);
    }

    /** Whether {@code who} may {@code verb} the resource in {@code namespace} ({@code ""}: in every namespace). */
    boolean allowed(Requester who, String verb, String group, String resource, String namespace) throws ApiException {
        var attributes = new V1ResourceAttributes().verb(verb).group(group).resource(resource)
                .namespace(namespace.isEmpty() ? null : namespace);
        var spec = new V1SubjectAccessReviewSpec().user(who.user()).groups(who.groups()).uid(who.uid())
                .extra(who.extra()).resourceAttributes(attributes);
        V1SubjectAccessReview answer = api.createSubjectAccessReview(new V1SubjectAccessReview()
                .apiVersion("authorization.k8s.io/v1").kind("SubjectAccessReview").spec(spec)).execute();
        return answer.getStatus() != null && answer.getStatus().getAllowed();
    }
}
