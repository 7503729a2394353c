package io.remold.cli.eval;

import io.remold.api.AdmissionOperation;
import io.remold.cli.CommandLine;
import io.remold.cli.UsageException;
import io.remold.api.AllowedUrls;
import io.remold.kinitiras.KinitirasOptions;
import io.remold.rules.TenantScripts;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The parsed command line of {@code remold eval}. {@code operation} and {@code namespace} may be null (derived). */
record EvalOptions(List<Path> rules, Path resource, AdmissionOperation operation, String namespace, Path old,
                   Path namespaceRef, Path nodeRef, Map<String, Path> references, Output output, boolean explain,
                   boolean help, Path state, Map<String, Path> externals, String kubemodSystemNamespace,
                   TenantScripts tenantScripts, List<Path> cluster, Map<String, Path> http, AllowedUrls allowHttpRef,
                   KinitirasOptions kinitiras) {

    enum Output { yaml, json, patch }

    static final String USAGE = """
            usage: remold eval --rules PATH [--rules PATH ...] --resource FILE [--operation CREATE|UPDATE|DELETE]
                               [--namespace NS] [--old FILE] [--ref namespace=FILE] [--ref node=FILE]
                               [--ref NAME=FILE ...] [--cluster FILE ...] [--http URL=FILE ...]
                               [--allow-http-ref PREFIX,...]
                               [--external NAME=FILE ...] [--output yaml|json|patch] [--explain] [--state FILE]
                               [--kubemod-system-namespace NS] [--tenant-scripts NS,...]
                               [--kinitiras-cross-namespace-overrides] [--kinitiras-webhook-label]
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
            kinitiras.kcloudlabs.io/webhook: enabled).
            Exit codes: 0 allowed (a failing Patch rule is reported on stderr), 1 rejected, 2 usage or input error.""";

    private static final String CROSS_NAMESPACE = "--" + KinitirasOptions.CROSS_NAMESPACE_OPTION;
    private static final String WEBHOOK_LABEL = "--" + KinitirasOptions.WEBHOOK_LABEL_OPTION;
    /** Every flag eval takes; docs/eval.md documents each (EvalCommandTest). */
    static final Set<String> FLAGS =
            Set.of("--rules", "--resource", "--old", "--namespace", "--operation", "--output", "--ref",
                    "--cluster", "--http", "--allow-http-ref", "--state", "--external", "--kubemod-system-namespace",
                    "--tenant-scripts", CROSS_NAMESPACE, WEBHOOK_LABEL, "--explain", "--help");

    /** Accepts {@code --flag value} and {@code --flag=value}; every problem names the argument and its position. */
    static EvalOptions parse(String[] args) {
        var rules = new ArrayList<Path>();
        Path resource = null;
        AdmissionOperation operation = null;
        String namespace = null;
        Path old = null;
        Path namespaceRef = null;
        Path nodeRef = null;
        var references = new java.util.LinkedHashMap<String, Path>();
        var externals = new java.util.LinkedHashMap<String, Path>();
        var cluster = new ArrayList<Path>();
        var http = new java.util.LinkedHashMap<String, Path>();
        List<String> allowHttpRef = null;
        Output output = Output.yaml;
        Path state = null;
        String kubemodSystemNamespace = null;
        TenantScripts tenantScripts = null;
        boolean explain = false;
        boolean crossNamespace = false;
        boolean webhookLabel = false;
        var line = new CommandLine(args);
        while (line.next()) {
            String flag = line.flag();
            int position = line.position();
            if (!FLAGS.contains(flag)) {
                throw line.unknown();
            }
            if (flag.equals(CROSS_NAMESPACE) || flag.equals(WEBHOOK_LABEL)) {
                line.noValue();
                crossNamespace |= flag.equals(CROSS_NAMESPACE);
                webhookLabel |= flag.equals(WEBHOOK_LABEL);
                continue;
            }
            if (flag.equals("--explain") || flag.equals("--help")) {
                line.noValue();
                if (flag.equals("--help")) {
                    return new EvalOptions(List.of(), null, null, null, null, null, null, Map.of(), output, false,
                            true, null, Map.of(), null, null, List.of(), Map.of(), AllowedUrls.ANY,
                            KinitirasOptions.DEFAULTS);
                }
                explain = true;
                continue;
            }
            String value = line.value();
            switch (flag) {
                case "--rules" -> rules.add(path(flag, value, position));
                case "--cluster" -> cluster.add(path(flag, value, position));
                case "--http" -> {
                    // a URL may hold '=' (its query): the file's name follows the last one
                    int kv = value.lastIndexOf('=');
                    String url = kv < 0 ? "" : value.substring(0, kv);
                    if (url.isEmpty()) {
                        throw new UsageException("--http expects URL=FILE, got \"" + value + "\" (argument "
                                + position + ")");
                    }
                    Path file = path(flag, value.substring(kv + 1), position);
                    http.put(url, once("--http " + url, http.get(url), file, position));
                }
                case "--allow-http-ref" -> {
                    allowHttpRef = allowHttpRef == null ? new ArrayList<>() : allowHttpRef;
                    allowHttpRef.addAll(List.of(value.split(",", -1)));
                }
                case "--resource" -> resource = once(flag, resource, path(flag, value, position), position);
                case "--old" -> old = once(flag, old, path(flag, value, position), position);
                case "--namespace" -> namespace = once(flag, namespace, value, position);
                case "--operation" -> operation = once(flag, operation, operation(value, position), position);
                case "--output" -> output = output(value, position);
                case "--state" -> state = once(flag, state, path(flag, value, position), position);
                case "--kubemod-system-namespace" ->
                        kubemodSystemNamespace = once(flag, kubemodSystemNamespace, value, position);
                case "--tenant-scripts" -> tenantScripts = once(flag, tenantScripts, TenantScripts.parse(value),
                        position);
                case "--ref" -> {
                    int kv = value.indexOf('=');
                    String kind = kv < 0 ? value : value.substring(0, kv);
                    Path file = kv < 0 ? null : path(flag, value.substring(kv + 1), position);
                    if (file == null || kind.isEmpty()) {
                        throw new UsageException("--ref expects NAME=FILE (namespace, node or a reference's name), got \""
                                + value + "\" (argument " + position + ")");
                    }
                    switch (kind) {
                        case "namespace" -> namespaceRef = once("--ref namespace", namespaceRef, file, position);
                        case "node" -> nodeRef = once("--ref node", nodeRef, file, position);
                        default -> references.put(kind, once("--ref " + kind, references.get(kind), file, position));
                    }
                }
                case "--external" -> {
                    int kv = value.indexOf('=');
                    String name = kv < 0 ? "" : value.substring(0, kv);
                    if (name.isEmpty()) {
                        throw new UsageException("--external expects NAME=FILE (a provider's name), got \"" + value
                                + "\" (argument " + position + ")");
                    }
                    Path file = path(flag, value.substring(kv + 1), position);
                    externals.put(name, once("--external " + name, externals.get(name), file, position));
                }
                default -> throw new IllegalStateException("flag " + flag + " is in FLAGS but not handled");
            }
        }
        if (rules.isEmpty()) {
            throw new UsageException("--rules is required");
        }
        if (resource == null) {
            throw new UsageException("--resource is required");
        }
        if (operation == AdmissionOperation.DELETE && old != null) {
            throw new UsageException("--old does not apply to DELETE: --resource is the object being deleted");
        }
        if (operation == AdmissionOperation.CREATE && old != null) {
            throw new UsageException("--old does not apply to CREATE");
        }
        return new EvalOptions(List.copyOf(rules), resource, operation, namespace, old, namespaceRef, nodeRef,
                java.util.Collections.unmodifiableMap(references), output, explain, false, state,
                java.util.Collections.unmodifiableMap(externals), kubemodSystemNamespace, tenantScripts,
                List.copyOf(cluster), java.util.Collections.unmodifiableMap(http), allowedUrls(allowHttpRef),
                new KinitirasOptions(crossNamespace, webhookLabel));
    }

    /** Every URL when {@code --allow-http-ref} is not given ({@code eval} never calls out), else those prefixes. */
    private static AllowedUrls allowedUrls(List<String> prefixes) {
        try {
            return prefixes == null ? AllowedUrls.ANY : AllowedUrls.parse(prefixes);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** CREATE unless an old object is given, which makes it an UPDATE. */
    AdmissionOperation effectiveOperation() {
        if (operation != null) {
            return operation;
        }
        return old != null ? AdmissionOperation.UPDATE : AdmissionOperation.CREATE;
    }

    private static Path path(String flag, String value, int position) {
        if (value.isEmpty()) {
            throw new UsageException(flag + " needs a file name (argument " + position + ")");
        }
        return Path.of(value);
    }

    private static <T> T once(String flag, T previous, T value, int position) {
        if (previous != null) {
            throw new UsageException(flag + " given twice (argument " + position + ")");
        }
        return value;
    }

    private static AdmissionOperation operation(String value, int position) {
        for (AdmissionOperation op : AdmissionOperation.values()) {
            if (op.allowedInRules() && op.name().equals(value.toUpperCase(Locale.ROOT))) {
                return op;
            }
        }
        throw new UsageException("--operation expects CREATE, UPDATE or DELETE, got \"" + value + "\" (argument "
                + position + ")");
    }

    private static Output output(String value, int position) {
        for (Output o : Output.values()) {
            if (o.name().equals(value)) {
                return o;
            }
        }
        throw new UsageException("--output expects yaml, json or patch, got \"" + value + "\" (argument "
                + position + ")");
    }
}
