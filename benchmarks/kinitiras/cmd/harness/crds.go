package main

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/yaml"
)

// policySchema is what the API server does with a policy around kinitiras's webhooks, from kinitiras's own CRDs:
// it prunes unknown fields, and refuses a policy its OpenAPI schema does not admit (an enum, a type).
type policySchema struct {
	structural *structuralschema.Structural
	validator  *validate.SchemaValidator
}

// crdsEnv names the folder of kinitiras's CRDs (pkg*/charts/_crds/bases); compare.sh sets it.
const crdsEnv = "KINITIRAS_CRDS"

var schemas map[string]policySchema

func loadSchemas() {
	dir := os.Getenv(crdsEnv)
	if dir == "" {
		fail(fmt.Errorf("%s is not set: the folder of kinitiras's CRDs", crdsEnv))
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		fail(fmt.Errorf("no CRDs in %s", dir))
	}
	schemas = map[string]policySchema{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			fail(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(raw, crd); err != nil {
			fail(fmt.Errorf("%s: %w", f, err))
		}
		for _, v := range crd.Spec.Versions {
			if v.Name != "v1alpha1" || v.Schema == nil {
				continue
			}
			internal := &apiextensions.JSONSchemaProps{}
			if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
				fail(err)
			}
			structural, err := structuralschema.NewStructural(internal)
			if err != nil {
				fail(fmt.Errorf("%s: %w", f, err))
			}
			validator, _, err := validation.NewSchemaValidator(&apiextensions.CustomResourceValidation{OpenAPIV3Schema: internal})
			if err != nil {
				fail(fmt.Errorf("%s: %w", f, err))
			}
			schemas[crd.Spec.Names.Kind] = policySchema{structural: structural, validator: validator}
		}
	}
}

// prune drops the fields the policy's CRD does not declare, as the API server does on decoding and after each
// mutating webhook.
func prune(policy map[string]any) {
	if s, ok := schemas[kindName(policy)]; ok {
		pruning.PruneWithOptions(policy, s.structural, true, pruning.PruneOptions{})
	}
}

// schemaErrors are the API server's objections to a policy under its CRD's schema, or "".
func schemaErrors(policy map[string]any) string {
	s, ok := schemas[kindName(policy)]
	if !ok {
		return ""
	}
	errs := validation.ValidateCustomResource(nil, policy, s.validator)
	if len(errs) == 0 {
		return ""
	}
	return errs.ToAggregate().Error()
}

func kindName(obj map[string]any) string {
	kind, _ := obj["kind"].(string)
	return kind
}
