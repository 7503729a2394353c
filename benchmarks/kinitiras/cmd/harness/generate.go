package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
)

// gen makes seeded random cases: objects (Deployment, Pod, Service, Namespace), one to three policies of the three
// kinds in plaintext, cue and template forms, and an operation. The same seed always gives the same cases
// (math/rand's seeded source is stable across Go releases).
type gen struct {
	r *rand.Rand
	// origin adds the structured origin overriders, which only the newest pkg has.
	origin bool
}

var (
	namespaces = []string{"default", "team-a", "team-b"}
	names      = []string{"web", "api", "db"}
	labelKeys  = []string{"app", "tier", "owner"}
	labelVals  = []string{"web", "api", "blue", "green"}
	operations = []string{"CREATE", "UPDATE", "DELETE"}
)

func generate(seed int64, count int, origin bool) []Case {
	g := gen{r: rand.New(rand.NewSource(seed)), origin: origin}
	cases := make([]Case, 0, count)
	for i := 0; i < count; i++ {
		cases = append(cases, g.nextCase(fmt.Sprintf("gen-%d-%04d", seed, i)))
	}
	return cases
}

func (g gen) pick(s []string) string { return s[g.r.Intn(len(s))] }
func (g gen) chance(p float64) bool  { return g.r.Float64() < p }

func (g gen) nextCase(id string) Case {
	obj := g.object()
	c := Case{ID: id, Operation: admissionv1.Operation(g.pick(operations))}
	switch c.Operation {
	case "CREATE":
		c.Object = obj
	case "UPDATE":
		c.OldObject = g.older(obj)
		c.Object = obj
	case "DELETE":
		c.OldObject = obj
	}
	for n := 1 + g.r.Intn(3); n > 0; n-- {
		c.Policies = append(c.Policies, g.policy(obj, len(c.Policies)))
	}
	g.references(&c, obj)
	return c
}

// references gives the case what the generated k8s and http references read, most of the time: a ConfigMap
// named after the object in its namespace, and an HTTP answer for the object's name.
func (g gen) references(c *Case, obj map[string]any) {
	meta := obj["metadata"].(map[string]any)
	if ns, ok := meta["namespace"]; ok && g.chance(0.7) {
		c.Cluster = []map[string]any{{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("settings-%s", meta["name"]), "namespace": ns},
			"data":     map[string]any{"owner": g.pick(labelVals)}}}
	}
	if g.chance(0.8) {
		c.HTTP = map[string]json.RawMessage{
			fmt.Sprintf("https://refs.example/owner?name=%s", meta["name"]): mustJSON(map[string]any{"owner": g.pick(labelVals)})}
	}
}

// reference is a valueRef or dataRef: from the current or old object, another object, or an HTTP service.
func (g gen) reference(paths []string) map[string]any {
	switch g.r.Intn(4) {
	case 0:
		return map[string]any{"from": "k8s", "path": "/data/owner", "k8s": map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"namespace": "{{metadata.namespace}}", "name": "settings-{{metadata.name}}"}}
	case 1:
		return map[string]any{"from": "http", "path": "body.owner", "http": map[string]any{"url": "https://refs.example/owner",
			"method": "GET", "params": map[string]any{"name": "{{metadata.name}}"}}}
	case 2:
		return map[string]any{"from": "old", "path": g.pick(paths)}
	default:
		return map[string]any{"from": "current", "path": g.pick(paths)}
	}
}

