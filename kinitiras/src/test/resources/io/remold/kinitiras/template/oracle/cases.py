"""The cases of ../template-cases.json: inputs written by hand, each citing the kinitiras Go test or example it
comes from. run.py computes their expected results with the oracle."""

def pod(**spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "namespace": "default"}, "spec": spec}

def podm(meta, **spec):
    p = pod(**spec); p["metadata"].update(meta); return p

def deploy(container):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"template": {"spec": {"containers": [dict(name="app", image="nginx", **container)]}}}}

C = lambda **r: {"name": "app", "image": "nginx", **r}
O = []
def ov(id, go, template, object, operation="UPDATE", oldObject=None, kube=None, http=None, refused=None, note=None):
    O.append(dict(id=id, go=go, kind="override", template=template, operation=operation, object=object,
                  oldObject=oldObject, kube=kube, http=http, refused=refused, note=note))
def va(id, go, condition, object, operation="DELETE", oldObject=None, kube=None, http=None, refused=None, note=None,
       type="condition"):
    t = {"type": type}
    if condition is not None:
        t["condition"] = condition
    O.append(dict(id=id, go=go, kind="validate", template=t, operation=operation, object=object,
                  oldObject=oldObject, kube=kube, http=http, refused=refused, note=note))

ANN = "examples/templates/override-anno.yaml"
LAB = "examples/templates/override-labels.yaml"
RES = "examples/templates/override-resources.yaml"
OVS = "examples/templates/override-resourcesoversell.yaml"
TOL = "examples/templates/override-tolerations.yaml"
AFF = "examples/templates/override-affinity.yaml"
VMU = "examples/templates/validate-multi.yaml"
T = "template"
F = "spec.overrideRules[0].overriders.template"
V = "spec.validateRules[0].template"

# --- annotations and labels
ov("anno-const-no-annotations", "Test_policyInterrupterImpl_OnMutating/1.2",
   {"type": "annotations", "operation": "replace", "path": "add-by", "value": {"string": "cue"}}, pod(containers=[C()]))
ov("anno-const-with-annotations", "Test_policyInterrupterImpl_OnMutating/1.2",
   {"type": "annotations", "operation": "replace", "path": "add-by", "value": {"string": "cue"}},
   podm({"annotations": {"a": "b"}}, containers=[C()]))
ov("anno-string-map", "Test_baseInterrupter_renderAndFormat/overridePolicy",
   {"type": "annotations", "operation": "replace", "value": {"stringMap": {"app": "cue", "no-delete": "True"}}},
   podm({"annotations": {"a": "b"}}, containers=[C()]))
ov("anno-remove-present", ANN + " rule 1",
   {"type": "annotations", "operation": "remove", "path": "xxx-id"}, podm({"annotations": {"xxx-id": "7"}}, containers=[C()]))
ov("anno-remove-absent", ANN + " rule 1",
   {"type": "annotations", "operation": "remove", "path": "xxx-id"}, podm({"annotations": {"a": "b"}}, containers=[C()]))
ov("anno-replace-owned-by", ANN + " rule 2",
   {"type": "annotations", "operation": "replace", "path": "owned-by", "value": {"string": "cue"}}, pod(containers=[C()]))
ov("anno-ref-current", ANN + " rule 4",
   {"type": "annotations", "operation": "replace", "path": "restartPolicy", "valueRef": {"from": "current", "path": "/spec/restartPolicy"}},
   pod(containers=[C()], restartPolicy="Always"))
ov("anno-ref-current-missing", ANN + " rule 4",
   {"type": "annotations", "operation": "replace", "path": "restartPolicy", "valueRef": {"from": "current", "path": "/spec/restartPolicy"}},
   pod(containers=[C()]))
ov("anno-ref-owner", ANN + " rule 5",
   {"type": "annotations", "operation": "replace", "path": "deployment-name", "valueRef": {"from": "owner", "path": "/metadata/ownerReferences/0/name"}},
   podm({"ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d9"}]}, containers=[C()]),
   kube={"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-5d9", "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}]}})
ov("anno-ref-k8s-first-of-list", ANN + " rule 6",
   {"type": "annotations", "operation": "replace", "path": "deployment-name-2", "valueRef": {"from": "k8s", "path": "/metadata/name",
    "k8s": {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"app": "{{metadata.labels.app}}"}}}}},
   podm({"labels": {"app": "web"}}, containers=[C()]),
   kube=[{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}, {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web-2"}}])
ov("anno-ref-k8s-none-selected", ANN + " rule 6",
   {"type": "annotations", "operation": "replace", "path": "deployment-name-2", "valueRef": {"from": "k8s", "path": "/metadata/name",
    "k8s": {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"app": "web"}}}}},
   podm({"annotations": {}}, containers=[C()]), kube=[])
