package io.remold.server.kube;

import com.google.gson.JsonObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;

import java.util.ArrayList;
import java.util.List;

/**
 * Lists and watches one resource as raw JSON trees (every field kept, whatever the client's models know).
 *
 * <p>The API server lists built-in objects (Namespaces, Nodes) without {@code kind} and {@code apiVersion}, and
 * client-java's informer then fails on {@link DynamicKubernetesObject#getKind()}. Here each listed item gets the
 * list's kind (without the {@code List} suffix) and apiVersion, as a watch event would carry them.
 * {@link DynamicKubernetesApi}, not a plain generic API: it registers the gson adapters that read lists and objects
 * as raw trees (without them a list arrives without its metadata).
 *
 * <p>client-java's reflector keeps the list it synced from in local variables of its loop for as long as it
 * watches, which is until the next error. Once an object changes, the informer's store holds the new version and that
 * list the listed one: every object twice. So the list handed out keeps its items in one list of its own, not in its
 * raw JSON, and that list is emptied when the reflector starts watching, by which time it has queued every item.
 *
 * <p>Lists come {@value #PAGE} objects a page, each object {@link Manifests#kept kept} as its page arrives: listing
 * 10,000 ConfigMaps at once held the whole response as gson trees and grew the heap to its maximum, which the JVM
 * keeps (BENCHMARKS.md, "References: memory").
 */
final class DynamicListerWatcher implements ListerWatcher<DynamicKubernetesObject, DynamicKubernetesListObject> {
    /** Objects a list page: what one list holds in memory as gson trees, beside the kept objects of earlier pages. */
    static final int PAGE = 500;

    private final DynamicKubernetesApi lists;
    private final DynamicKubernetesApi watches;
    private List<DynamicKubernetesObject> listed = new ArrayList<>();

    /**
     * {@code listClient} should have a read timeout (a stalled list is retried); {@code watchClient} none, since a
     * watch may stay quiet for minutes and the API server ends it after the requested timeout.
     */
    DynamicListerWatcher(String group, String version, String plural, ApiClient listClient, ApiClient watchClient) {
        this.lists = new DynamicKubernetesApi(group, version, plural, listClient);
        this.watches = new DynamicKubernetesApi(group, version, plural, watchClient);
    }

    @Override
    public DynamicKubernetesListObject list(CallGeneratorParams params) throws ApiException {
        List<DynamicKubernetesObject> items = new ArrayList<>();
        JsonObject raw = null;
        String next = null;
        do {
            var options = new ListOptions();
            options.setLimit(PAGE);
            options.setTimeoutSeconds(params.timeoutSeconds);
            if (next == null) {
                options.setResourceVersion(pagedResourceVersion(params.resourceVersion));
            } else {
                options.setContinue(next); // the API server refuses a resourceVersion beside a continue token
            }
            DynamicKubernetesListObject page = lists.list(options).throwsApiException().getObject();
            raw = page.getRaw();
            String listKind = raw.has("kind") ? raw.get("kind").getAsString() : "";
            String kind = listKind.endsWith("List") ? listKind.substring(0, listKind.length() - "List".length())
                    : null;
            String apiVersion = raw.has("apiVersion") ? raw.get("apiVersion").getAsString() : null;
            for (DynamicKubernetesObject item : page.getItems()) {
                JsonObject object = item.getRaw();
                if (!object.has("kind") && kind != null) {
                    object.addProperty("kind", kind);
                }
                if (!object.has("apiVersion") && apiVersion != null) {
                    object.addProperty("apiVersion", apiVersion);
                }
                // Kept now, not when the informer takes it: a page's gson trees go before the next page comes.
                items.add((DynamicKubernetesObject) Manifests.kept(item));
            }
            raw.remove("items");
            next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
        } while (next != null && !next.isEmpty());
        if (raw.get("metadata") instanceof JsonObject metadata) {
            metadata.remove("continue");
        }
        listed = items;
        return new Listed(raw, items);
    }

    /**
     * The first page's resourceVersion: the informer's own, except {@code "0"} (any version the API server has),
     * which its watch cache answers with every object at once whatever the limit; unset, the list is read at the
     * newest version, one page at a time.
     */
    private static String pagedResourceVersion(String resourceVersion) {
        return resourceVersion == null || resourceVersion.isEmpty() || resourceVersion.equals("0") ? null
                : resourceVersion;
    }

    @Override
    public Watchable<DynamicKubernetesObject> watch(CallGeneratorParams params) throws ApiException {
        listed.clear();
        return watches.watch(options(params));
    }

    /** A list whose items are the given list, emptied once the reflector watches (see the class comment). */
    private static final class Listed extends DynamicKubernetesListObject {
        private final List<DynamicKubernetesObject> items;

        Listed(JsonObject raw, List<DynamicKubernetesObject> items) {
            super(raw);
            this.items = items;
        }

        @Override
        public List<DynamicKubernetesObject> getItems() {
            return items;
        }
    }

    private static ListOptions options(CallGeneratorParams params) {
        var options = new ListOptions();
        options.setResourceVersion(params.resourceVersion);
        options.setTimeoutSeconds(params.timeoutSeconds);
        return options;
    }
}
