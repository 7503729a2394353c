package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.path.PathNode;
import io.remold.templating.ImageReference;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

/**
 * Gatekeeper's AssignImage: replaces the domain, path and/or tag of the image reference at its location, keeping the
 * parts it does not assign. A missing field counts as the empty reference.
 */
final class AssignImage {
    private static final JsonProvider JSON = JsonProvider.provider();

    private AssignImage() {
    }

    /** Checks the location and {@code assignDomain}, {@code assignPath}, {@code assignTag} and compiles. */
    static Mutator create(MutatorSpec spec) {
        String name = spec.id().name();
        if (Mutators.startsAtMetadata(spec.path())) {
            throw new InvalidMutatorException("spec.location", "assignImage " + name + " can't change metadata");
        }
        if (!spec.path().isEmpty() && spec.path().getLast() instanceof PathNode.KeyedList) {
            throw new InvalidMutatorException("spec.location",
                    "assignImage " + name + " cannot mutate list-type fields");
        }
        Mutators.requireKeyUnchanged(spec.path());
        JsonObject parameters = spec.parameters();
        ImageReference assigned = ImageParameters.validated(
                Mutators.string(parameters, "assignDomain", "spec.parameters.assignDomain"),
                Mutators.string(parameters, "assignPath", "spec.parameters.assignPath"),
                Mutators.string(parameters, "assignTag", "spec.parameters.assignTag"));
        PathTests tests = PathTests.parse(
                Mutators.array(parameters, "pathTests", "spec.parameters.pathTests"), spec.path());
        var setter = new ImageSetter(assigned);
        return new LocationMutator(spec, Mutators.schemaBindings(spec), tests, false, mutable -> setter);
    }

    /** Puts the assigned parts into the reference found at the location. */
    private record ImageSetter(ImageReference assigned) implements Setter {
        @Override
        public JsonValue set(JsonValue current) throws MutationException {
            String image;
            if (current == null) {
                image = "";
            } else if (current instanceof JsonString s) {
                image = s.getString();
            } else {
                throw new MutationException("expected value at AssignImage location to be a string, got " + current
                        + " of type " + current.getValueType());
            }
            String next = ImageReference.split(image).replacedBy(assigned).text();
            return current != null && next.equals(image) ? current : JSON.createValue(next);
        }
    }
}