func (g gen) object() map[string]any {
	kind := g.pick([]string{"Deployment", "Pod", "Service", "Namespace"})
	meta := map[string]any{"name": g.pick(names)}
	if kind != "Namespace" {
		meta["namespace"] = g.pick(namespaces)
	}
	objLabels := map[string]any{}
	if g.chance(0.9) {
		objLabels[webhookLabel] = "enabled"
	}
	for _, k := range labelKeys {
		if g.chance(0.5) {
			objLabels[k] = g.pick(labelVals)
		}
	}
	if len(objLabels) > 0 {
		meta["labels"] = objLabels
	}
	if g.chance(0.5) {
		meta["annotations"] = map[string]any{"note": g.pick(labelVals)}
	}
	obj := map[string]any{"metadata": meta, "kind": kind}
	switch kind {
	case "Deployment":
		obj["apiVersion"] = "apps/v1"
		obj["spec"] = map[string]any{
			"replicas": int64(1 + g.r.Intn(5)),
			"selector": map[string]any{"matchLabels": map[string]any{"app": "x"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "x"}},
				"spec":     g.podSpec(),
			},
		}
	case "Pod":
		obj["apiVersion"] = "v1"
		obj["spec"] = g.podSpec()
	case "Service":
		obj["apiVersion"] = "v1"
		obj["spec"] = map[string]any{
			"type":  g.pick([]string{"ClusterIP", "NodePort"}),
			"ports": []any{map[string]any{"port": int64(80 + g.r.Intn(3)), "protocol": "TCP"}},
		}
	case "Namespace":
		obj["apiVersion"] = "v1"
	}
	return obj
}

func (g gen) podSpec() map[string]any {
	c := map[string]any{"name": "main", "image": g.pick([]string{"nginx:1.25", "busybox", "registry.local/app:2"})}
	if g.chance(0.6) {
		c["resources"] = map[string]any{
			"requests": map[string]any{"cpu": g.pick([]string{"100m", "1", "250m"}), "memory": g.pick([]string{"64Mi", "1Gi"})},
			"limits":   map[string]any{"cpu": g.pick([]string{"200m", "2"}), "memory": g.pick([]string{"128Mi", "2Gi"})},
		}
	}
	spec := map[string]any{"containers": []any{c}, "restartPolicy": g.pick([]string{"Always", "OnFailure"})}
	if g.chance(0.3) {
		spec["tolerations"] = []any{map[string]any{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}}
	}
	return spec
}

// older is the object before an UPDATE: a label or annotation differs.
func (g gen) older(obj map[string]any) map[string]any {
	old := deepCopy(obj)
	meta := old["metadata"].(map[string]any)
	if g.chance(0.5) {
		meta["annotations"] = map[string]any{"note": "before"}
	} else {
		delete(meta, "annotations")
	}
	return old
}

func (g gen) policy(obj map[string]any, index int) map[string]any {
	kind := g.pick([]string{"ClusterOverridePolicy", "OverridePolicy", "ClusterValidatePolicy"})
	meta := map[string]any{
		"name":   fmt.Sprintf("p%d-%s", index, strings.ToLower(g.pick(labelVals))),
		"labels": map[string]any{webhookLabel: "enabled"},
	}
	if kind == "OverridePolicy" {
		ns, _ := obj["metadata"].(map[string]any)["namespace"].(string)
		if ns == "" || g.chance(0.3) {
			ns = g.pick(namespaces)
		}
		meta["namespace"] = ns
	}
	spec := map[string]any{}
	if g.chance(0.85) {
		spec["resourceSelectors"] = g.selectors(obj)
	}
	rules := []any{}
	for n := 1 + g.r.Intn(2); n > 0; n-- {
		rule := map[string]any{}
		if g.chance(0.7) {
			rule["targetOperations"] = g.targetOperations()
		}
		if kind == "ClusterValidatePolicy" {
			g.validateRule(rule)
		} else {
			rule["overriders"] = g.overriders(obj)
		}
		rules = append(rules, rule)
	}
	if kind == "ClusterValidatePolicy" {
		spec["validateRules"] = rules
	} else {
		spec["overrideRules"] = rules
	}
	return map[string]any{"apiVersion": "policy.kcloudlabs.io/v1alpha1", "kind": kind, "metadata": meta, "spec": spec}
}

