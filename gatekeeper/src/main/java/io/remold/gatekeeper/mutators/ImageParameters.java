package io.remold.gatekeeper.mutators;

import com.google.re2j.Pattern;
import io.remold.templating.ImageReference;

/**
 * AssignImage's parameters checked as Gatekeeper checks them. The reference is split by the templating module's
 * {@link ImageReference}, which the image template functions share, so that converted mutators agree.
 */
final class ImageParameters {
    // The parameters are validated so that no part can leak into its neighbour when the result is split again
    // (a ':' in a path would become a tag, a domain-like first path segment a domain): that keeps AssignImage
    // convergent.
    private static final Pattern DOMAIN = Pattern.compile("\\w[\\w-]*\\.[\\w.-]*\\w(?::\\d+)?|localhost(?::\\d+)?");
    private static final Pattern PATH = Pattern.compile("[a-z0-9]+(?:(?:[._/]|__|-+)[a-z0-9]+)*");
    private static final Pattern TAG = Pattern.compile(
            ":\\w[\\w.-]{0,127}|@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}");

    private ImageParameters() {
    }

    /**
     * Checks AssignImage's {@code assignDomain}, {@code assignPath} and {@code assignTag} ({@code ""} when unset) as
     * Gatekeeper does; the error names the parameter under {@code spec.parameters}.
     */
    static ImageReference validated(String domain, String path, String tag) {
        if (domain.isEmpty() && path.isEmpty() && tag.isEmpty()) {
            throw new InvalidMutatorException("spec.parameters",
                    "at least one of [assignDomain, assignPath, assignTag] must be set");
        }
        if (!domain.isEmpty() && !DOMAIN.matches(domain)) {
            throw new InvalidMutatorException("spec.parameters.assignDomain",
                    "assignDomain " + quoted(domain) + " must be a fully-qualified domain name or localhost");
        }
        if (!path.isEmpty() && !PATH.matches(path)) {
            throw new InvalidMutatorException("spec.parameters.assignPath",
                    "assignPath " + quoted(path) + " must be a valid docker image path");
        }
        if (!tag.isEmpty() && !TAG.matches(tag)) {
            throw new InvalidMutatorException("spec.parameters.assignTag", "assignTag " + quoted(tag)
                    + " must be a valid docker image tag or digest starting with ':' or '@'");
        }
        if (domain.isEmpty() && !ImageReference.domainOf(path).isEmpty()) {
            throw new InvalidMutatorException("spec.parameters.assignPath", "assignDomain must be set if the first part"
                    + " of assignPath " + quoted(path) + " can be interpretted as part of a domain");
        }
        return new ImageReference(domain, path, tag);
    }

    /** Go's %q for the strings these parameters can hold: double quotes, with quotes and backslashes escaped. */
    private static String quoted(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
