package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.match.GroupVersionKind;

/** A kind and admission operation a mutator with a schema ({@code applyTo}) applies to. */
public record SchemaBinding(GroupVersionKind gvk, String operation) {
}
