package io.remold.scripting;

import io.remold.api.AdmissionOperation;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.remold.scripting.ScriptsTest.GENEROUS;
import static io.remold.scripting.ScriptsTest.engine;
import static io.remold.scripting.ScriptsTest.json;
import static io.remold.scripting.ScriptsTest.rule;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/** The examples of js-admissions-controller's README that need state or a larger object, run unchanged. */
class SeedExamplesTest {
    static final String POD_LIMIT = """
            // entrypoints
            function jsa_init(state) {
              state.podCount = 0;
            }
            function jsa_created(obj, sync, state) {
              // Check object kind and namespace
              if (!check(obj)) return;
              // Update state
              state.podCount++;
            }
            function jsa_deleted(obj, sync, state) {
              // Check object kind and namespace
              if (!check(obj)) return;
              // Update state
              state.podCount--;
            }
            function jsa_validate(op, obj, sync, state) {
              // Check object kind and namespace
              if (op != "CREATE" || !check(obj)) return;
              // Check pod count < limit
              if (state.podCount >= POD_LIMIT) {
                return { Allowed: false, Message: "Max number of pods has been reached" };
              }
              return;
            }
            // custom code
            var NAMESPACE_REGEX = /^default($|-)/;
            var POD_LIMIT = 40;
            function check(obj) {
              return obj.kind === "Pod" && obj.metadata.namespace.match(NAMESPACE_REGEX) != null;
            }
            """;

    static JsonObject pod(String namespace, int i) {
        return json("{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p" + i + "','namespace':'" + namespace
                + "','uid':'" + namespace + "-" + i + "','resourceVersion':'1'},'spec':{}}");
    }

    static boolean admitted(Engine engine, JsonObject pod) {
        String ns = pod.getJsonObject("metadata").getString("namespace");
        return engine.validate(new AdmissionRequest(AdmissionOperation.CREATE, ns, pod, null, null, null, false))
                .allowed();
    }

    @Test
    void podCountLimitAcrossDefaultNamespaces() {
        try (ScriptHost host = Scripts.host(GENEROUS)) {
            // Ten pods exist before the rule: they are counted at its start.
            List<JsonObject> existing = java.util.stream.IntStream.range(0, 10).mapToObj(i -> pod("default", i)).toList();
            host.existing(resource -> resource.equals("pods") ? existing : List.of());
            ScriptRule rule = rule("ClusterJsAdmission", null, "pod-limit", "pods", POD_LIMIT);
            Engine engine = engine(host, rule);
            assertThat(host.state(rule.id()), is("{\"podCount\":10}"));
            for (int i = 0; i < 30; i++) {
                JsonObject p = pod(i % 2 == 0 ? "default-a" : "default", 100 + i);
                assertThat(admitted(engine, p), is(true));
                host.created("pods", p);
            }
            host.created("pods", pod("kube-system", 1)); // not counted: another namespace
            host.created("pods", existing.getFirst()); // listed again: counted once
            assertThat(host.state(rule.id()), is("{\"podCount\":40}"));
            assertThat(admitted(engine, pod("default-b", 500)), is(false));
            Decision refused = engine.validate(new AdmissionRequest(AdmissionOperation.CREATE, "default",
                    pod("default", 501), null, null, null, false));
            assertThat(refused.rejections().getFirst().message(), is("Max number of pods has been reached"));
            assertThat(admitted(engine, pod("kube-system", 2)), is(true));
            // One deletion makes room for one pod.
            host.deleted("pods", existing.get(3));
            host.deleted("pods", existing.get(3));
            assertThat(host.state(rule.id()), is("{\"podCount\":39}"));
            assertThat(admitted(engine, pod("default", 502)), is(true));
            // A rebuilt rule set with the same rule keeps the count.
            Engine again = engine(host, rule);
            assertThat(host.state(rule.id()), is("{\"podCount\":39}"));
            assertThat(admitted(again, pod("default", 503)), is(true));
        }
    }

    @Test
    void updatesReachJsaUpdatedWithBothObjects() {
        try (ScriptHost host = Scripts.host(GENEROUS)) {
            ScriptRule rule = rule("ClusterJsAdmission", null, "updates", "pods", """
                    function jsa_updated(newObj, sync, oldObj, state) {
                      state.last = oldObj.metadata.resourceVersion + "->" + newObj.metadata.resourceVersion;
                    }
                    """);
            engine(host, rule);
            JsonObject v1 = pod("default", 1);
            JsonObject v2 = json(v1.toString().replace("\"resourceVersion\":\"1\"", "\"resourceVersion\":\"2\"")
                    .replace('"', '\''));
            host.created("pods", v1);
            host.updated("pods", v1, v1); // a resync: skipped
            assertThat(host.state(rule.id()), is("{}"));
            host.updated("pods", v1, v2);
            assertThat(host.state(rule.id()), is("{\"last\":\"1->2\"}"));
        }
    }