ov("anno-ref-http-body", "Test_policyInterrupterImpl_OnMutating/1",
   {"type": "annotations", "operation": "replace", "path": "add-by", "valueRef": {"from": "http", "path": "body.name",
    "http": {"url": "https://xxx.com", "method": "GET"}}},
   podm({"annotations": {}}, containers=[C()]), http={"name": "svc-a", "n": 3})
ov("anno-ref-http-number", "Test_policyInterrupterImpl_OnMutating/1",
   {"type": "annotations", "operation": "add", "path": "n", "valueRef": {"from": "http", "path": "body.n",
    "http": {"url": "https://xxx.com", "method": "GET"}}},
   podm({"annotations": {}}, containers=[C()]), http={"name": "svc-a", "n": 3})
ov("anno-ref-old-on-create", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "was", "valueRef": {"from": "old", "path": "/metadata/name"}},
   podm({"annotations": {}}, containers=[C()]), operation="CREATE")
ov("anno-ref-old-on-update", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "was", "valueRef": {"from": "old", "path": "/metadata/name"}},
   podm({"annotations": {}}, containers=[C()]), oldObject=pod(containers=[C()]))
ov("anno-ref-raw-cue-path", "Test_handlePath/no-hande",
   {"type": "annotations", "operation": "replace", "path": "image", "valueRef": {"from": "current", "path": "spec.containers[0].image"}},
   podm({"annotations": {}}, containers=[C()]))
ov("anno-ref-path-index-and-dash", "Test_handlePath/normal",
   {"type": "annotations", "operation": "replace", "path": "tol", "valueRef": {"from": "current", "path": "/spec/tolerations/1/key-1"}},
   podm({"annotations": {}}, containers=[C()], tolerations=[{"key": "a"}, {"key-1": "second"}]))
ov("anno-ref-value-decoded-by-go", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "add", "path": "v", "valueRef": {"from": "current", "path": "/spec/v"}},
   podm({"annotations": {}}, containers=[C()], v={"a": [], "b": None, "c": {}, "d": [[]], "e": [None, 1]}))
ov("anno-ref-null-value-dropped", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "add", "path": "v", "valueRef": {"from": "current", "path": "/spec/v"}},
   podm({"annotations": {}}, containers=[C()], v=None))
ov("anno-integer", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "n", "value": {"integer": 5}}, podm({"annotations": {}}, containers=[C()]))
ov("anno-float-as-written", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "f", "value": {"float": "1.50"}}, podm({"annotations": {}}, containers=[C()]))
ov("anno-boolean", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "b", "value": {"boolean": False}}, podm({"annotations": {}}, containers=[C()]))
ov("anno-string-slice-printed", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "s", "value": {"stringSlice": ["a", "b"]}}, podm({"annotations": {}}, containers=[C()]))
ov("anno-integer-slice-printed", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "s", "value": {"integerSlice": [1, 2]}}, podm({"annotations": {}}, containers=[C()]))
ov("anno-string-wins-over-integer", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "s", "value": {"integer": 3, "string": "x"}}, podm({"annotations": {}}, containers=[C()]))
ov("anno-empty-constant", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "s", "value": {}}, podm({"annotations": {}}, containers=[C()]))
ov("anno-value-wins-over-ref", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "s", "value": {"string": "v"}, "valueRef": {"from": "current", "path": "/metadata/name"}},
   podm({"annotations": {}}, containers=[C()]))
ov("anno-no-value", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "s"}, pod(containers=[C()]))
ov("anno-key-with-slash", "Test_handlePath/normal",
   {"type": "annotations", "operation": "replace", "path": "example.com/team", "value": {"string": "a"}}, podm({"annotations": {}}, containers=[C()]))
ov("anno-remove-key-with-slash", "Test_handlePath/normal",
   {"type": "annotations", "operation": "remove", "path": "example.com/team"}, podm({"annotations": {"example.com.team": "x", "example.com/team": "y"}}, containers=[C()]))
ov("anno-key-with-slash-and-dash", "Test_handlePath/normal",
   {"type": "annotations", "operation": "replace", "path": "example.com/my-team", "value": {"string": "a"}}, pod(containers=[C()]),
   refused=F + ".path")
ov("anno-value-with-quote", "TestOverrideRulesToOverridePolicyRenderData/ann1",
   {"type": "annotations", "operation": "replace", "path": "q", "value": {"string": "say \"hi\""}}, pod(containers=[C()]),
   refused=F + ".value")
