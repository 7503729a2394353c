// Command harness runs kinitiras's own admission webhook and engine over a stream of cases and prints what
// kinitiras answers, one JSON line per case (the formats are in kinitiras/src/test/resources/conformance/README.md).
//
// Each case is evaluated as the API server would drive kinitiras: every policy is first admitted through the
// webhook (the mutating call renders a template into renderedCue, the validating call refuses a bad policy), then
// the object goes through the mutating webhook and the mutated object through the validating webhook. Policies
// are listed in the case's order, then again in reverse: kinitiras lists them from an informer's map, so a result
// that changes with the order is flagged rather than pinned.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	jsonpatch "github.com/evanphx/json-patch"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kinwebhook "github.com/k-cloud-labs/kinitiras/pkg/webhook"
	"github.com/k-cloud-labs/pkg/utils/interrupter"
	"github.com/k-cloud-labs/pkg/utils/overridemanager"
	"github.com/k-cloud-labs/pkg/utils/validatemanager"
)

// Case is one input line.
type Case struct {
	ID        string                     `json:"id"`
	Policies  []map[string]any           `json:"policies"`
	Operation admissionv1.Operation      `json:"operation"`
	Namespace string                     `json:"namespace,omitempty"`
	Object    map[string]any             `json:"object,omitempty"`
	OldObject map[string]any             `json:"oldObject,omitempty"`
	Cluster   []map[string]any           `json:"cluster,omitempty"`
	HTTP      map[string]json.RawMessage `json:"http,omitempty"`
}

// Result is one output line.
type Result struct {
	ID             string          `json:"id,omitempty"`
	Policies       []PolicyResult  `json:"policies"`
	Selected       bool            `json:"selected"`
	Mutate         *Answer         `json:"mutate"`
	Validate       *Answer         `json:"validate"`
	OrderSensitive bool            `json:"orderSensitive"`
	Reversed       *ReversedAnswer `json:"reversed,omitempty"`
}

// ReversedAnswer is what kinitiras answers with the policies listed in reverse, kept only when it differs.
type ReversedAnswer struct {
	Mutate   *Answer `json:"mutate"`
	Validate *Answer `json:"validate"`
}

// PolicyResult tells how kinitiras admitted one policy of the case.
type PolicyResult struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Selected  bool   `json:"selected"`
	Admitted  bool   `json:"admitted"`
	Error     string `json:"error,omitempty"`
	// RenderedCue is what kinitiras's policy webhook rendered for each rule, in order ("" for a rule without a
	// template); absent when no rule has one.
	RenderedCue []string `json:"renderedCue,omitempty"`
}

// Answer is one webhook's answer.
type Answer struct {
	Allowed bool           `json:"allowed"`
	Code    int32          `json:"code,omitempty"`
	Message string         `json:"message,omitempty"`
	Object  map[string]any `json:"object,omitempty"`
}

// webhookLabel is the objectSelector of kinitiras's shipped webhook configurations (deploy/webhook-configuration.yaml).
const webhookLabel = "kinitiras.kcloudlabs.io/webhook"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		// As the webhook runs: klog's default output (stderr), the network as it is.
		loadSchemas()
		serve(os.Args[2:])
		return
	}
	quietKlog()
	http.DefaultTransport = &cannedTransport{}

	if len(os.Args) > 1 && os.Args[1] == "generate" {
		flags := flag.NewFlagSet("generate", flag.ExitOnError)
		seed := flags.Int64("seed", 1, "seed of the generator")
		count := flags.Int("cases", 300, "how many cases")
		origin := flags.Bool("origin", false, "add origin overriders (the newest pkg only)")
		_ = flags.Parse(os.Args[2:])
		out := json.NewEncoder(os.Stdout)
		out.SetEscapeHTML(false)
		for _, c := range generate(*seed, *count, *origin) {
			if err := out.Encode(c); err != nil {
				fail(err)
			}
		}
		return
	}
	loadSchemas()
	if len(os.Args) > 2 && os.Args[1] == "corpus" {
		if err := regenerateCorpus(os.Args[2:]); err != nil {
			fail(err)
		}
		return
	}
	answer(os.Stdin, os.Stdout)
}

