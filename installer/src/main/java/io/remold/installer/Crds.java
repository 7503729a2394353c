package io.remold.installer;

import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The CRDs shipped by the api module (ModRules and external data Providers; Gatekeeper's mutators for --gatekeeper-compat; js-admissions-controller's script rules for
 * --js-admissions-compat; OpenReports' reports for --reports). Each is checked against the client's model (which refuses unknown
 * fields) but written as read: the model would turn meaningful empty objects such as {@code status: {}} into noise.
 */
final class Crds {
    private static final String RESOURCE_DIR = "/io/remold/api/crd/";

    private Crds() {
    }

    static Object remold() {
        return load("modrules.remold.io.yaml");
    }

    /** Remold's external data providers (cluster-scoped). */
    static Object providers() {
        return load("providers.remold.io.yaml");
    }

    static Object kubemod() {
        return load("modrules.api.kubemod.io.yaml", UnaryOperator.identity());
    }

    /**
     * Gatekeeper's four mutator kinds, from one template, in the order Gatekeeper runs them, each served in the
     * versions Gatekeeper v3.23 serves: AssignImage only as {@code v1alpha1} (its storage version there, so that a
     * cluster with Gatekeeper's CRD keeps its objects as they are stored).
     */
    static List<Object> gatekeeper() {
        return Stream.of("Assign", "AssignImage", "AssignMetadata", "ModifySet")
                .map(kind -> load("mutators.mutations.gatekeeper.sh.yaml", text -> {
                    String crd = text.replace("MUTATOR_KIND", kind).replace("MUTATOR_PLURAL",
                            kind.toLowerCase(Locale.ROOT));
                    return kind.equals("AssignImage") ? onlyAlpha(crd) : crd;
                }))
                .toList();
    }

    /** js-admissions-controller's JsAdmission (namespaced) and ClusterJsAdmission, from one template. */
    static List<Object> jsAdmissions() {
        return Stream.of("JsAdmission/Namespaced", "ClusterJsAdmission/Cluster").map(entry -> entry.split("/"))
                .map(kind -> load("jsadmissions.momiji.com.yaml", text -> text
                        .replace("SCRIPT_KIND", kind[0]).replace("SCRIPT_SCOPE", kind[1])
                        .replace("SCRIPT_PLURAL", kind[0].toLowerCase(Locale.ROOT) + "s")
                        .replace("SCRIPT_SINGULAR", kind[0].toLowerCase(Locale.ROOT))))
                .toList();
    }

    /** OpenReports' Report (namespaced) and ClusterReport, from one template, for --reports. */
    static List<Object> reports() {
        return Stream.of("Report/Namespaced/reps", "ClusterReport/Cluster/creps").map(entry -> entry.split("/"))
                .map(kind -> load("reports.openreports.io.yaml", text -> text
                        .replace("REPORT_KIND", kind[0]).replace("REPORT_SCOPE", kind[1])
                        .replace("REPORT_PLURAL", kind[0].toLowerCase(Locale.ROOT) + "s")
                        .replace("REPORT_SINGULAR", kind[0].toLowerCase(Locale.ROOT))
                        .replace("REPORT_SHORT", kind[2])))
                .toList();
    }

    /** The template with v1alpha1 as the only (and storage) version: the anchored v1 block renamed, the others cut. */
    private static String onlyAlpha(String crd) {
        int merges = crd.indexOf("  - <<: *version");
        return crd.substring(0, merges).replace("    name: v1\n", "    name: v1alpha1\n");
    }

    private static Object load(String file) {
        return load(file, UnaryOperator.identity());
    }

    private static Object load(String file, UnaryOperator<String> template) {
        try (InputStream in = Crds.class.getResourceAsStream(RESOURCE_DIR + file)) {
            if (in == null) {
                throw new IllegalStateException("CRD resource " + RESOURCE_DIR + file + " is not on the classpath");
            }
            String text = template.apply(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            Object tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
            V1CustomResourceDefinition crd = JSON.deserialize(JSON.getGson().toJson(tree), V1CustomResourceDefinition.class);
            if (crd.getSpec() == null || !"CustomResourceDefinition".equals(crd.getKind())) {
                throw new IllegalStateException("CRD resource " + RESOURCE_DIR + file + " holds no CustomResourceDefinition");
            }
            return tree;
        } catch (IOException e) {
            throw new UncheckedIOException("reading CRD resource " + RESOURCE_DIR + file, e);
        }
    }
}
