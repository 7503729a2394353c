package io.remold.cli.eval;

import io.remold.api.AllowedUrls;
import io.remold.cli.CommandLine;
import io.remold.cli.UsageException;
import io.remold.kinitiras.KinitirasOptions;
import io.remold.rules.TenantScripts;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What rules need to run offline, whatever the command ({@code eval}, {@code preview}): the answers of their
 * references, external data providers and http valueRefs, and the server options that change which rules run.
 * {@code kubemodSystemNamespace}, {@code tenantScripts} and {@code state} may be null (not given).
 */
public record RuleOptions(Map<String, Path> references, List<Path> cluster, Map<String, Path> http,
                          AllowedUrls allowHttpRef, Map<String, Path> externals, String kubemodSystemNamespace,
                          TenantScripts tenantScripts, Path state, KinitirasOptions kinitiras) {
    public static final RuleOptions NONE = new RuleOptions(Map.of(), List.of(), Map.of(), AllowedUrls.ANY, Map.of(),
            null, null, null, KinitirasOptions.DEFAULTS);

    private static final String CROSS_NAMESPACE = "--" + KinitirasOptions.CROSS_NAMESPACE_OPTION;
    private static final String WEBHOOK_LABEL = "--" + KinitirasOptions.WEBHOOK_LABEL_OPTION;
    /** The flags {@link Reader} reads. */
    public static final Set<String> FLAGS = Set.of("--ref", "--cluster", "--http", "--allow-http-ref", "--state",
            "--external", "--kubemod-system-namespace", "--tenant-scripts", CROSS_NAMESPACE, WEBHOOK_LABEL);

    /** The usage lines of {@link #FLAGS}, for a command's help. */
    public static final String USAGE = """
            --ref NAME=FILE answers the rules' spec.references named NAME: one object, or for a labelSelector
            reference every object of the file (YAML documents or a List).
            --cluster FILE: objects (YAML documents or a List) that kinitiras k8s and owner valueRefs, and
            spec.references without a --ref file, find by kind, namespace, name or labels.
            --http URL=FILE answers a kinitiras http valueRef (or CUE processing.http) to URL with the body in
            FILE; no call is made, and other URLs fail.
            --allow-http-ref PREFIX,...: the URL prefixes the server allows (its option of that name): a policy
            whose http valueRef reaches none is not in force, and a URL outside them fails, as in the server;
            without it every URL with an --http file is allowed.
            --external NAME=FILE answers external data provider NAME (the template function external, Gatekeeper's
            externalData) from FILE: a mapping of key to value, or a Gatekeeper ProviderResponse; no call is made.
            --state FILE: a JSON or YAML object that script rules' state starts from (over what jsa_init made).
            --kubemod-system-namespace NS: api.kubemod.io rules in NS apply cluster-wide, as a server run with
            kubemod-compat (whose default NS is kubemod-system) applies them; without it they are namespaced.
            --tenant-scripts NS,...: refuse script rules of other namespaces than these (and remold-system), as the
            server's option of that name does (* for all, none for no tenant); without it every script runs.
            --kinitiras-cross-namespace-overrides, --kinitiras-webhook-label: kinitiras policies run as a server
            with that option set to true runs them (OverridePolicies of every namespace; only objects labelled
            kinitiras.kcloudlabs.io/webhook: enabled).""";

    /** Reads the flags of {@link #FLAGS} from a command line, one at a time, beside the command's own. */
    public static final class Reader {
        private final String refNames;
        private final Map<String, Path> references = new LinkedHashMap<>();
        private final List<Path> cluster = new ArrayList<>();
        private final Map<String, Path> http = new LinkedHashMap<>();
        private final Map<String, Path> externals = new LinkedHashMap<>();
        private List<String> allowHttpRef;
        private String kubemodSystemNamespace;
        private TenantScripts tenantScripts;
        private Path state;
        private boolean crossNamespace;
        private boolean webhookLabel;

        /** @param refNames what a {@code --ref} NAME may be, as its error says it */
        public Reader(String refNames) {
            this.refNames = refNames;
        }

        /** Reads the current flag if it is one of {@link #FLAGS}; false, having read nothing, if not. */
        public boolean read(CommandLine line) {
            String flag = line.flag();
            if (!FLAGS.contains(flag)) {
                return false;
            }
            if (flag.equals(CROSS_NAMESPACE) || flag.equals(WEBHOOK_LABEL)) {
                line.noValue();
                crossNamespace |= flag.equals(CROSS_NAMESPACE);
                webhookLabel |= flag.equals(WEBHOOK_LABEL);
                return true;
            }
            String value = line.value();
            switch (flag) {
                case "--cluster" -> cluster.add(line.path(value));
                case "--http" -> {
                    // a URL may hold '=' (its query): the file's name follows the last one
                    int kv = value.lastIndexOf('=');
                    String url = kv < 0 ? "" : value.substring(0, kv);
                    if (url.isEmpty()) {
                        throw line.invalid("--http expects URL=FILE, got \"" + value + "\"");
                    }
                    http.put(url, line.once("--http " + url, http.get(url), line.path(value.substring(kv + 1))));
                }
                case "--allow-http-ref" -> {
                    allowHttpRef = allowHttpRef == null ? new ArrayList<>() : allowHttpRef;
                    allowHttpRef.addAll(List.of(value.split(",", -1)));
                }
                case "--state" -> state = line.once(flag, state, line.path(value));
                case "--kubemod-system-namespace" ->
                        kubemodSystemNamespace = line.once(flag, kubemodSystemNamespace, value);
                case "--tenant-scripts" -> tenantScripts = line.once(flag, tenantScripts, TenantScripts.parse(value));
                case "--ref" -> {
                    int kv = value.indexOf('=');
                    String name = kv < 0 ? value : value.substring(0, kv);
                    if (kv < 0 || name.isEmpty()) {
                        throw line.invalid("--ref expects NAME=FILE (" + refNames + "), got \"" + value + "\"");
                    }
                    references.put(name, line.once("--ref " + name, references.get(name),
                            line.path(value.substring(kv + 1))));
                }
                case "--external" -> {
                    int kv = value.indexOf('=');
                    String name = kv < 0 ? "" : value.substring(0, kv);
                    if (name.isEmpty()) {
                        throw line.invalid("--external expects NAME=FILE (a provider's name), got \"" + value
                                + "\"");
                    }
                    externals.put(name, line.once("--external " + name, externals.get(name),
                            line.path(value.substring(kv + 1))));
                }
                default -> throw new IllegalStateException("flag " + flag + " is in FLAGS but not handled");
            }
            return true;
        }

        /** The {@code --ref} files read so far, by name: a command may take some names for itself. */
        public Map<String, Path> references() {
            return references;
        }

        public RuleOptions options() {
            return new RuleOptions(Collections.unmodifiableMap(new LinkedHashMap<>(references)), List.copyOf(cluster),
                    Collections.unmodifiableMap(new LinkedHashMap<>(http)), allowedUrls(allowHttpRef),
                    Collections.unmodifiableMap(new LinkedHashMap<>(externals)), kubemodSystemNamespace,
                    tenantScripts, state, new KinitirasOptions(crossNamespace, webhookLabel));
        }

        /** Every URL when {@code --allow-http-ref} is not given (no call is made), else those prefixes. */
        private static AllowedUrls allowedUrls(List<String> prefixes) {
            try {
                return prefixes == null ? AllowedUrls.ANY : AllowedUrls.parse(prefixes);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
        }
    }
}