// answer reads cases as JSON lines and writes kinitiras's result for each, one JSON line each.
func answer(r io.Reader, w io.Writer) {
	in := bufio.NewScanner(r)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(w)
	out.SetEscapeHTML(false)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var c Case
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			fail(fmt.Errorf("bad case line: %w", err))
		}
		if err := out.Encode(run(c)); err != nil {
			fail(err)
		}
	}
	if err := in.Err(); err != nil {
		fail(err)
	}
}

// quietKlog drops kinitiras's logs: its errors are in the answers, and stdout carries only results.
func quietKlog() {
	flags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(flags)
	for name, value := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
		if err := flags.Set(name, value); err != nil {
			panic(err)
		}
	}
	klog.SetOutput(io.Discard)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "harness: %v\n", err)
	os.Exit(2)
}

func run(c Case) Result {
	forward := evaluate(c, false)
	backward := evaluate(c, true)
	forward.OrderSensitive = !sameOutcome(forward.Mutate, backward.Mutate) || !sameOutcome(forward.Validate, backward.Validate)
	if forward.OrderSensitive {
		forward.Reversed = &ReversedAnswer{Mutate: backward.Mutate, Validate: backward.Validate}
	}
	return forward
}

func evaluate(c Case, reversed bool) Result {
	cannedBodies = c.HTTP
	store := newPolicyStore(reversed)
	world := newCluster(c.Cluster)
	mutating, validating := handlers(store, world)

	res := Result{ID: c.ID, Policies: make([]PolicyResult, 0, len(c.Policies))}
	for _, p := range c.Policies {
		// Each policy is admitted as if it were the first, so one case's policies do not act on each other.
		admitMutating, admitValidating := handlers(newPolicyStore(reversed), world)
		res.Policies = append(res.Policies, admitPolicy(store, admitMutating, admitValidating, p))
	}

	obj, old := c.Object, c.OldObject
	subject := obj
	if c.Operation == admissionv1.Delete {
		subject = old
	}
	res.Selected = hasWebhookLabel(obj) || hasWebhookLabel(old)
	ns := c.Namespace
	if ns == "" && subject != nil {
		ns = (&unstructured.Unstructured{Object: subject}).GetNamespace()
	}

	res.Mutate = call(mutating, request(c.Operation, ns, obj, old))
	validated := obj
	if res.Mutate.Allowed && res.Mutate.Object != nil && c.Operation != admissionv1.Delete {
		validated = res.Mutate.Object
	}
	res.Validate = call(validating, request(c.Operation, ns, validated, old))
	res.Validate.Object = nil
	return res
}

// admitPolicy creates a policy as the API server would: pruned under kinitiras's CRD, through kinitiras's mutating
// webhook, checked against the CRD's schema, through its validating webhook; it is stored if admitted.
func admitPolicy(store policySource, mutating, validating admission.Handler, p map[string]any) PolicyResult {
	u := &unstructured.Unstructured{Object: p}
	pr := PolicyResult{Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName(), Selected: hasWebhookLabel(p)}
	p = deepCopy(p)
	prune(p)
	m := call(mutating, request(admissionv1.Create, u.GetNamespace(), p, nil))
	if !m.Allowed {
		pr.Error = m.Message
		return pr
	}
	admitted := p
	if m.Object != nil {
		admitted = m.Object
	}
	prune(admitted)
	if errs := schemaErrors(admitted); errs != "" {
		pr.Error = errs
		return pr
	}
	v := call(validating, request(admissionv1.Create, u.GetNamespace(), admitted, nil))
	if !v.Allowed {
		pr.Error = v.Message
		return pr
	}
	if err := store.add(admitted); err != nil {
		pr.Error = err.Error()
		return pr
	}
	pr.Admitted = true
	pr.RenderedCue = renderedCue(admitted)
	return pr
}

