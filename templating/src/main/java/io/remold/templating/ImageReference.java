package io.remold.templating;

/**
 * A container image reference split into {@code domain} (before the first {@code /}, when that part has a {@code .}
 * or a {@code :} or is {@code localhost}), {@code path}, and {@code tag} (from the first {@code :} or {@code @} after
 * the domain, separator included); each part is empty when absent. This is how Gatekeeper's AssignImage splits a
 * reference, shared by the template functions {@code imageDomain}, {@code imagePath}, {@code imageTag} and
 * {@code imageWith} and by Remold's AssignImage so that a converted mutator changes images exactly as the mutator.
 * Splitting never fails: an odd reference still splits somewhere.
 */
public record ImageReference(String domain, String path, String tag) {

    public static ImageReference split(String image) {
        String domain = domainOf(image);
        String rest = domain.isEmpty() ? image : image.substring(domain.length() + 1);
        int tagStart = indexOfTagSeparator(rest);
        return tagStart < 0 ? new ImageReference(domain, rest, "")
                : new ImageReference(domain, rest.substring(0, tagStart), rest.substring(tagStart));
    }

    /** This reference with each non-empty part of {@code replacement} put in place of its own. */
    public ImageReference replacedBy(ImageReference replacement) {
        return new ImageReference(replacement.domain.isEmpty() ? domain : replacement.domain,
                replacement.path.isEmpty() ? path : replacement.path,
                replacement.tag.isEmpty() ? tag : replacement.tag);
    }

    public String text() {
        return (domain.isEmpty() ? "" : domain + "/") + path + tag;
    }

    /** The domain a reference starts with, or {@code ""}. */
    public static String domainOf(String image) {
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
}
