package io.remold.gatekeeper.mutators;

import com.google.re2j.Pattern;

/**
 * A container image reference split the way AssignImage splits it: {@code domain} (before the first {@code /}, when
 * that part has a {@code .} or a {@code :} or is {@code localhost}), {@code path}, and {@code tag} (from the first
 * {@code :} or {@code @} after the domain, separator included). Each part is empty when absent. Splitting never
 * fails: an odd reference still splits somewhere, so a mutator converges on any input.
 */
record ImageReference(String domain, String path, String tag) {
    // The parameters are validated so that no part can leak into its neighbour when the result is split again
    // (a ':' in a path would become a tag, a domain-like first path segment a domain): that keeps AssignImage
    // convergent.
    private static final Pattern DOMAIN = Pattern.compile("\\w[\\w-]*\\.[\\w.-]*\\w(?::\\d+)?|localhost(?::\\d+)?");
    private static final Pattern PATH = Pattern.compile("[a-z0-9]+(?:(?:[._/]|__|-+)[a-z0-9]+)*");
    private static final Pattern TAG = Pattern.compile(
            ":\\w[\\w.-]{0,127}|@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}");

    static ImageReference split(String image) {
        String domain = domainOf(image);
        String rest = domain.isEmpty() ? image : image.substring(domain.length() + 1);
        int tagStart = indexOfTagSeparator(rest);
        return tagStart < 0 ? new ImageReference(domain, rest, "")
                : new ImageReference(domain, rest.substring(0, tagStart), rest.substring(tagStart));
    }

    /** This reference with each non-empty part of {@code replacement} put in place of its own. */
    ImageReference replacedBy(ImageReference replacement) {
        return new ImageReference(replacement.domain.isEmpty() ? domain : replacement.domain,
                replacement.path.isEmpty() ? path : replacement.path,
                replacement.tag.isEmpty() ? tag : replacement.tag);
    }

    String text() {
        return (domain.isEmpty() ? "" : domain + "/") + path + tag;
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
        if (domain.isEmpty() && !domainOf(path).isEmpty()) {
            throw new InvalidMutatorException("spec.parameters.assignPath", "assignDomain must be set if the first part"
                    + " of assignPath " + quoted(path) + " can be interpretted as part of a domain");
        }
        return new ImageReference(domain, path, tag);
    }

    private static String domainOf(String image) {
        int slash = image.indexOf('/');
        if (slash < 0) {
            return "";
        }
        String first = image.substring(0, slash);
        return first.indexOf('.') >= 0 || first.indexOf(':') >= 0 || first.equals("localhost") ? first : "";
    }

    private static int indexOfTagSeparator(String rest) {
        for (int i = 0; i < rest.length(); i++) {
            char c = rest.charAt(i);
            if (c == ':' || c == '@') {
                return i;
            }
        }
        return -1;
    }

    /** Go's %q for the strings these parameters can hold: double quotes, with quotes and backslashes escaped. */
    private static String quoted(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
