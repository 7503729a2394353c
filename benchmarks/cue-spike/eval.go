// The CUE spike (issue 26): kinitiras's own evaluation (cuelang.org/go v0.4.3, as github.com/k-cloud-labs/pkg
// v0.4.5 requires) behind two transports, to choose how Remold runs CUE: a worker process (worker.go) or a
// WebAssembly reactor on Chicory (reactor.go, GOOS=wasip1). Both answer {"value": ...} or {"error": "..."}.
package main

import (
	"encoding/json"
	"fmt"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"
)

// request is one evaluation: the policy's CUE, the parameters unified with it (object, oldObject, ...) and the
// path whose value is the answer (patches, validate).
type request struct {
	Template   string `json:"template"`
	Parameters []struct {
		Name   string          `json:"name"`
		Object json.RawMessage `json:"object"`
	} `json:"parameters"`
	Output string `json:"output"`
}

// answer evaluates one JSON request the way kinitiras's CueDoAndReturn does (each parameter a file "name: JSON").
func answer(in []byte) []byte {
	v, err := evaluate(in)
	var out []byte
	if err != nil {
		out, _ = json.Marshal(map[string]string{"error": err.Error()})
	} else {
		out, _ = json.Marshal(map[string]json.RawMessage{"value": v})
	}
	return out
}

func evaluate(in []byte) ([]byte, error) {
	var req request
	if err := json.Unmarshal(in, &req); err != nil {
		return nil, err
	}
	bi := build.NewContext().NewInstance("", nil)
	fs, err := parser.ParseFile("-", req.Template, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if err = bi.AddSyntax(fs); err != nil {
		return nil, err
	}
	for _, p := range req.Parameters {
		f, err := parser.ParseFile("parameter", fmt.Sprintf("%s: %s", p.Name, string(p.Object)))
		if err != nil {
			return nil, err
		}
		if err = bi.AddSyntax(f); err != nil {
			return nil, err
		}
	}
	value := cuecontext.New().BuildInstance(bi)
	if err = value.Validate(); err != nil {
		return nil, err
	}
	r := value.LookupPath(cue.ParsePath(req.Output))
	if !r.Exists() {
		return nil, fmt.Errorf("output not found in cue")
	}
	return r.MarshalJSON()
}