func renderedCue(policy map[string]any) []string {
	rules, _, _ := unstructured.NestedSlice(policy, "spec", "overrideRules")
	if vrules, found, _ := unstructured.NestedSlice(policy, "spec", "validateRules"); found {
		rules = vrules
	}
	var out []string
	rendered := false
	for _, r := range rules {
		rule, _ := r.(map[string]any)
		text, _, _ := unstructured.NestedString(rule, "renderedCue")
		if text == "" {
			text, _, _ = unstructured.NestedString(rule, "overriders", "renderedCue")
		}
		rendered = rendered || text != ""
		out = append(out, text)
	}
	if !rendered {
		return nil
	}
	return out
}

func handlers(store policySource, world *cluster) (admission.Handler, admission.Handler) {
	return handlersWith(newInterrupters(store), store, world)
}

// handlersWith builds kinitiras's mutating and validating handlers over the given policy interrupters.
func handlersWith(interrupters interrupter.PolicyInterrupterManager, store policySource, world *cluster) (admission.Handler, admission.Handler) {
	decoder, err := admission.NewDecoder(runtime.NewScheme())
	if err != nil {
		panic(err)
	}
	mutating := kinwebhook.NewMutatingAdmissionHandler(
		overridemanager.NewOverrideManager(world, store.copLister(), store.opLister()), interrupters)
	validating := kinwebhook.NewValidatingAdmissionHandler(
		validatemanager.NewValidateManager(world, store.cvpLister()), interrupters)
	for _, h := range []admission.Handler{mutating, validating} {
		if err := h.(admission.DecoderInjector).InjectDecoder(decoder); err != nil {
			panic(err)
		}
	}
	return mutating, validating
}

func request(op admissionv1.Operation, ns string, obj, old map[string]any) admission.Request {
	req := admissionv1.AdmissionRequest{UID: "harness", Operation: op, Namespace: ns}
	if obj != nil {
		req.Object = runtime.RawExtension{Raw: mustJSON(obj)}
	}
	if old != nil {
		req.OldObject = runtime.RawExtension{Raw: mustJSON(old)}
	}
	gvk := gvkOf(obj, old)
	req.Kind.Group, req.Kind.Version, req.Kind.Kind = gvk.Group, gvk.Version, gvk.Kind
	return admission.Request{AdmissionRequest: req}
}

// call runs one handler; an allowed answer carries the request's object with the answer's patch applied. The patch
// itself is left out: kinitiras computes it by diffing maps, so the order of its operations varies between runs.
func call(h admission.Handler, req admission.Request) (a *Answer) {
	defer func() {
		if r := recover(); r != nil {
			a = &Answer{Allowed: false, Code: 500, Message: fmt.Sprintf("panic: %v", r)}
		}
	}()
	resp := h.Handle(context.Background(), req)
	a = &Answer{Allowed: resp.Allowed}
	if resp.Result != nil {
		a.Code = resp.Result.Code
		a.Message = resp.Result.Message
		if a.Message == "" {
			a.Message = string(resp.Result.Reason)
		}
	}
	if !resp.Allowed || len(req.Object.Raw) == 0 {
		return a
	}
	if len(resp.Patches) == 0 {
		_ = json.Unmarshal(req.Object.Raw, &a.Object)
		return a
	}
	raw, err := json.Marshal(resp.Patches)
	if err != nil {
		panic(err)
	}
	patch, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		panic(err)
	}
	patched, err := patch.Apply(req.Object.Raw)
	if err != nil {
		panic(err)
	}
	_ = json.Unmarshal(patched, &a.Object)
	return a
}

func hasWebhookLabel(obj map[string]any) bool {
	if obj == nil {
		return false
	}
	return labels.Set((&unstructured.Unstructured{Object: obj}).GetLabels()).Get(webhookLabel) == "enabled"
}

func gvkOf(objs ...map[string]any) schema.GroupVersionKind {
	for _, o := range objs {
		if o != nil {
			return (&unstructured.Unstructured{Object: o}).GroupVersionKind()
		}
	}
	return schema.GroupVersionKind{}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func sameOutcome(a, b *Answer) bool {
	return string(mustJSON(a)) == string(mustJSON(b))
}