ov("label-remove", LAB + " rule 1",
   {"type": "labels", "operation": "remove", "path": "xxx-id"}, podm({"labels": {"xxx-id": "1", "app": "web"}}, containers=[C()]))
ov("label-replace", LAB + " rule 2",
   {"type": "labels", "operation": "replace", "path": "owned-by", "value": {"string": "cue"}}, pod(containers=[C()]))
ov("label-ref-current", LAB + " rule 3",
   {"type": "labels", "operation": "replace", "path": "restartPolicy", "valueRef": {"from": "current", "path": "/spec/restartPolicy"}},
   podm({"labels": {"app": "web"}}, containers=[C()], restartPolicy="Never"))

# --- resources
ov("resources-replace-limits-deployment", RES + " rule 1",
   {"type": "resources", "operation": "replace", "resources": {"limits": {"cpu": 100, "memory": "4096Gi"}}}, deploy({}))
ov("resources-replace-limits-pod-with-resources", RES + " rule 1",
   {"type": "resources", "operation": "replace", "resources": {"limits": {"cpu": 100, "memory": "4096Gi"}}},
   pod(containers=[C(resources={"limits": {"cpu": "1"}})]))
ov("resources-remove-requests", RES + " rule 2",
   {"type": "resources", "operation": "remove", "resources": {"requests": {"cpu": 0, "memory": 0, "ephemeral-storage": 0}}},
   deploy({"resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {}}}))
ov("resources-add-rounds-up", "TestOverrideRulesToOverridePolicyRenderData/oversell",
   {"type": "resources", "operation": "add", "resources": {"requests": {"cpu": "500m", "memory": "1.5Ki"}, "limits": {"cpu": "2.1"}}},
   pod(containers=[C(resources={"requests": {}, "limits": {}})]))
ov("resources-exa-binary-suffix", RES,
   {"type": "resources", "operation": "replace", "resources": {"limits": {"memory": "1Ei", "cpu": "2k"}, "requests": {"cpu": "1e-3"}}}, pod(containers=[C(resources={"limits": {}, "requests": {}})]))
ov("resources-bad-quantity-refused", RES,
   {"type": "resources", "operation": "replace", "resources": {"limits": {"cpu": "2e3m"}}}, pod(containers=[C()]), refused=F + ".resources.limits.cpu")
ov("resources-absent-writes-missing-maps", RES,
   {"type": "resources", "operation": "replace"}, pod(containers=[C(resources={"limits": {}})]))
ov("resources-kind-missing", RES,
   {"type": "resources", "operation": "replace", "resources": {"limits": {"cpu": 1}}}, {"spec": {"containers": [C()]}})

# --- resourcesOversell
ov("oversell-example-deployment", OVS + " (TestOverrideRulesToOverridePolicyRenderData/oversell)",
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"cpuFactor": "0.5", "memoryFactor": "0.2", "diskFactor": "0.1"}},
   deploy({"resources": {"limits": {"cpu": "500m", "memory": "4096Gi", "ephemeral-storage": "10Gi"}}}))
ov("oversell-whole-cpu-and-decimal-memory", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"cpuFactor": "0.3", "memoryFactor": "0.25"}},
   pod(containers=[C(resources={"limits": {"cpu": "3", "memory": "1G"}, "requests": {"cpu": "1"}})]))
ov("oversell-plain-memory-bytes", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"memoryFactor": "0.5"}},
   pod(containers=[C(resources={"limits": {"memory": "1000001"}})]))
ov("oversell-no-cpu-limit-gives-0m", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"cpuFactor": "0.5"}}, pod(containers=[C()]))
ov("oversell-zero-cpu-request", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"cpuFactor": "0.5"}},
   pod(containers=[C(resources={"limits": {"cpu": "4"}, "requests": {"cpu": "0"}})]))
ov("oversell-memory-without-limit-fails", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"cpuFactor": "0.5", "memoryFactor": "0.2"}},
   pod(containers=[C(resources={"limits": {"cpu": "2"}})]))
