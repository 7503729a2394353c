package main

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	policyv1alpha1 "github.com/k-cloud-labs/pkg/apis/policy/v1alpha1"
	listers "github.com/k-cloud-labs/pkg/client/listers/policy/v1alpha1"
	"github.com/k-cloud-labs/pkg/utils/interrupter"
	"github.com/k-cloud-labs/pkg/utils/templatemanager"
	"github.com/k-cloud-labs/pkg/utils/templatemanager/templates"
	faketokens "github.com/k-cloud-labs/pkg/utils/tokenmanager/fake"
)

// policySource is what kinitiras's handlers list policies from, and where an admitted policy goes: the ordered
// policyStore of the case runs, or the informers' indexers behind kinitiras's own listers (serve).
type policySource interface {
	add(policy map[string]any) error
	opLister() listers.OverridePolicyLister
	copLister() listers.ClusterOverridePolicyLister
	cvpLister() listers.ClusterValidatePolicyLister
}

// policyStore plays the informers' caches of admitted policies. It lists them in the order they were admitted,
// or in reverse, so the harness can tell whether kinitiras's answer depends on that order.
type policyStore struct {
	reversed bool
	cops     []*policyv1alpha1.ClusterOverridePolicy
	ops      []*policyv1alpha1.OverridePolicy
	cvps     []*policyv1alpha1.ClusterValidatePolicy
}

func newPolicyStore(reversed bool) *policyStore { return &policyStore{reversed: reversed} }

func (s *policyStore) add(obj map[string]any) error {
	conv := runtime.DefaultUnstructuredConverter
	switch kind, _ := obj["kind"].(string); kind {
	case "ClusterOverridePolicy":
		p := &policyv1alpha1.ClusterOverridePolicy{}
		if err := conv.FromUnstructured(obj, p); err != nil {
			return err
		}
		s.cops = append(s.cops, p)
	case "OverridePolicy":
		p := &policyv1alpha1.OverridePolicy{}
		if err := conv.FromUnstructured(obj, p); err != nil {
			return err
		}
		s.ops = append(s.ops, p)
	case "ClusterValidatePolicy":
		p := &policyv1alpha1.ClusterValidatePolicy{}
		if err := conv.FromUnstructured(obj, p); err != nil {
			return err
		}
		s.cvps = append(s.cvps, p)
	default:
		return fmt.Errorf("harness: not a kinitiras policy kind: %q", kind)
	}
	return nil
}

func ordered[T any](s *policyStore, items []T) []T {
	out := slices.Clone(items)
	if s.reversed {
		slices.Reverse(out)
	}
	return out
}

func (s *policyStore) copLister() listers.ClusterOverridePolicyLister {
	return clusterLister[*policyv1alpha1.ClusterOverridePolicy]{s, func() []*policyv1alpha1.ClusterOverridePolicy { return s.cops }, "clusteroverridepolicies"}
}

func (s *policyStore) cvpLister() listers.ClusterValidatePolicyLister {
	return clusterLister[*policyv1alpha1.ClusterValidatePolicy]{s, func() []*policyv1alpha1.ClusterValidatePolicy { return s.cvps }, "clustervalidatepolicies"}
}

func (s *policyStore) opLister() listers.OverridePolicyLister { return opLister{s, ""} }

// clusterLister lists the store's cluster-scoped policies of one kind.
type clusterLister[T metav1.Object] struct {
	s        *policyStore
	items    func() []T
	resource string
}

func (l clusterLister[T]) List(sel labels.Selector) ([]T, error) {
	return matching(ordered(l.s, l.items()), sel), nil
}

func (l clusterLister[T]) Get(name string) (T, error) {
	for _, p := range l.items() {
		if p.GetName() == name {
			return p, nil
		}
	}
	var none T
	return none, errors.NewNotFound(policyv1alpha1.SchemeGroupVersion.WithResource(l.resource).GroupResource(), name)
}

// opLister lists every namespace's OverridePolicies when namespace is empty, as kinitiras's informer lister does.
type opLister struct {
	s         *policyStore
	namespace string
}

func (l opLister) List(sel labels.Selector) ([]*policyv1alpha1.OverridePolicy, error) {
	all := matching(ordered(l.s, l.s.ops), sel)
	if l.namespace == "" {
		return all, nil
	}
	return slices.DeleteFunc(all, func(p *policyv1alpha1.OverridePolicy) bool { return p.Namespace != l.namespace }), nil
}

func (l opLister) OverridePolicies(namespace string) listers.OverridePolicyNamespaceLister {
	return opLister{l.s, namespace}
}

func (l opLister) Get(name string) (*policyv1alpha1.OverridePolicy, error) {
	for _, p := range l.s.ops {
		if p.Namespace == l.namespace && p.Name == name {
			return p, nil
		}
	}
	return nil, errors.NewNotFound(policyv1alpha1.SchemeGroupVersion.WithResource("overridepolicies").GroupResource(), name)
}

func matching[T metav1.Object](items []T, sel labels.Selector) []T {
	return slices.DeleteFunc(items, func(p T) bool { return !sel.Matches(labels.Set(p.GetLabels())) })
}

// newInterrupters wires kinitiras's policy interrupters as its webhook's setup does, with a fake token source.
func newInterrupters(s policySource) interrupter.PolicyInterrupterManager {
	otm, err := templatemanager.NewOverrideTemplateManager(&templatemanager.TemplateSource{
		Content: templates.OverrideTemplate, TemplateName: "BaseTemplate"})
	if err != nil {
		panic(err)
	}
	vtm, err := templatemanager.NewValidateTemplateManager(&templatemanager.TemplateSource{
		Content: templates.ValidateTemplate, TemplateName: "BaseTemplate"})
	if err != nil {
		panic(err)
	}
	base := interrupter.NewBaseInterrupter(otm, vtm, templatemanager.NewCueManager())
	tokens := faketokens.NewFakeTokenGenerator()
	op := interrupter.NewOverridePolicyInterrupter(base, tokens, nil, s.opLister())
	m := interrupter.NewPolicyInterrupterManager()
	m.AddInterrupter(kindOf("OverridePolicy"), op)
	m.AddInterrupter(kindOf("ClusterOverridePolicy"), interrupter.NewClusterOverridePolicyInterrupter(op, s.copLister()))
	m.AddInterrupter(kindOf("ClusterValidatePolicy"), interrupter.NewClusterValidatePolicyInterrupter(base, tokens, nil, s.cvpLister()))
	return m
}

func kindOf(kind string) schema.GroupVersionKind {
	return policyv1alpha1.SchemeGroupVersion.WithKind(kind)
}
