package io.remold.server.reports;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * One report: a rule's {@code Report} in a namespace, or its {@code ClusterReport} ({@code namespace} empty).
 *
 * @param rule the rule as outcomes name it ({@code team-a/add-label}, a family's id)
 */
public record ReportKey(String rule, String namespace) {
    public static final String GROUP = "openreports.io";
    public static final String VERSION = "v1alpha1";

    public boolean cluster() {
        return namespace.isEmpty();
    }

    public String kind() {
        return cluster() ? "ClusterReport" : "Report";
    }

    public String plural() {
        return cluster() ? "clusterreports" : "reports";
    }

    /** {@code remold-} and the rule's label-safe form: unique per rule, a valid object name. */
    public String name() {
        return "remold-" + labelSafe(rule);
    }

    /**
     * The rule as a label value: its letters and digits (others as {@code -}), at most 54 of them, then a hash of the
     * whole id, so that two rules never share it (63 characters at most).
     */
    static String labelSafe(String text) {
        String safe = words(text);
        return (safe.length() > 54 ? safe.substring(0, 54) : safe) + (safe.isEmpty() ? "" : "-") + hash(text);
    }

    /** Lower case letters and digits, other runs of characters as one {@code -}, none at either end. */
    static String words(String text) {
        return text.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
    }

    private static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return kind() + " " + (cluster() ? "" : namespace + "/") + name();
    }
}