ov("oversell-remove", OVS + " (operation remove)",
   {"type": "resourcesOversell", "operation": "remove", "resourcesOversell": {"cpuFactor": "0", "memoryFactor": "0.2", "diskFactor": "0.1"}},
   deploy({"resources": {"requests": {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"}}}))
ov("oversell-remove-disk-with-limit", OVS + " (operation remove)",
   {"type": "resourcesOversell", "operation": "remove", "resourcesOversell": {"diskFactor": "0.1"}},
   deploy({"resources": {"requests": {"ephemeral-storage": "1Gi"}, "limits": {"ephemeral-storage": "2Gi"}}}))
ov("oversell-zero-disk-limit-fails", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"diskFactor": "0.1"}},
   pod(containers=[C(resources={"limits": {"ephemeral-storage": "0"}})]))
ov("oversell-all-factors-invalid-is-off", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"cpuFactor": "0", "memoryFactor": "1"}},
   pod(containers=[C(resources={"limits": {"cpu": "2", "memory": "1Gi"}})]))
ov("oversell-factor-above-one-used", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"cpuFactor": "2", "memoryFactor": "0.5"}},
   pod(containers=[C(resources={"limits": {"cpu": "250m", "memory": "64Mi"}})]))
ov("oversell-unread-suffix-gives-0", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"memoryFactor": "0.5"}},
   pod(containers=[C(resources={"limits": {"memory": "1Ei"}})]))
ov("oversell-fractional-limit-fails", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"memoryFactor": "0.5"}},
   pod(containers=[C(resources={"limits": {"memory": "1.5Gi"}})]))
ov("oversell-no-first-container-fails", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"cpuFactor": "0.5"}}, pod(containers=[]))
ov("oversell-null-resources-fails", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"cpuFactor": "0.5"}}, pod(containers=[C(resources=None)]))
ov("oversell-rounding-half-up", OVS,
   {"type": "resourcesOversell", "operation": "replace", "resourcesOversell": {"cpuFactor": "0.5", "memoryFactor": "0.5"}},
   pod(containers=[C(resources={"limits": {"cpu": "1m", "memory": "3"}})]))

# --- tolerations
TOLS = [{"effect": "NoExecute", "key": "node.kubernetes.io/no-cpu", "operator": "Exists", "tolerationSeconds": 500},
        {"effect": "NoExecute", "key": "node.kubernetes.io/no-xxx", "operator": "Exists", "tolerationSeconds": 500}]
ov("tolerations-example-none-on-object", TOL, {"type": "tolerations", "operation": "replace", "tolerations": TOLS}, pod(containers=[C()]))
ov("tolerations-example-empty-on-object", TOL, {"type": "tolerations", "operation": "replace", "tolerations": TOLS}, pod(containers=[C()], tolerations=[]))
ov("tolerations-example-matching", TOL, {"type": "tolerations", "operation": "replace", "tolerations": TOLS},
   pod(containers=[C()], tolerations=[{"key": "node.kubernetes.io/no-xxx", "operator": "Exists"}, {"key": "other", "operator": "Exists"}]))
ov("tolerations-remove-equal-and-exists", TOL + " (operation remove)",
   {"type": "tolerations", "operation": "remove", "tolerations": [{"key": "a", "operator": "Equal", "value": "x"}, {"key": "b", "operator": "Exists"}]},
   pod(containers=[C()], tolerations=[{"key": "b", "operator": "Exists"}, {"key": "a", "value": "x"}, {"key": "a", "value": "y"}]))
ov("tolerations-remove-none-on-object-empty-operation", TOL + " (operation remove)",
   {"type": "tolerations", "operation": "remove", "tolerations": TOLS}, pod(containers=[C()]))
ov("tolerations-object-struct-ranges-over-fields", TOL,
   {"type": "tolerations", "operation": "replace", "tolerations": [{"key": "a", "operator": "Exists"}]},
   pod(containers=[C()], tolerations={"x": {"key": "a"}, "y": {"key": "b"}}))
ov("tolerations-add-one", TOL + " (operation add)",
   {"type": "tolerations", "operation": "add", "tolerations": [{"key": "a", "operator": "Equal", "value": "", "effect": "NoSchedule", "tolerationSeconds": 0, "junk": 1}]},
   pod(containers=[C()], tolerations=[{"key": "z"}]))
ov("tolerations-add-two-refused", TOL + " (operation add)",
   {"type": "tolerations", "operation": "add", "tolerations": TOLS}, pod(containers=[C()], tolerations=[{"key": "z"}]), refused=F + ".tolerations")
ov("tolerations-object-toleration-without-key-fails", TOL,
   {"type": "tolerations", "operation": "replace", "tolerations": [{"key": "a", "operator": "Exists"}]},
   pod(containers=[C()], tolerations=[{"operator": "Exists"}]))
ov("tolerations-operator-missing-empty-operation", TOL,
   {"type": "tolerations", "operation": "replace", "tolerations": [{"key": "a"}]},
   pod(containers=[C()], tolerations=[{"key": "a", "operator": "Exists"}]))