    static final String SAS = """
            function container_by_name(containers, name) {
              for (var c of containers) {
                if (c.name == name) return c;
              }
              return null;
            }
            function jsa_mutate(obj) {
              // init labels
              if (obj.metadata.labels == null)
                obj.metadata.labels = {};
              // compute new class
              var workload = "stateless";
              var labels = obj.metadata.labels;
              if (labels["casoperator.sas.com/node-type"] != null) {
                var v = labels["casoperator.sas.com/node-type"];
                if (v == "worker") {
                  workload = "cas";
                  // update resources for cas workers
                  var container = container_by_name(obj.spec.containers, "sas-cas-server");
                  var annos = obj.metadata.annotations;
                  if (container != null) {
                    if (annos["casworker.sas.com/cpu-limit"] != null)
                      container.resources.limits.cpu = annos["casworker.sas.com/cpu-limit"];
                    if (annos["casworker.sas.com/cpu-request"] != null)
                      container.resources.requests.cpu = annos["casworker.sas.com/cpu-request"];
                    if (annos["casworker.sas.com/mem-limit"] != null)
                      container.resources.limits.memory = annos["casworker.sas.com/mem-limit"];
                    if (annos["casworker.sas.com/mem-request"] != null)
                      container.resources.requests.memory = annos["casworker.sas.com/mem-request"];
                  }
                } else {
                  workload = "compute";
                }
              } else if (labels["launcher.sas.com/job-type"] == "compute-server") {
                workload = "compute";
              } else if (labels["workload.sas.com/class"] != null) {
                workload = labels["workload.sas.com/class"];
              }
              // update database command for crunchy
              if (labels["postgres-operator.crunchydata.com/data"] == "postgres") {
                var container = container_by_name(obj.spec.containers, "database");
                if (container != null && container.command != null && container.command.join(" ") == "patroni /etc/patroni") {
                  container.command = [ "/bin/bash", "-ceEx", "ulimit -c 0 ; ulimit -a ; patroni /etc/patroni" ];
                } else {
                  return { Allowed: false, Message: "Invalid postgres container database command, fix code or make it more generic" };
                }
              }
              // add label with new class
              labels["workload.sas.com/jsa-class"] = workload;
              // add nodeSelector
              if (obj.spec.nodeSelector == null)
                obj.spec.nodeSelector = {};
              obj.spec.nodeSelector["workload.sas.com/" + workload] = "yes";
              // return success
              return { Allowed: true, Result: obj };
            }
            """;

    @Test
    void realWorldNodeSelectorsAndCasResources() {
        try (ScriptHost host = Scripts.host(GENEROUS)) {
            Engine engine = engine(host, rule("ClusterJsAdmission", null, "sas", "pods", SAS));
            JsonObject cas = json("{'apiVersion':'v1','kind':'Pod','metadata':{'name':'w','namespace':'viya',"
                    + "'labels':{'casoperator.sas.com/node-type':'worker'},'annotations':{"
                    + "'casworker.sas.com/cpu-limit':'4','casworker.sas.com/mem-request':'8Gi'}},'spec':{"
                    + "'containers':[{'name':'sas-cas-server','resources':{'limits':{'cpu':'1'},'requests':{"
                    + "'memory':'1Gi'}}}]}}");
            Decision d = engine.mutate(ScriptsTest.create(cas));
            assertThat(d.patch().toString(), is("[{\"op\":\"add\",\"path\":\"/metadata/labels/workload.sas.com~1jsa-class\","
                    + "\"value\":\"cas\"},{\"op\":\"replace\",\"path\":\"/spec/containers/0/resources/limits/cpu\","
                    + "\"value\":\"4\"},{\"op\":\"replace\",\"path\":\"/spec/containers/0/resources/requests/memory\","
                    + "\"value\":\"8Gi\"},{\"op\":\"add\",\"path\":\"/spec/nodeSelector\",\"value\":{"
                    + "\"workload.sas.com/cas\":\"yes\"}}]"));
            JsonObject crunchy = json("{'apiVersion':'v1','kind':'Pod','metadata':{'name':'db','namespace':'viya',"
                    + "'labels':{'postgres-operator.crunchydata.com/data':'postgres'}},'spec':{'containers':[{"
                    + "'name':'database','command':['patroni','/etc/patroni']}]}}");
            d = engine.mutate(ScriptsTest.create(crunchy));
            assertThat(d.patch().toString().contains("ulimit -c 0 ; ulimit -a ; patroni /etc/patroni"), is(true));
            assertThat(d.patch().toString().contains("workload.sas.com/stateless"), is(true));
            JsonObject badCrunchy = json(crunchy.toString().replace("/etc/patroni", "/etc/other").replace('"', '\''));
            d = engine.mutate(ScriptsTest.create(badCrunchy));
            assertThat(d.allowed(), is(false));
            assertThat(d.rejections().getFirst().message(),
                    is("Invalid postgres container database command, fix code or make it more generic"));
        }
    }
}
