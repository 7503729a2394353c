package io.remold.api;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The URL prefixes kinitiras {@code http} references may reach ({@code --allow-http-ref}): the administrator's list,
 * since kinitiras lets a policy call any URL. A prefix is {@code http} or {@code https}, a host, an optional port and
 * an optional path. A URL is under it when, parsed, it has the same scheme, host (exactly, case aside) and port (the
 * scheme's default when absent), and its path is the prefix's or below it segment by segment ({@code /api} covers
 * {@code /api} and {@code /api/x}, not {@code /apix}). A URL with user info, an encoded slash or backslash, or a dot
 * segment (also percent-encoded) is refused whatever the prefixes: the service could read its path otherwise than
 * this check did.
 */
public final class AllowedUrls {
    /** Why every reference is refused when no prefix is allowed. */
    public static final String NONE_ALLOWED = "http valueRef needs --allow-http-ref: the server allows no URL";
    /** No URL: the server's default. */
    public static final AllowedUrls NONE = new AllowedUrls(List.of(), false);
    /** Every URL: {@code eval} without {@code --allow-http-ref}, whose answers are files and never calls. */
    public static final AllowedUrls ANY = new AllowedUrls(List.of(), true);

    /** A parsed URL as compared: lower-case scheme and host, the port, the decoded path ("" for the root). */
    private record Target(String scheme, String host, int port, String path) {
        String origin() {
            return scheme + "://" + host + ":" + port;
        }
    }

    /** One allowed prefix, as written and parsed. */
    private record Prefix(String written, Target target) {
        boolean covers(Target url) {
            return target.origin().equals(url.origin()) && under(url.path(), target.path());
        }
    }

    private final List<Prefix> prefixes;
    private final boolean any;

    private AllowedUrls(List<Prefix> prefixes, boolean any) {
        this.prefixes = List.copyOf(prefixes);
        this.any = any;
    }

    /**
     * The prefixes as an administrator writes them; a prefix that is not an http(s) URL with a host, or that has user
     * info, a query, a fragment or a dot segment, is refused naming it.
     */
    public static AllowedUrls parse(List<String> written) {
        var prefixes = new ArrayList<Prefix>();
        for (String prefix : written) {
            String why;
            try {
                URI uri = new URI(prefix);
                why = uri.getRawQuery() != null || uri.getRawFragment() != null ? "has a query or fragment" : null;
                if (why == null) {
                    prefixes.add(new Prefix(prefix, target(uri)));
                    continue;
                }
            } catch (URISyntaxException e) {
                why = "is not a URL: " + e.getMessage();
            } catch (Refused e) {
                why = e.getMessage();
            }
            throw new IllegalArgumentException("--allow-http-ref " + prefix + ": " + why);
        }
        return prefixes.isEmpty() ? NONE : new AllowedUrls(prefixes, false);
    }

    /** The prefixes as written. */
    public List<String> prefixes() {
        return prefixes.stream().map(Prefix::written).toList();
    }

    /** The prefix covering {@code url}, as written, or empty when it may not be called (and why: {@link #refusal}). */
    public Optional<String> prefixOf(URI url) {
        try {
            Target target = target(url);
            return prefixes.stream().filter(p -> p.covers(target)).map(Prefix::written).findFirst();
        } catch (Refused e) {
            return Optional.empty();
        }
    }

    /** Why {@code url}, the reference's whole URL, may not be called; empty when it may. */
    public Optional<String> refusal(URI url) {
        if (prefixes.isEmpty()) {
            return any ? Optional.empty() : Optional.of(NONE_ALLOWED);
        }
        try {
            Target target = target(url);
            return prefixes.stream().anyMatch(p -> p.covers(target)) ? Optional.empty() : Optional.of(notAllowed(url));
        } catch (Refused e) {
            return Optional.of("http valueRef " + url + ": " + e.getMessage());
        }
    }

    /**
     * Why a reference whose {@code url} is written so (a literal, or a template whose keys are replaced at request
     * time) can reach no allowed URL, known before any request: a literal is checked whole; of a template, the text
     * before its first {@code {{}}, when it holds the whole host and port (what follows in the path is checked again
     * at every call). Empty when it may reach one, or when only a request can tell.
     */
    public Optional<String> refusalOfWritten(String url) {
        if (prefixes.isEmpty()) {
            return any ? Optional.empty() : Optional.of(NONE_ALLOWED);
        }
        int key = url.indexOf("{{");
        if (key < 0) {
            try {
                return refusal(new URI(url));
            } catch (URISyntaxException e) {
                return Optional.of("http valueRef " + url + ": not a URL: " + e.getMessage());
            }
        }
        String start = url.substring(0, key);
        int authority = start.indexOf("://");
        int pathAt = authority < 0 ? -1 : indexOfAny(start, authority + 3, "/?#");
        if (pathAt < 0) {
            return Optional.empty(); // the host is templated: checked at every call
        }
        Target origin;
        try {
            origin = target(new URI(start.substring(0, pathAt) + "/"));
        } catch (URISyntaxException e) {
            return Optional.empty(); // a request tells, with the URL it makes
        } catch (Refused e) { // the scheme and authority are written: no key can make them allowed
            return Optional.of("http valueRef " + start + "{{...: " + e.getMessage());
        }
        int end = indexOfAny(start, pathAt, "?#");
        String path = start.substring(pathAt, end < 0 ? start.length() : end);
        boolean pathComplete = end >= 0;
        boolean reachable = prefixes.stream().map(Prefix::target)
                .filter(p -> p.origin().equals(origin.origin()))
                .anyMatch(p -> path.contains("%") || under(path, p.path())
                        || !pathComplete && p.path().startsWith(path));
        return reachable ? Optional.empty() : Optional.of(notAllowed(start + "{{..."));
    }

    private String notAllowed(Object url) {
        return "http valueRef " + url + ": not under a URL prefix the server allows (--allow-http-ref "
                + prefixes.stream().map(Prefix::written).collect(Collectors.joining(",")) + ")";
    }

    /**
     * Whether {@code path} is {@code prefix} or below it, segment by segment ({@code ""} is the root; a trailing slash
     * is the same path).
     */
    private static boolean under(String path, String prefix) {
        return prefix.isEmpty() || path.equals(prefix) || path.equals(prefix + "/") || path.startsWith(prefix + "/");
    }

    private static int indexOfAny(String text, int from, String chars) {
        for (int i = from; i < text.length(); i++) {
            if (chars.indexOf(text.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }

    private static Target target(URI uri) throws Refused {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.isOpaque()) {
            throw new Refused("not an http or https URL");
        }
        if (uri.getRawUserInfo() != null) {
            throw new Refused("a URL with user info (before @) is not allowed");
        }
        if (uri.getHost() == null) {
            throw new Refused("the URL has no host name the server can check");
        }
        String raw = uri.getRawPath() == null ? "" : uri.getRawPath();
        String lower = raw.toLowerCase(Locale.ROOT);
        if (lower.contains("%2f") || lower.contains("%5c") || raw.contains("\\")) {
            throw new Refused("an encoded slash or a backslash in the path is not allowed");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        for (String segment : path.split("/", -1)) {
            int parameters = segment.indexOf(';');
            String name = parameters < 0 ? segment : segment.substring(0, parameters);
            if (name.equals(".") || name.equals("..") || segment.contains("\\")) {
                throw new Refused("a dot segment (. or ..) in the path is not allowed");
            }
        }
        int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
        String prefixPath = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        return new Target(scheme, uri.getHost().toLowerCase(Locale.ROOT), port, prefixPath);
    }

    /** Why a URL cannot be checked, whatever the prefixes. */
    private static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    @Override
    public String toString() {
        return any ? "any URL" : prefixes.stream().map(Prefix::written).collect(Collectors.joining(","));
    }
}
