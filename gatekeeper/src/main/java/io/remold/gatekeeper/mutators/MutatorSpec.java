package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.match.ApplyTo;
import io.remold.gatekeeper.match.Match;
import io.remold.gatekeeper.path.PathNode;
import jakarta.json.JsonObject;

import java.util.List;

/**
 * The parts every mutator manifest shares, parsed and validated by {@link Mutators#parse}: the id, applyTo (empty
 * for AssignMetadata), match, the location (text and nodes) and {@code spec.parameters} (never null) for the kind
 * to read.
 */
record MutatorSpec(MutatorId id, List<ApplyTo> applyTo, Match match, String location, List<PathNode> path,
                   JsonObject parameters) {
}