# --- affinity
A1 = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"preference": {"matchExpressions": [{"key": "prefer", "operator": "In", "values": ["zzc"]}]}, "weight": 2}],
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "required", "operator": "In", "values": ["zzc"]}]}]}}}
TERM = {"labelSelector": {"matchExpressions": [{"key": "test_deployment", "operator": "In", "values": ["221019111032552325"]},
        {"key": "test_service", "operator": "In", "values": ["szdevops-yushan-test-sg"]}]}, "topologyKey": "kubernetes.io/hostname"}
A2 = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"preference": {"matchFields": [{"key": "test", "operator": "In", "values": ["abcd"]}]}, "weight": 100}],
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "test", "operator": "In", "values": ["abc"]}]}]}},
      "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"podAffinityTerm": TERM, "weight": 100}]},
      "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"podAffinityTerm": TERM, "weight": 100}]}}
ov("affinity-example1-no-affinity", AFF + " rule 1", {"type": "affinity", "operation": "add", "affinity": A1}, pod(containers=[C()]))
ov("affinity-example1-existing-node-affinity", AFF + " rule 1", {"type": "affinity", "operation": "add", "affinity": A1},
   pod(containers=[C()], affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {}}],
       "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": []}]}}}))
ov("affinity-example1-empty-lists", AFF + " rule 1", {"type": "affinity", "operation": "add", "affinity": A1},
   pod(containers=[C()], affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [],
       "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}))
ov("affinity-example2-empty-affinity", AFF + " rule 2", {"type": "affinity", "operation": "add", "affinity": A2}, pod(containers=[C()], affinity={}))
ov("affinity-example2-all-parts-present", AFF + " rule 2", {"type": "affinity", "operation": "add", "affinity": A2},
   pod(containers=[C()], affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {}}]},
       "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {"topologyKey": "z"}}]},
       "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {"topologyKey": "z"}}]}}))
ov("affinity-pod-preferred-reads-node-preferred", AFF + " rule 2",
   {"type": "affinity", "operation": "add", "affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {"topologyKey": "k"}}]}}},
   pod(containers=[C()], affinity={"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "podAffinityTerm": {"topologyKey": "z"}}]}}))
ov("affinity-pod-preferred-two-terms", AFF + " rule 2",
   {"type": "affinity", "operation": "add", "affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {"topologyKey": "k"}}, {"weight": 2, "podAffinityTerm": {"topologyKey": "j"}}]}}},
   pod(containers=[C()], affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {}}]},
       "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "podAffinityTerm": {"topologyKey": "z"}}]}}))
ov("affinity-anti-two-different-terms-conflict", AFF + " rule 2",
   {"type": "affinity", "operation": "add", "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "a"}, {"topologyKey": "b"}]}}},
   pod(containers=[C()], affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "z"}]}}))
ov("affinity-anti-one-term", AFF + " rule 2",
   {"type": "affinity", "operation": "add", "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "a", "namespaces": []}]}}},
   pod(containers=[C()], affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "z"}]}}))
ov("affinity-remove", AFF + " (operation remove)",
   {"type": "affinity", "operation": "remove", "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}]}]}},
    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "x"}]}}},
   pod(containers=[C()], affinity={"nodeAffinity": {}, "podAffinity": {}}))
ov("affinity-remove-no-affinity", AFF + " (operation remove)",
   {"type": "affinity", "operation": "remove", "affinity": {"nodeAffinity": A1["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] and {"requiredDuringSchedulingIgnoredDuringExecution": A1["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]}}},
   pod(containers=[C()]))
ov("affinity-replace-both-lists-refused", AFF + " rule 2 (operation replace)",
   {"type": "affinity", "operation": "replace", "affinity": A2}, pod(containers=[C()], affinity={}), refused=F + ".affinity.nodeAffinity")
ov("affinity-replace", AFF + " rule 2 (operation replace)",
   {"type": "affinity", "operation": "replace", "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": A2["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]},
    "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [TERM]}, "podAntiAffinity": A2["podAntiAffinity"]}},
   pod(containers=[C()], affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}, "podAffinity": {}}))
ov("affinity-replace-missing-part", AFF + " (operation replace)",
   {"type": "affinity", "operation": "replace", "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "x", "labelSelector": {}}]}}},
   pod(containers=[C()], affinity={}))
ov("affinity-without-terms-writes-nothing", AFF,
   {"type": "affinity", "operation": "add", "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{}]}}}},
   pod(containers=[C()]))
ov("affinity-replace-both-lists-unusable-writes-nothing", AFF + " (operation replace)",
   {"type": "affinity", "operation": "replace", "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{}]},
    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {}}]}}}, pod(containers=[C()], affinity={}))
