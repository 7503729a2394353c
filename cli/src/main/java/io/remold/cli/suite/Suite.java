package io.remold.cli.suite;

import io.remold.api.AdmissionOperation;
import io.remold.cli.eval.RuleOptions;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A test suite ({@code remold-test.yaml}) as read: the rule files, the resources, and the cases, each with what it
 * expects. Every file is resolved against the suite's folder and was found when read.
 */
record Suite(Path file, String name, List<Path> rules, List<Resource> resources, List<Case> cases) {

    /** One object of a resource file, at its place (a document, or an item of a List). */
    record Resource(Path file, JsonObject object) {
        String kind() {
            return object.getString("kind", "");
        }

        String namespace() {
            return metadata("namespace");
        }

        String name() {
            return metadata("name");
        }

        /** {@code KIND NAMESPACE/NAME}, or {@code KIND NAME} without a namespace: how the report names it. */
        String id() {
            return kind() + " " + (namespace().isEmpty() ? "" : namespace() + "/") + name();
        }

        /** Whether {@code other} (an old object, an expected one) is this object: same kind, namespace and name. */
        boolean same(JsonObject other) {
            var resource = new Resource(file, other);
            return resource.kind().equals(kind()) && resource.namespace().equals(namespace())
                    && resource.name().equals(name());
        }

        private String metadata(String field) {
            return object.get("metadata") instanceof JsonObject metadata
                    && metadata.get(field) instanceof JsonString s ? s.getString() : "";
        }
    }

    /**
     * One entry of {@code results}: the request made of each of its resources, and what it expects. {@code
     * oldResource}, {@code namespace}, {@code namespaceLabels}, {@code namespaceFile} and {@code nodeFile} may be
     * null; {@code options} holds the mocks and the suite's server options, as eval's flags would. {@code origin}
     * ({@code FILE (line L, column C): results[N]}) names it in the errors of its run.
     */
    record Case(String name, String field, String origin, List<Resource> resources, AdmissionOperation operation,
                List<Resource> oldResources, String namespace, Map<String, String> namespaceLabels,
                Path namespaceFile, Path nodeFile, String userName, RuleOptions options, Expectation expected) {
    }

    /**
     * What a case expects of each resource: admitted (with {@code patched}, the object after admission, when given;
     * one per resource) or refused; the refusal's {@code message} (contained in it, or equal to it when {@code
     * exactMessage}); and, when {@code warnings} is not null, exactly that many warnings, each containing its entry.
     */
    record Expectation(boolean allowed, List<Resource> patched, Path patchedFile, String message,
                       boolean exactMessage, List<String> warnings) {
    }
}