func (g gen) selectors(obj map[string]any) []any {
	meta := obj["metadata"].(map[string]any)
	sel := map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"]}
	if g.chance(0.15) {
		sel["kind"] = g.pick([]string{"Deployment", "Pod", "Service", "Namespace", "ConfigMap"})
	}
	objLabels, _ := meta["labels"].(map[string]any)
	switch g.r.Intn(4) {
	case 0:
		sel["name"] = meta["name"]
		if g.chance(0.3) {
			sel["name"] = g.pick(names)
		}
	case 1:
		key, value := g.pick(labelKeys), g.pick(labelVals)
		if own := ownLabelKeys(objLabels); len(own) > 0 && g.chance(0.7) { // the object's own label, mostly
			key = g.pick(own)
			value = objLabels[key].(string)
		}
		sel["labelSelector"] = map[string]any{"matchLabels": map[string]any{key: value}}
	case 2:
		sel["labelSelector"] = map[string]any{"matchExpressions": []any{map[string]any{
			"key": g.pick(labelKeys), "operator": g.pick([]string{"In", "NotIn", "Exists", "DoesNotExist"}),
			"values": []any{g.pick(labelVals)}}}}
		if ops := sel["labelSelector"].(map[string]any)["matchExpressions"].([]any)[0].(map[string]any); strings.Contains(ops["operator"].(string), "xist") {
			delete(ops, "values")
		}
	}
	if ns, ok := meta["namespace"].(string); ok && g.chance(0.3) {
		if g.chance(0.7) {
			sel["namespace"] = ns
		} else {
			sel["namespace"] = g.pick(namespaces)
		}
	}
	selectors := []any{sel}
	if g.chance(0.2) {
		selectors = append(selectors, map[string]any{"apiVersion": "v1", "kind": "ConfigMap"})
	}
	return selectors
}

func (g gen) targetOperations() []any {
	ops := []any{}
	for _, op := range operations {
		if g.chance(0.5) {
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		ops = append(ops, g.pick(operations))
	}
	return ops
}

// ownLabelKeys are an object's label keys but the webhook's, sorted so the seeded draws stay repeatable.
func ownLabelKeys(objLabels map[string]any) []string {
	keys := make([]string, 0, len(objLabels))
	for k := range objLabels {
		if k != webhookLabel {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func hasLabel(obj map[string]any, key string) bool {
	objLabels, _ := obj["metadata"].(map[string]any)["labels"].(map[string]any)
	_, ok := objLabels[key]
	return ok
}

func (g gen) overriders(obj map[string]any) map[string]any {
	forms := 3
	if g.origin {
		forms = 4
	}
	switch g.r.Intn(forms) {
	case 0:
		return map[string]any{"plaintext": g.plaintext(obj)}
	case 1:
		return map[string]any{"cue": g.pick(overrideCue)}
	case 2:
		return map[string]any{"template": g.overrideTemplate()}
	default:
		return map[string]any{"origin": []any{g.originOverrider()}}
	}
}

func (g gen) originOverrider() map[string]any {
	typ := g.pick([]string{"annotations", "labels", "nodeSelector", "hostNetwork", "schedulerName",
		"resourceRequirements", "resourceOversell", "affinity", "tolerations", "topologySpreadConstraints"})
	o := map[string]any{"type": typ, "operation": g.pick([]string{"add", "replace", "remove"})}
	if g.chance(0.5) {
		o["replace"] = true
	}
	switch typ {
	case "annotations", "labels", "nodeSelector":
		o[typ] = map[string]any{g.pick(labelKeys): g.pick(labelVals)}
	case "hostNetwork":
		o["hostNetwork"] = g.chance(0.5)
	case "schedulerName":
		o["schedulerName"] = g.pick([]string{"default-scheduler", "batch"})
	case "resourceRequirements":
		o["resourceRequirements"] = map[string]any{"limits": map[string]any{"cpu": g.pick([]string{"1", "500m"})}}
	case "resourceOversell":
		o["resourcesOversell"] = map[string]any{"requests": map[string]any{"cpu": g.pick([]string{"0.5", "0.8"})}}
	case "affinity":
		o["affinity"] = map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
			"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{map[string]any{
				"key": "zone", "operator": "In", "values": []any{g.pick([]string{"a", "b"})}}}}}}}}
	case "tolerations":
		o["tolerations"] = []any{map[string]any{"key": g.pick([]string{"dedicated", "gpu"}), "operator": "Exists", "effect": "NoSchedule"}}
	case "topologySpreadConstraints":
		o["topologySpreadConstraints"] = []any{map[string]any{"maxSkew": int64(1 + g.r.Intn(2)), "topologyKey": "zone",
			"whenUnsatisfiable": "DoNotSchedule", "labelSelector": map[string]any{"matchLabels": map[string]any{"app": "x"}}}}
	}
	return o
}

