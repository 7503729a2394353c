package io.remold.installer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The bundle's kinitiras CRDs accept and refuse what kinitiras's own CRDs (its chart, newest engine) do: the schemas
 * are equal once the descriptions (ours are our own) and Remold's added status are set aside.
 */
class KinitirasCrdsTest {
    private static final Path KINITIRAS_CRDS = Path.of("../../shared/conformance/kinitiras/pkg/charts/_crds/bases");

    @ParameterizedTest
    @ValueSource(strings = {"overridepolicies", "clusteroverridepolicies", "clustervalidatepolicies"})
    void schemaNamesAndScopeAreKinitirassOwn(String plural) throws IOException {
        Map<String, Object> theirs = load(KINITIRAS_CRDS.resolve("policy.kcloudlabs.io_" + plural + ".yaml"));
        Map<String, Object> ours = KinitirasCrds.all().stream().map(KinitirasCrdsTest::map)
                .filter(crd -> map(crd.get("metadata")).get("name").equals(plural + ".policy.kcloudlabs.io"))
                .findFirst().orElseThrow();
        Map<String, Object> theirSpec = map(theirs.get("spec"));
        Map<String, Object> ourSpec = map(ours.get("spec"));
        assertThat(ourSpec.get("group"), equalTo(theirSpec.get("group")));
        assertThat(ourSpec.get("scope"), equalTo(theirSpec.get("scope")));
        var ourNames = new TreeMap<>(map(ourSpec.get("names")));
        ourNames.remove("categories");
        assertThat(ourNames, equalTo(new TreeMap<>(map(theirSpec.get("names")))));

        Map<String, Object> theirVersion = map(((List<?>) theirSpec.get("versions")).get(0));
        Map<String, Object> ourVersion = map(((List<?>) ourSpec.get("versions")).get(0));
        assertThat(ourVersion.get("name"), equalTo(theirVersion.get("name")));
        Map<String, Object> ourSchema = map(map(ourVersion.get("schema")).get("openAPIV3Schema"));
        Map<String, Object> ourProperties = map(ourSchema.get("properties"));
        assertThat(ourProperties, hasKey("status"));
        var withoutStatus = new LinkedHashMap<>(ourSchema);
        var properties = new LinkedHashMap<>(ourProperties);
        properties.remove("status");
        withoutStatus.put("properties", properties);
        var differences = new ArrayList<String>();
        differences(withoutDescriptions(withoutStatus),
                withoutDescriptions(map(theirVersion.get("schema")).get("openAPIV3Schema")), "", differences);
        assertThat(plural + " (ours, then kinitiras's)", differences, empty());
    }

    /** Where two trees differ, as paths with both values. */
    private static void differences(Object ours, Object theirs, String path, List<String> out) {
        if (ours instanceof Map<?, ?> a && theirs instanceof Map<?, ?> b) {
            var keys = new TreeSet<Object>(a.keySet());
            keys.addAll(b.keySet());
            keys.forEach(k -> differences(a.get(k), b.get(k), path + "." + k, out));
        } else if (ours instanceof List<?> a && theirs instanceof List<?> b && a.size() == b.size()) {
            for (int i = 0; i < a.size(); i++) {
                differences(a.get(i), b.get(i), path + "[" + i + "]", out);
            }
        } else if (!Objects.equals(ours, theirs)) {
            out.add(path + ": " + ours + " | " + theirs);
        }
    }

    /**
     * Sorted maps without {@code description} members (a schema's text), lists kept in order except enums, which are
     * sets. kinitiras's generator writes an enum given twice (on the Go type and on the field) as {@code allOf} two
     * enums, which accepts what their intersection does: ours is that one enum.
     */
    private static Object withoutDescriptions(Object node) {
        if (node instanceof Map<?, ?> m) {
            var out = new TreeMap<String, Object>();
            m.forEach((k, v) -> {
                if ("enum".equals(k)) {
                    out.put("enum", new TreeSet<>((List<?>) v));
                } else if ("allOf".equals(k) && ((List<?>) v).stream().allMatch(e -> map(e).keySet().equals(Set.of("enum")))) {
                    var values = new TreeSet<Object>((List<?>) map(((List<?>) v).get(0)).get("enum"));
                    ((List<?>) v).forEach(e -> values.retainAll((List<?>) map(e).get("enum")));
                    out.put("enum", values);
                } else if (!("description".equals(k) && v instanceof String)) {
                    out.put((String) k, withoutDescriptions(v));
                }
            });
            return out;
        }
        if (node instanceof List<?> list) {
            return list.stream().map(KinitirasCrdsTest::withoutDescriptions).toList();
        }
        return node;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    private static Map<String, Object> load(Path file) throws IOException {
        return map(new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(file)));
    }
}
