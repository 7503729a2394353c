package io.remold.installer;

import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The ModRule CRDs shipped by the api module. Each is checked against the client's model (which refuses unknown
 * fields) but written as read: the model would turn meaningful empty objects such as {@code status: {}} into noise.
 */
final class Crds {
    private static final String RESOURCE_DIR = "/io/remold/api/crd/";

    private Crds() {
    }

    static Object remold() {
        return load("modrules.remold.io.yaml");
    }

    static Object kubemod() {
        return load("modrules.api.kubemod.io.yaml");
    }

    private static Object load(String file) {
        try (InputStream in = Crds.class.getResourceAsStream(RESOURCE_DIR + file)) {
            if (in == null) {
                throw new IllegalStateException("CRD resource " + RESOURCE_DIR + file + " is not on the classpath");
            }
            Object tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
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