func (g gen) plaintext(obj map[string]any) []any {
	var ops []any
	for n := 1 + g.r.Intn(2); n > 0; n-- {
		switch g.r.Intn(5) {
		case 0:
			ops = append(ops, map[string]any{"path": "/metadata/labels/" + g.pick(labelKeys), "op": "add", "value": g.pick(labelVals)})
		case 1:
			ops = append(ops, map[string]any{"path": "/metadata/annotations", "op": "add", "value": map[string]any{"set-by": "plaintext"}})
		case 2:
			// Mostly where the object has the annotation; otherwise kinitiras's patch fails, which is a case too.
			if _, ok := obj["metadata"].(map[string]any)["annotations"]; ok || g.chance(0.1) {
				op := map[string]any{"path": "/metadata/annotations/note", "op": g.pick([]string{"replace", "remove"})}
				if op["op"] == "replace" {
					op["value"] = "replaced"
				}
				ops = append(ops, op)
			}
		case 3:
			if key := g.pick(labelKeys); hasLabel(obj, key) || g.chance(0.1) {
				ops = append(ops, map[string]any{"path": "/metadata/labels/" + key, "op": "remove"})
			}
		default:
			if obj["kind"] == "Deployment" {
				ops = append(ops, map[string]any{"path": "/spec/replicas", "op": "replace", "value": int64(g.r.Intn(4))})
			} else {
				ops = append(ops, map[string]any{"path": "/metadata/labels/" + g.pick(labelKeys), "op": "replace", "value": g.pick(labelVals)})
			}
		}
	}
	if len(ops) == 0 {
		ops = append(ops, map[string]any{"path": "/metadata/labels/" + g.pick(labelKeys), "op": "add", "value": g.pick(labelVals)})
	}
	return ops
}

func (g gen) overrideTemplate() map[string]any {
	typ := g.pick([]string{"annotations", "labels", "annotations", "labels", "resources", "resourcesOversell", "tolerations", "affinity"})
	t := map[string]any{"type": typ}
	switch typ {
	case "annotations", "labels":
		t["operation"] = g.pick([]string{"add", "replace", "remove"})
		t["path"] = g.pick(append([]string{"note"}, labelKeys...))
		if t["operation"] != "remove" {
			if g.chance(0.4) {
				t["value"] = map[string]any{"string": g.pick(labelVals)}
			} else {
				t["valueRef"] = g.reference([]string{"/metadata/name", "/metadata/namespace", "/kind", "/metadata/labels/app"})
			}
		}
	case "resources":
		t["operation"] = g.pick([]string{"add", "replace"})
		t["resources"] = map[string]any{
			"requests": map[string]any{"cpu": g.pick([]string{"100m", "500m"}), "memory": g.pick([]string{"100Mi", "1Gi"})},
			"limits":   map[string]any{"cpu": g.pick([]string{"1", "2"})},
		}
	case "resourcesOversell":
		t["operation"] = g.pick([]string{"add", "replace"})
		t["resourcesOversell"] = map[string]any{"cpuFactor": g.pick([]string{"0.5", "0.8"}), "memoryFactor": g.pick([]string{"0.5", "1"})}
	case "tolerations":
		t["operation"] = g.pick([]string{"add", "replace", "remove"})
		t["tolerations"] = []any{map[string]any{"key": g.pick([]string{"dedicated", "gpu"}), "operator": "Equal",
			"value": g.pick(labelVals), "effect": "NoSchedule"}}
	case "affinity":
		t["operation"] = g.pick([]string{"add", "replace"})
		t["affinity"] = map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
			"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{map[string]any{
				"key": "zone", "operator": "In", "values": []any{g.pick([]string{"a", "b"})}}}}}}}}
	}
	return t
}

