package io.remold.server.existing;

import io.kubernetes.client.Discovery;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1APIResource;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.openapi.models.V1StatusCause;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.PatchOptions;
import io.remold.engine.RuleFamily;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;

import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * {@link ExistingWrites} through server-side apply: for one object, reads it as it is now (with its managedFields),
 * builds the {@link ApplyConfiguration} of the rule's patch, applies it with {@code dryRun=All} and then for real,
 * under Remold's field manager and never with {@code force} (another manager's field is a {@link Outcome.Conflict}).
 * One write (the read, the dry run, the apply) per slot of the {@link WriteBudget}; only while {@code leading}.
 */
public final class ServerSideApply implements ExistingWrites {
    private static final System.Logger LOG = System.getLogger(ServerSideApply.class.getName());
    /** How long a write waits for its slot before it is skipped (the next scan asks again). */
    static final Duration MAX_WAIT = Duration.ofSeconds(5);

    /** A kind's resource, as discovery tells. */
    private record Resource(String group, String version, String plural, boolean namespaced) {
    }

    private final ApiClient client;
    private final ExistingApplyOptions options;
    private final WriteBudget budget;
    private final BooleanSupplier leading;
    /** By {@code apiVersion kind}; a kind not found is asked again next time (its CRD may come). */
    private final Map<String, Resource> resources = new ConcurrentHashMap<>();

    public ServerSideApply(ApiClient client, ExistingApplyOptions options, BooleanSupplier leading) {
        this(client, options, new WriteBudget(options.writesPerSecond(), MAX_WAIT), leading);
    }

    ServerSideApply(ApiClient client, ExistingApplyOptions options, WriteBudget budget, BooleanSupplier leading) {
        this.client = client;
        this.options = options;
        this.budget = budget;
        this.leading = leading;
    }

    @Override
    public Outcome apply(RuleFamily family, String rule, JsonObject object, JsonArray patch) {
        try {
            Outcome outcome = write(object, patch);
            LOG.log(outcome instanceof Outcome.Applied ? System.Logger.Level.INFO : System.Logger.Level.DEBUG,
                    "existing {0} {1}, {2} {3}: {4}", object.getString("kind", "?"), name(object), family.name(), rule,
                    outcome);
            return outcome;
        } catch (RuntimeException e) {
            // The client's own failures (a connection refused, an answer it cannot read): never the caller's problem.
            return new Outcome.Skipped("the API server could not be asked: " + e);
        }
    }

    private Outcome write(JsonObject object, JsonArray patch) {
        if (!leading.getAsBoolean()) {
            return new Outcome.Skipped("this replica does not lead: only the leader writes existing objects");
        }
        String apiVersion = object.getString("apiVersion", "");
        String kind = object.getString("kind", "");
        if ("v1".equals(apiVersion) && "Pod".equals(kind)) {
            return new Outcome.Skipped("a running Pod is not changed: change the workload's pod template");
        }
        if (!budget.acquire()) {
            return new Outcome.Skipped("the write budget (existing-apply-rate " + options.writesPerSecond()
                    + "/s) is spent for the next " + MAX_WAIT.toSeconds() + " s");
        }
        return switch (read(object)) {
            case Read.Missed(String why) -> new Outcome.Skipped(why);
            case Read.Found(Target target, JsonObject current) ->
                    write(target, current, metadata(object, "resourceVersion"), patch);
        };
    }

    /** @param evaluated the resourceVersion the rule decided on (empty: not known) */
    private Outcome write(Target target, JsonObject current, String evaluated, JsonArray patch) {
        String now = metadata(current, "resourceVersion");
        if (!evaluated.isEmpty() && !evaluated.equals(now)) {
            return new Outcome.Skipped("the object changed since the rule decided it (resourceVersion " + evaluated
                    + ", now " + now + "): the next scan decides again");
        }
        return switch (ApplyConfiguration.of(current, patch, options.fieldManager())) {
            case ApplyConfiguration.Built.NotExpressible(String why) -> new Outcome.Skipped(why);
            case ApplyConfiguration.Built.Config(JsonObject body) -> {
                var dryRun = send(target, body, true);
                yield dryRun instanceof Outcome.Applied ? send(target, body, false) : dryRun;
            }
        };
    }

    /** One object's place in the API. */
    private record Target(DynamicKubernetesApi api, String namespace, String name) {
        KubernetesApiResponse<DynamicKubernetesObject> get() {
            return namespace == null ? api.get(name) : api.get(namespace, name);
        }

        KubernetesApiResponse<DynamicKubernetesObject> apply(V1Patch patch, PatchOptions options) {
            return namespace == null ? api.patch(name, V1Patch.PATCH_FORMAT_APPLY_YAML, patch, options)
                    : api.patch(namespace, name, V1Patch.PATCH_FORMAT_APPLY_YAML, patch, options);
        }
    }

    /** What reading an object as it is now came to. */
    private sealed interface Read {
        record Found(Target target, JsonObject current) implements Read {
        }

        record Missed(String why) implements Read {
        }
    }

