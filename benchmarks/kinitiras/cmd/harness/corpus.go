package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// expectedMarker starts the part of a case file that the harness writes; everything above it is the input.
const expectedMarker = "# ---- expected: written by benchmarks/kinitiras/compare.sh --corpus from kinitiras's engine; do not edit ----\n"

// caseFile is a case file's input: a Case, with its policies inline or in sibling files, and what the Go test it
// comes from asserts, if anything.
type caseFile struct {
	Case
	Source      string      `json:"source,omitempty"`
	PolicyFiles []string    `json:"policyFiles,omitempty"`
	GoExpected  *goExpected `json:"goExpected,omitempty"`
}

// goExpected is a Go test's own assertion: the object after the override policies, or the validation's verdict,
// or an error (a substring of kinitiras's message).
type goExpected struct {
	Object map[string]any `json:"object,omitempty"`
	Valid  *bool          `json:"valid,omitempty"`
	Reason *string        `json:"reason,omitempty"`
	Error  string         `json:"error,omitempty"`
}

// fileResult is what the harness appends to a case file.
type fileResult struct {
	Result
	// GoAgrees tells whether kinitiras's engine, run here, gives what the Go test asserts (absent without goExpected).
	GoAgrees *bool `json:"goAgrees,omitempty"`
}

// regenerateCorpus rewrites the expected part of every case file (*case.yaml) under the given roots, and writes
// an example's eval goldens beside it (expected.yaml, or rejected.txt).
func regenerateCorpus(roots []string) error {
	var files []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, "case.yaml") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	disagreements := 0
	for _, f := range files {
		agrees, err := regenerateFile(f)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if !agrees {
			disagreements++
			fmt.Fprintf(os.Stderr, "harness: %s: kinitiras's engine does not give what its Go test asserts\n", f)
		}
	}
	fmt.Fprintf(os.Stderr, "harness: %d case files, %d disagreeing with their Go test\n", len(files), disagreements)
	return nil
}

func regenerateFile(path string) (bool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	input, _, _ := bytes.Cut(raw, []byte(expectedMarker))
	doc, err := yaml.YAMLToJSON(input)
	if err != nil {
		return false, err
	}
	var cf caseFile
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cf); err != nil {
		return false, err
	}
	for _, pf := range cf.PolicyFiles {
		policy, err := readYAML(filepath.Join(filepath.Dir(path), pf))
		if err != nil {
			return false, err
		}
		cf.Policies = append(cf.Policies, policy)
	}
	res := fileResult{Result: run(cf.Case)}
	res.ID = ""
	if cf.GoExpected != nil {
		agrees := cf.GoExpected.matches(res.Result)
		res.GoAgrees = &agrees
	}
	out, err := yaml.Marshal(map[string]any{"expected": res})
	if err != nil {
		return false, err
	}
	body := append(bytes.TrimRight(input, "\n"), '\n')
	if err := os.WriteFile(path, append(append(body, expectedMarker...), out...), 0o644); err != nil {
		return false, err
	}
	if len(cf.PolicyFiles) > 0 {
		if err := writeEvalInput(filepath.Dir(path), cf); err != nil {
			return false, err
		}
		if err := writeEvalGolden(filepath.Dir(path), res.Result); err != nil {
			return false, err
		}
	}
	return res.GoAgrees == nil || *res.GoAgrees, nil
}

// writeEvalInput writes an example's request as `remold eval` reads it: resource.yaml (the object, or the old
// object for DELETE), old.yaml (UPDATE), cluster.yaml (a List of the objects references read), http-N.json (the
// HTTP answers), and eval.args, the arguments naming them, one a line.
func writeEvalInput(dir string, cf caseFile) error {
	stale, err := filepath.Glob(filepath.Join(dir, "http-*.json"))
	if err != nil {
		return err
	}
	for _, f := range append(stale, filepath.Join(dir, "old.yaml"), filepath.Join(dir, "cluster.yaml")) {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	files := map[string]any{}
	args := []string{"--operation", string(cf.Operation)}
	for _, pf := range cf.PolicyFiles {
		args = append(args, "--rules", pf)
	}
	resource := cf.Object
	if cf.Operation == "DELETE" {
		resource = cf.OldObject
	} else if cf.OldObject != nil {
		files["old.yaml"] = cf.OldObject
		args = append(args, "--old", "old.yaml")
	}
	files["resource.yaml"] = resource
	args = append(args, "--resource", "resource.yaml")
	if len(cf.Cluster) > 0 {
		files["cluster.yaml"] = map[string]any{"apiVersion": "v1", "kind": "List", "items": cf.Cluster}
		args = append(args, "--cluster", "cluster.yaml")
	}
	urls := make([]string, 0, len(cf.HTTP))
	for u := range cf.HTTP {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for i, u := range urls {
		name := fmt.Sprintf("http-%d.json", i+1)
		if err := os.WriteFile(filepath.Join(dir, name), append([]byte(cf.HTTP[u]), '\n'), 0o644); err != nil {
			return err
		}
		args = append(args, "--http", u+"="+name)
	}
	for name, obj := range files {
		out, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "eval.args"), []byte(strings.Join(args, "\n")+"\n"), 0o644)
}

// writeEvalGolden writes what `remold eval` must give for an example: the policy's refusal (policy-refused.txt),
// or the request's refusal (rejected.txt), or the object after kinitiras's webhooks (expected.yaml); none of them
// for an allowed DELETE.
func writeEvalGolden(dir string, res Result) error {
	for _, stale := range []string{"expected.yaml", "rejected.txt", "policy-refused.txt"} {
		if err := os.Remove(filepath.Join(dir, stale)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	for _, p := range res.Policies {
		if !p.Admitted {
			return os.WriteFile(filepath.Join(dir, "policy-refused.txt"), []byte(p.Error+"\n"), 0o644)
		}
	}
	for _, a := range []*Answer{res.Mutate, res.Validate} {
		if !a.Allowed {
			return os.WriteFile(filepath.Join(dir, "rejected.txt"), []byte(a.Message+"\n"), 0o644)
		}
	}
	if res.Mutate.Object == nil {
		return nil
	}
	out, err := yaml.Marshal(res.Mutate.Object)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "expected.yaml"), out, 0o644)
}

func (g *goExpected) matches(res Result) bool {
	switch {
	case g.Error != "":
		return strings.Contains(res.Mutate.Message, g.Error) || strings.Contains(res.Validate.Message, g.Error) ||
			anyPolicyError(res, g.Error)
	case g.Object != nil:
		return res.Mutate.Allowed && reflect.DeepEqual(normalize(g.Object), normalize(res.Mutate.Object))
	case g.Valid != nil:
		if *g.Valid != res.Validate.Allowed {
			return false
		}
		return g.Reason == nil || *g.Reason == res.Validate.Message
	}
	return true
}

func anyPolicyError(res Result, text string) bool {
	for _, p := range res.Policies {
		if strings.Contains(p.Error, text) {
			return true
		}
	}
	return false
}

// normalize gives a JSON value one shape (numbers as float64), so YAML input and engine output compare.
func normalize(v map[string]any) any {
	var out any
	if err := json.Unmarshal(mustJSON(v), &out); err != nil {
		panic(err)
	}
	return out
}

func readYAML(path string) (map[string]any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, yaml.Unmarshal(raw, &out)
}