func (g gen) validateRule(rule map[string]any) {
	if g.chance(0.5) {
		rule["cue"] = g.pick(validateCue)
		return
	}
	cond := map[string]any{
		"cond":    g.pick([]string{"Equal", "NotEqual", "Exist", "NotExist", "In", "NotIn", "Equal", "NotEqual", "Exist", "NotExist", "In", "NotIn", "Regex"}),
		"message": "refused by " + g.pick(labelVals),
		"dataRef": g.reference([]string{"/metadata/name", "/metadata/labels/app", "/metadata/annotations/note", "/metadata/namespace"}),
	}
	switch cond["cond"] {
	case "Equal", "NotEqual":
		cond["value"] = map[string]any{"string": g.pick(append(names, labelVals...))}
	case "In", "NotIn":
		cond["value"] = map[string]any{"stringSlice": []any{g.pick(names), g.pick(labelVals)}}
	case "Regex":
		cond["value"] = map[string]any{"string": g.pick([]string{"^w.*", "^(api|db)$", "e"})}
	}
	if g.chance(0.25) {
		cond["affectMode"] = "allow"
	}
	rule["template"] = map[string]any{"type": "condition", "condition": cond}
}

// overrideCue are hand-written override policies in the style of kinitiras's examples.
var overrideCue = []string{
	`object: _ @tag(object)

patches: [
	if object.metadata.annotations == _|_ {
		{op: "add", path: "/metadata/annotations", value: {}}
	},
	{op: "add", path: "/metadata/annotations/added-by", value: "cue"},
]`,
	`object: _ @tag(object)

patches: [
	if object.metadata.labels != _|_ && object.metadata.labels.app != _|_ {
		{op: "replace", path: "/metadata/labels/app", value: object.metadata.labels.app + "-x"}
	},
]`,
	`object: _ @tag(object)

patches: [
	if object.kind == "Deployment" {
		{op: "replace", path: "/spec/replicas", value: object.spec.replicas * 2}
	},
	if object.kind == "Service" {
		{op: "add", path: "/metadata/labels/svc", value: "yes"}
	},
]`,
	`object: _ @tag(object)

patches: [{op: "add", path: "/metadata/labels/named", value: object.metadata.name}]`,
	`object: _ @tag(object)

patches: [{op: "remove", path: "/metadata/annotations/note"}]`,
}

// validateCue are hand-written validate policies in the style of kinitiras's examples.
var validateCue = []string{
	`object: _ @tag(object)

reject: object.metadata.labels != _|_ && object.metadata.labels.tier == "blue"

validate: {
	if reject {
		reason: "tier blue is refused"
	}
	valid: !reject
}`,
	`object: _ @tag(object)

validate: {
	valid: object.metadata.name != "db"
	if !valid {
		reason: "the name db is reserved"
	}
}`,
	`object: _ @tag(object)
oldObject: _ @tag(oldObject)

validate: {
	changed: oldObject.metadata.annotations != _|_ && object.metadata.annotations == _|_
	valid: !changed
	if changed {
		reason: "annotations may not be dropped"
	}
}`,
	`object: _ @tag(object)

validate: {
	valid: object.kind != "Service" || object.spec.type != "NodePort"
	reason: "NodePort services are refused"
}`,
}

func deepCopy(obj map[string]any) map[string]any {
	var out map[string]any
	if err := json.Unmarshal(mustJSON(obj), &out); err != nil {
		panic(err)
	}
	return out
}