ov("affinity-add-two-node-terms-refused", AFF + " rule 1",
   {"type": "affinity", "operation": "add", "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
       {"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"matchExpressions": [{"key": "b", "operator": "Exists"}]}]}}}},
   pod(containers=[C()]), refused=F + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms")

# --- validate
RP = lambda n: {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replica": n}}
va("validate-lt-processed-hit", "Test_baseInterrupter_renderAndFormat/validatePolicy",
   {"affectMode": "reject", "cond": "Lt", "dataRef": {"from": "current", "path": "/spec/replica"}, "message": "no deletion",
    "value": {"integer": 100}, "valueProcess": {"operation": "*", "operationWith": "60%"}}, RP(59))
va("validate-lt-processed-miss", "Test_baseInterrupter_renderAndFormat/validatePolicy",
   {"affectMode": "reject", "cond": "Lt", "dataRef": {"from": "current", "path": "/spec/replica"}, "message": "no deletion",
    "value": {"integer": 100}, "valueProcess": {"operation": "*", "operationWith": "60%"}}, RP(60))
va("validate-gte-hit", "Test_policyInterrupterImpl_OnMutating/3 rule 0",
   {"message": "forbidden", "cond": "Gte", "dataRef": {"from": "current", "path": "/spec/replica"}, "value": {"integer": 1}}, RP(1))
va("validate-gte-data-missing", "Test_policyInterrupterImpl_OnMutating/3 rule 0",
   {"message": "forbidden", "cond": "Gte", "dataRef": {"from": "current", "path": "/spec/replica"}, "value": {"integer": 1}},
   {"kind": "Deployment", "metadata": {"name": "web"}, "spec": {}})
va("validate-http-equal-http", "Test_policyInterrupterImpl_OnMutating/3 rule 1",
   {"message": "forbidden", "cond": "Equal", "dataRef": {"from": "http", "path": "body.origin", "http": {"url": "https://xxx.com"}},
    "valueRef": {"from": "http", "path": "body.target", "http": {"url": "https://xxx.com"}}}, RP(1), http={"origin": "x", "target": "x"})
va("validate-http-equal-http-differ", "Test_policyInterrupterImpl_OnMutating/3 rule 1",
   {"message": "forbidden", "cond": "Equal", "dataRef": {"from": "http", "path": "body.origin", "http": {"url": "https://xxx.com"}},
    "valueRef": {"from": "http", "path": "body.target", "http": {"url": "https://xxx.com"}}}, RP(1), http={"origin": "x", "target": "y"})
va("validate-notin-images-hit", "Test_policyInterrupterImpl_OnMutating/3.0",
   {"message": "forbidden", "cond": "NotIn", "affectMode": "reject", "dataRef": {"from": "current", "path": "/spec/containers/0/image"},
    "value": {"stringSlice": ["fake-image", "fake-image-v2"]}}, pod(containers=[C()]), operation="CREATE")
va("validate-notin-images-miss", "Test_policyInterrupterImpl_OnMutating/3.0",
   {"message": "forbidden", "cond": "NotIn", "affectMode": "reject", "dataRef": {"from": "current", "path": "/spec/containers/0/image"},
    "value": {"stringSlice": ["fake-image", "fake-image-v2"]}}, pod(containers=[{"name": "app", "image": "fake-image"}]), operation="CREATE")
va("validate-allow-mode-hit-passes", "Test_convertGeneralCondition/1",
   {"affectMode": "allow", "cond": "Gte", "dataRef": {"from": "current", "path": "/spec/replica"}, "message": "no", "value": {"integer": 10}}, RP(12))
va("validate-allow-mode-miss-refuses-empty", "Test_convertGeneralCondition/1",
   {"affectMode": "allow", "cond": "Gte", "dataRef": {"from": "current", "path": "/spec/replica"}, "message": "no", "value": {"integer": 10}}, RP(5))
NS = lambda ann: {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "annotations": ann}}
va("validate-multi-exist", VMU + " rule 1", {"cond": "Exist", "message": "cannot delete this ns", "dataRef": {"from": "current", "path": "/metadata/annotations/no-delete"}}, NS({"no-delete": ""}))
va("validate-multi-exist-miss", VMU + " rule 1", {"cond": "Exist", "message": "cannot delete this ns", "dataRef": {"from": "current", "path": "/metadata/annotations/no-delete"}}, NS({}))
va("validate-multi-equal-string", VMU + " rule 2", {"cond": "Equal", "message": "cannot delete this ns", "dataRef": {"from": "current", "path": "/metadata/annotations/owned-by"}, "value": {"string": "test"}}, NS({"owned-by": "test"}))
va("validate-multi-http-path-misses-body", VMU + " rule 3", {"cond": "Equal", "message": "api reject deletion", "value": {"boolean": True},
    "dataRef": {"from": "http", "path": "data.result.reject", "http": {"url": "https://xxx.com", "method": "GET", "params": {"name": "{{metadata.name}}"}}}},
   NS({}), http={"data": {"result": {"reject": True}}})
va("validate-http-body-path-hit", VMU + " rule 3", {"cond": "Equal", "message": "api reject deletion", "value": {"boolean": True},
    "dataRef": {"from": "http", "path": "body.data.result.reject", "http": {"url": "https://xxx.com", "method": "GET"}}},
   NS({}), http={"data": {"result": {"reject": True}}})
va("validate-multi-k8s-gte-ref", VMU + " rule 4", {"cond": "Gte", "message": "k8s reject deletion", "valueRef": {"from": "current", "path": "/spec/refer/replica"},
    "dataRef": {"from": "k8s", "path": "/spec/replica", "k8s": {"apiVersion": "v1", "kind": "deployment", "namespace": "{{metadata.namespace}}", "name": "{{metadata.annotations.deployment-id}}"}}},
   # the keys the reference's name and namespace read are there: else kinitiras fetches nothing
   {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "namespace": "team-a", "annotations": {"deployment-id": "web"}},
    "spec": {"refer": {"replica": 3}}}, kube=RP(3))
va("validate-multi-k8s-gte-ref-missing", VMU + " rule 4", {"cond": "Gte", "message": "k8s reject deletion", "valueRef": {"from": "current", "path": "/spec/refer/replica"},
    "dataRef": {"from": "k8s", "path": "/spec/replica", "k8s": {"apiVersion": "v1", "kind": "deployment", "labelSelector": {}}}},
   {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}, kube=RP(3))
va("validate-multi-in-strings", VMU + " rule 5", {"cond": "In", "message": "cannot delete this ns", "value": {"stringSlice": ["test", "ecp", "oam", "leap"]},
    "dataRef": {"from": "current", "path": "/metadata/annotations/owned-by"}}, NS({"owned-by": "oam"}))
va("validate-multi-in-integers-never-match-strings", VMU + " rule 6", {"cond": "In", "message": "cannot delete this ns", "value": {"integerSlice": [12, 13, 15]},
    "dataRef": {"from": "current", "path": "/metadata/annotations/integer"}}, NS({"integer": "12"}))
va("validate-in-integers-match-numbers", VMU + " rule 6", {"cond": "In", "message": "cannot delete this ns", "value": {"integerSlice": [12, 13, 15]},
    "dataRef": {"from": "current", "path": "/spec/n"}}, {"kind": "Namespace", "metadata": {"name": "a"}, "spec": {"n": 13}})
va("validate-multi-in-floats-are-strings", VMU + " rule 7", {"cond": "In", "message": "cannot delete this ns", "value": {"floatSlice": ["1.2", "1.4", "1.54"]},
    "dataRef": {"from": "current", "path": "/metadata/annotations/float"}}, NS({"float": "1.4"}))
va("validate-multi-notin", VMU + " rule 8", {"cond": "NotIn", "message": "cannot delete this ns", "value": {"stringSlice": ["test", "leap", "ecp"]},
    "dataRef": {"from": "current", "path": "/metadata/annotations/owned-by"}}, NS({"owned-by": "oam"}))
va("validate-pab-refused", "examples/templates/validate-pab.yaml", None, pod(containers=[C()]), type="pab", refused=V + ".type")
va("validate-mismatched-types-fail", "Test_convertCond", {"cond": "Equal", "message": "m", "value": {"integer": 1},
    "dataRef": {"from": "current", "path": "/metadata/annotations/n"}}, NS({"n": "1"}))
va("validate-null-equals-string", "Test_convertCond", {"cond": "NotEqual", "message": "m", "value": {"string": "x"},
    "dataRef": {"from": "current", "path": "/spec/x"}}, {"kind": "Namespace", "metadata": {"name": "a"}, "spec": {"x": None}})
va("validate-string-order", "Test_convertCond", {"cond": "Gt", "message": "m", "value": {"string": "b"},
    "dataRef": {"from": "current", "path": "/metadata/name"}}, NS({}))
va("validate-float-value", "Test_convertCond", {"cond": "Lte", "message": "m", "value": {"float": "2.5"},
    "dataRef": {"from": "current", "path": "/spec/replica"}}, RP(2))
va("validate-old-on-delete-is-null", "TestValidateManagerImpl_ApplyValidatePolicies", {"cond": "NotExist", "message": "no old",
    "dataRef": {"from": "old", "path": "/metadata/name"}}, NS({}), oldObject=NS({}))
va("validate-old-on-update", "TestValidateManagerImpl_ApplyValidatePolicies", {"cond": "NotExist", "message": "no old",
    "dataRef": {"from": "old", "path": "/metadata/name"}}, NS({}), operation="UPDATE", oldObject=NS({}))
va("validate-ref-processed-divide", "Test_intStr2FloatPtr/float", {"cond": "Gt", "message": "too many", "valueRef": {"from": "current", "path": "/spec/max"},
    "valueProcess": {"operation": "/", "operationWith": "1.2"}, "dataRef": {"from": "current", "path": "/spec/replica"}},
   {"kind": "Deployment", "metadata": {"name": "w"}, "spec": {"replica": 9, "max": 10}})
va("validate-ref-processed-int", "Test_intStr2FloatPtr/int", {"cond": "Gt", "message": "too many", "valueRef": {"from": "current", "path": "/spec/max"},
    "valueProcess": {"operation": "+", "operationWith": 10}, "dataRef": {"from": "current", "path": "/spec/replica"}},
   {"kind": "Deployment", "metadata": {"name": "w"}, "spec": {"replica": 21, "max": 10}})
va("validate-ref-divide-by-zero-fails", "Test_intStr2FloatPtr/percent", {"cond": "Gt", "message": "m", "valueRef": {"from": "current", "path": "/spec/max"},
    "valueProcess": {"operation": "/", "operationWith": "0%"}, "dataRef": {"from": "current", "path": "/spec/replica"}},
   {"kind": "Deployment", "metadata": {"name": "w"}, "spec": {"replica": 21, "max": 10}})
va("validate-ref-string-repeated", "Test_intStr2FloatPtr/int", {"cond": "Equal", "message": "doubled", "valueRef": {"from": "current", "path": "/spec/word"},
    "valueProcess": {"operation": "*", "operationWith": "200%"}, "dataRef": {"from": "current", "path": "/spec/pair"}},
   {"kind": "Deployment", "metadata": {"name": "w"}, "spec": {"word": "ab", "pair": "abab"}})
va("validate-constant-string-times-float-fails", "Test_intStr2FloatPtr/percent", {"cond": "Equal", "message": "m", "value": {"string": "ab"},
    "valueProcess": {"operation": "*", "operationWith": "50%"}, "dataRef": {"from": "current", "path": "/spec/pair"}},
   {"kind": "Deployment", "metadata": {"name": "w"}, "spec": {"pair": "abab"}})
va("validate-ref-value-missing-passes", "Test_convertGeneralCondition/1", {"cond": "Gt", "message": "m", "valueRef": {"from": "current", "path": "/spec/max"},
    "dataRef": {"from": "current", "path": "/spec/replica"}}, {"kind": "Deployment", "metadata": {"name": "w"}, "spec": {"replica": 21}})
va("validate-constant-divide-by-zero-data-missing", "Test_intStr2FloatPtr/int", {"cond": "Lt", "message": "m", "value": {"integer": 11},
    "valueProcess": {"operation": "/", "operationWith": 0}, "dataRef": {"from": "current", "path": "/spec/replica"}}, NS({}))
va("validate-constant-divide-by-zero-fails", "Test_intStr2FloatPtr/int", {"cond": "Lt", "message": "m", "value": {"integer": 11},
    "valueProcess": {"operation": "/", "operationWith": 0}, "dataRef": {"from": "current", "path": "/spec/replica"}}, RP(3))
va("validate-in-with-value-ref-refused", "Test_convertCond", {"cond": "In", "message": "m", "valueRef": {"from": "current", "path": "/spec/max"},
    "dataRef": {"from": "current", "path": "/spec/replica"}}, RP(1), refused=V + ".condition.value")
va("validate-regex-refused", "Test_convertCond", {"cond": "Regex", "message": "m", "value": {"string": "a"},
    "dataRef": {"from": "current", "path": "/metadata/name"}}, NS({}), refused=V + ".condition.cond")
va("validate-no-condition-passes", "TestValidateManagerImpl_ApplyValidatePolicies", None, NS({}),
   note="not run by the oracle: kinitiras trims the blank rendered CUE to nothing and skips the rule")

