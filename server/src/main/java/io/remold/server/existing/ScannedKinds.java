package io.remold.server.existing;

import io.kubernetes.client.Discovery;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.exception.IncompleteDiscoveryException;
import io.remold.engine.Family.TargetKind;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The resources an impact scan lists for a rule's target kinds, found through the API server's discovery: each at
 * its group's preferred version, sorted (group, plural) so that every leader walks them in the same order and a
 * resumed scan's kind index means the same resource.
 */
record ScannedKinds(List<Listed> kinds, Set<String> unserved, Set<String> withheld) {
    private static final String SECRETS = "/secrets";

    /** One resource to list; {@code kind} as its objects name it. */
    record Listed(String group, String version, String plural, String kind, boolean namespaced) {
        /** As status messages name it: {@code apps/v1 deployments}, {@code v1 services}. */
        String name() {
            return (group.isEmpty() ? "" : group + "/") + version + " " + plural;
        }

        String apiVersion() {
            return group.isEmpty() ? version : group + "/" + version;
        }
    }

    /**
     * The served resources of {@code targets}; a namespaced rule ({@code clusterScoped} false) never lists
     * cluster-scoped ones (it cannot decide them, and must not learn of them), nor Secrets: its samples would show
     * what its patch renders from them to an author who may not read them (they are named {@code withheld}).
     */
    static ScannedKinds resolve(ApiClient client, Set<TargetKind> targets, boolean clusterScoped) throws ApiException {
        Set<Discovery.APIResource> served;
        try {
            served = new Discovery(client).findAll();
        } catch (IncompleteDiscoveryException e) {
            // An aggregated API that does not answer (a metrics server down) hides only its own resources.
            served = e.getDiscoveredResources();
        }
        var kinds = new TreeSet<Listed>(Comparator.comparing(Listed::group).thenComparing(Listed::plural));
        var unserved = new TreeSet<String>();
        var withheld = new TreeSet<String>();
        for (TargetKind target : targets) {
            var found = new ArrayList<Listed>();
            for (Discovery.APIResource resource : served) {
                if (matches(target, resource)) {
                    found.add(new Listed(resource.getGroup() == null ? "" : resource.getGroup(),
                            resource.getPreferredVersion(), resource.getResourcePlural(), resource.getKind(),
                            Boolean.TRUE.equals(resource.getNamespaced())));
                }
            }
            if (found.isEmpty()) {
                unserved.add(describe(target));
            }
            for (Listed listed : found) {
                if (clusterScoped || listed.namespaced() && !SECRETS.equals(listed.group() + "/" + listed.plural())) {
                    kinds.add(listed);
                } else if (listed.namespaced()) {
                    withheld.add(listed.name());
                }
            }
        }
        return new ScannedKinds(List.copyOf(kinds), unserved, withheld);
    }

    private static boolean matches(TargetKind target, Discovery.APIResource resource) {
        String group = resource.getGroup() == null ? "" : resource.getGroup();
        if (target.group() != null && !target.group().equals(group)) {
            return false;
        }
        return target.kind() != null ? target.kind().equals(resource.getKind())
                : target.resource().equals(resource.getResourcePlural());
    }

    private static String describe(TargetKind target) {
        String what = target.kind() != null ? target.kind() : target.resource();
        return target.group() == null ? what : target.group().isEmpty() ? "core " + what : target.group() + "/" + what;
    }
}