    private Read read(JsonObject object) {
        String apiVersion = object.getString("apiVersion", "");
        String kind = object.getString("kind", "");
        Resource resource;
        try {
            resource = resource(apiVersion, kind);
        } catch (ApiException e) {
            return new Read.Missed("cannot find out which resource " + apiVersion + " " + kind + " is: "
                    + (e.getCode() == 0 ? String.valueOf(e.getMessage()) : "HTTP " + e.getCode()));
        }
        if (resource == null) {
            return new Read.Missed(apiVersion + " " + kind + " is not served by the API server");
        }
        var target = new Target(new DynamicKubernetesApi(resource.group(), resource.version(), resource.plural(),
                client), resource.namespaced() ? metadata(object, "namespace") : null, name(object));
        var response = target.get();
        return response.isSuccess() ? new Read.Found(target, json(response.getObject()))
                : new Read.Missed("cannot read the object: " + message(response));
    }

    private Outcome send(Target target, JsonObject body, boolean dryRun) {
        var options = new PatchOptions().fieldManager(this.options.fieldManager()).force(false);
        if (dryRun) {
            options.dryRun("All");
        }
        var response = target.apply(new V1Patch(body.toString()), options); // JSON is YAML
        if (response.isSuccess()) {
            return new Outcome.Applied();
        }
        String message = (dryRun ? "the dry run: " : "") + message(response);
        if (response.getHttpStatusCode() == 409) {
            var cause = conflictCause(response.getStatus());
            if (cause.isPresent()) {
                return new Outcome.Conflict(managerOf(cause.get().getMessage()), cause.get().getField(), message);
            }
        }
        return new Outcome.Refused(message);
    }

    /**
     * Whether a field the rule's patch sets on the object is owned by another field manager (read from the object
     * as it is now): the apply would conflict, and Remold does not force. For a rescan to report that another writer
     * took a field back without writing. Empty when none, or when the object cannot be read (said in the log).
     */
    public Optional<Outcome.Conflict> ownedByAnother(JsonObject object, JsonArray patch) {
        try {
            return switch (read(object)) {
                case Read.Missed(String why) -> {
                    LOG.log(System.Logger.Level.DEBUG, "cannot tell who owns {0}''s fields: {1}", name(object), why);
                    yield Optional.empty();
                }
                case Read.Found(Target target, JsonObject current) ->
                        ApplyConfiguration.owner(current, patch, options.fieldManager()).map(owner ->
                                new Outcome.Conflict(owner.getKey(), owner.getValue(), owner.getValue()
                                        + " is owned by " + owner.getKey() + ": " + options.fieldManager()
                                        + " does not force"));
            };
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot tell who owns {0}''s fields: {1}", name(object), e.toString());
            return Optional.empty();
        }
    }

    private Resource resource(String apiVersion, String kind) throws ApiException {
        Resource known = resources.get(apiVersion + " " + kind);
        if (known != null) {
            return known;
        }
        List<V1APIResource> served = new Discovery(client)
                .resourceDiscovery(apiVersion.contains("/") ? "/apis/" + apiVersion : "/api/" + apiVersion)
                .getResources();
        int slash = apiVersion.indexOf('/');
        var found = served.stream().filter(r -> kind.equals(r.getKind()) && !r.getName().contains("/"))
                .findFirst().map(r -> new Resource(slash < 0 ? "" : apiVersion.substring(0, slash),
                        apiVersion.substring(slash + 1), r.getName(), Boolean.TRUE.equals(r.getNamespaced())));
        found.ifPresent(r -> resources.put(apiVersion + " " + kind, r));
        return found.orElse(null);
    }

    /** The first field-manager conflict a 409's Status names. */
    private static Optional<V1StatusCause> conflictCause(V1Status status) {
        if (status == null || status.getDetails() == null || status.getDetails().getCauses() == null) {
            return Optional.empty();
        }
        return status.getDetails().getCauses().stream()
                .filter(c -> "FieldManagerConflict".equals(c.getReason())).findFirst();
    }

    /** The manager in a conflict cause's message: {@code conflict with "kubectl" using apps/v1}. */
    static String managerOf(String message) {
        String marker = "conflict with \"";
        int start = message == null ? -1 : message.indexOf(marker);
        if (start < 0) {
            return "";
        }
        int end = message.indexOf('"', start + marker.length());
        return end < 0 ? "" : message.substring(start + marker.length(), end);
    }

    private static String message(KubernetesApiResponse<?> response) {
        V1Status status = response.getStatus();
        return "HTTP " + response.getHttpStatusCode()
                + (status != null && status.getMessage() != null ? " " + status.getMessage() : "");
    }

    private static JsonObject json(DynamicKubernetesObject object) {
        try (var reader = Json.createReader(new StringReader(object.getRaw().toString()))) {
            return reader.readObject();
        }
    }

    private static String name(JsonObject object) {
        return metadata(object, "name");
    }

    private static String metadata(JsonObject object, String field) {
        return object.get("metadata") instanceof JsonObject m ? m.getString(field, "") : "";
    }
}
