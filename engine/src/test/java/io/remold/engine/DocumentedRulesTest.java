package io.remold.engine;

import io.remold.api.ModRule;
import io.remold.api.ModRules;
import io.remold.api.YamlJson;
import io.remold.templating.ExternalData;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.remold.engine.TestJson.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

/** The complete ModRules in docs/modrules.md compile and do what the text says. */
class DocumentedRulesTest {
    private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\n(apiVersion:.*?)```", Pattern.DOTALL);

    @Test
    void examplesOfTheReferenceWork() throws Exception {
        String text = Files.readString(Path.of("..", "docs", "modrules.md"));
        var rules = new ArrayList<ModRule>();
        var others = new ArrayList<JsonValue>();
        Matcher m = YAML_BLOCK.matcher(text);
        while (m.find()) {
            for (String document : m.group(1).split("\n---\n")) {
                if (document.contains("\nkind: ModRule\n")) {
                    rules.addAll(ModRules.parse(document, "docs/modrules.md"));
                } else if (!document.contains("\nkind: Provider\n")) {
                    others.addAll(YamlJson.parse(document, "docs/modrules.md"));
                }
            }
        }
        assertThat(rules.stream().map(ModRule::name).toList(),
                contains("default-run-as-non-root", "no-latest", "allowed-registries", "mirror-images"));
        // The references example's ConfigMap answers its rule's reference.
        assertThat(others, hasSize(1));
        // The external data example's provider knows one mirror.
        ExternalData mirror = (provider, keys) -> provider.equals("registry-mirror") && keys.equals(List.of("nginx:1.27"))
                ? Map.of("nginx:1.27", ExternalData.Answer.of(Json.PROVIDER.createValue("mirror.io/nginx:1.27"), "test"))
                : ExternalData.failAll(keys, "unknown", false, "test");
        Engine engine = Engine.builder().rules(rules).externalData(mirror)
                .references(query -> new ReferenceResolver.Resolution(others.getFirst(), "docs/modrules.md")).build();
        assertThat(engine.problems(), equalTo(List.of()));

        String pod = "{'kind':'Pod','metadata':{'name':'web'},'spec':{'containers':[{'image':'nginx:%s'}]}}";
        Decision patched = engine.mutate(AdmissionRequest.create("team-a", json(pod.formatted("1.27"))));
        assertThat(patched.patch(), equalTo(json(
                "[{'op':'add','path':'/spec/securityContext','value':{'runAsNonRoot':true}}]")));
        assertThat(engine.validate(AdmissionRequest.create("team-a", patched.result())).allowed(), is(true));

        assertThat(engine.mutate(AdmissionRequest.create("shop", json(pod.formatted("1.27")))).patch(), equalTo(json(
                "[{'op':'replace','path':'/spec/containers/0/image','value':'mirror.io/nginx:1.27'}]")));

        Decision rejected = engine.validate(AdmissionRequest.create("team-a", json(pod.formatted("latest"))));
        assertThat(rejected.rejections(), hasSize(1));
        assertThat(rejected.rejectionMessage(), equalTo("operation rejected by the following ModRule(s): "
                + "team-a/no-latest: \"pod web uses an image without a fixed tag\""));

        String deployment = "{'kind':'Deployment','metadata':{'name':'web'},'spec':{'template':{'spec':"
                + "{'containers':[{'image':'ghcr.io/shop/web:1.4.0'},{'image':'%s'}]}}}}";
        assertThat(engine.validate(AdmissionRequest.create("shop",
                json(deployment.formatted("registry.example.com/tools/proxy:2")))).allowed(), is(true));
        assertThat(engine.validate(AdmissionRequest.create("shop", json(deployment.formatted("docker.io/x/miner:1"))))
                .rejectionMessage(), equalTo("operation rejected by the following ModRule(s): shop/allowed-registries: "
                + "\"web: every image must come from ghcr[.]io|registry[.]example[.]com\""));
    }
}
