// The oracle of Remold's template cases: renders kinitiras templates with kinitiras's own code and evaluates them
// with cuelang.org/go v0.4.3 as kinitiras does; reads the cases (JSON) on stdin, writes each result by id. A case with
// a renderedCue (Remold's) has that text checked and run instead of kinitiras's rendering (README.md).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"

	policyv1alpha1 "github.com/k-cloud-labs/pkg/apis/policy/v1alpha1"
	"github.com/k-cloud-labs/pkg/utils/interrupter/model"
	"github.com/k-cloud-labs/pkg/utils/templatemanager"
	"github.com/k-cloud-labs/pkg/utils/templatemanager/templates"
)

type tcase struct {
	ID        string          `json:"id"`
	Mode      string          `json:"mode"`
	Template  json.RawMessage `json:"template"`
	Object    any             `json:"object"`
	OldObject any             `json:"oldObject"`
	Extra     map[string]any  `json:"extraParams"`
	// RenderedCue, when set, is run instead of kinitiras's rendering of the template (which still decides affectMode).
	RenderedCue *string `json:"renderedCue"`
}

type op struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

func main() {
	var cases []tcase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	otm, err := templatemanager.NewOverrideTemplateManager(&templatemanager.TemplateSource{Content: templates.OverrideTemplate, TemplateName: "BaseTemplate"})
	if err != nil {
		panic(err)
	}
	vtm, err := templatemanager.NewValidateTemplateManager(&templatemanager.TemplateSource{Content: templates.ValidateTemplate, TemplateName: "BaseTemplate"})
	if err != nil {
		panic(err)
	}
	cm := templatemanager.NewCueManager()
	out := map[string]any{}
	for _, c := range cases {
		out[c.ID] = run(c, otm, vtm, cm)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
}

func run(c tcase, otm, vtm templatemanager.TemplateManager, cm templatemanager.CueManager) (res map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			res = map[string]any{"renderError": fmt.Sprint(r)}
		}
	}()
	var rendered []byte
	var err error
	var allow bool
	if c.Mode == "override" {
		var t policyv1alpha1.OverrideRuleTemplate
		if err := json.Unmarshal(c.Template, &t); err != nil {
			return map[string]any{"renderError": "decode: " + err.Error()}
		}
		rendered, err = otm.Render(model.OverrideRulesToOverridePolicyRenderData(&t))
	} else {
		var t policyv1alpha1.ValidateRuleTemplate
		if err := json.Unmarshal(c.Template, &t); err != nil {
			return map[string]any{"renderError": "decode: " + err.Error()}
		}
		allow = t.Condition != nil && t.Condition.AffectMode == policyv1alpha1.AffectModeAllow
		rendered, err = vtm.Render(model.ValidateRulesToValidatePolicyRenderData(&t))
	}
	if err != nil {
		return map[string]any{"renderError": err.Error()}
	}
	if c.RenderedCue != nil {
		if len(*c.RenderedCue) == 0 {
			return map[string]any{"skipped": true}
		}
		rendered = []byte(*c.RenderedCue)
		// kinitiras's policy webhook checks a stored renderedCue with its CueManager before it is stored
		if err := cm.Validate(rendered); err != nil {
			return map[string]any{"renderError": "validate: " + err.Error()}
		}
	}
	if _, err := cm.Format(rendered); err != nil {
		return map[string]any{"renderError": "format: " + err.Error()}
	}
	data := map[string]any{"object": c.Object, "oldObject": c.OldObject, "extraParams": c.Extra}
	if c.Extra == nil {
		data["extraParams"] = map[string]any{}
	}
	bi := build.NewContext().NewInstance("", nil)
	f, err := parser.ParseFile("-", rendered, parser.ParseComments)
	if err != nil {
		return map[string]any{"renderError": "parse: " + err.Error()}
	}
	_ = bi.AddSyntax(f)
	bt, _ := json.Marshal(data)
	pf, err := parser.ParseFile("parameter", fmt.Sprintf("data: %s", bt))
	if err != nil {
		return map[string]any{"evalError": err.Error()}
	}
	_ = bi.AddSyntax(pf)
	v := cuecontext.New().BuildInstance(bi)
	if err := v.Validate(); err != nil {
		return map[string]any{"evalError": err.Error()}
	}
	if c.Mode == "override" {
		r := v.LookupPath(cue.ParsePath("patches"))
		if !r.Exists() {
			return map[string]any{"evalError": "patches not found"}
		}
		var ops []op
		if err := r.Decode(&ops); err != nil {
			return map[string]any{"evalError": err.Error()}
		}
		if ops == nil {
			ops = []op{}
		}
		return map[string]any{"patches": ops}
	}
	r := v.LookupPath(cue.ParsePath("validate"))
	if !r.Exists() {
		return map[string]any{"evalError": "validate not found"}
	}
	result := struct {
		Reason string `json:"reason"`
		Valid  bool   `json:"valid"`
	}{Valid: true}
	if err := r.Decode(&result); err != nil {
		return map[string]any{"evalError": err.Error()}
	}
	if allow {
		result.Valid = !result.Valid
	}
	if result.Valid {
		return map[string]any{"refusal": nil}
	}
	return map[string]any{"refusal": result.Reason}
}
