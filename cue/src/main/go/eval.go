package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
)

// parameter is one file unified with a policy, "name: JSON", as kinitiras's CueDoAndReturn writes it.
type parameter struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// httpTask answers a policy's processing.http task (its value as JSON) with the response body, parsed.
type httpTask func(request json.RawMessage) (json.RawMessage, error)

// errOutputNotFound keeps kinitiras's wording (utils/cue.OutputNotFoundErr).
var errOutputNotFound = fmt.Errorf("output not found in cue")

// parse reads a policy once; the file has no name, so CUE's positions in it read "line:col".
func parse(source string) (*ast.File, error) {
	return parser.ParseFile("", source, parser.ParseComments)
}

// evaluate is kinitiras's CueDoAndReturn over a parsed policy: the policy and each parameter as files of one
// instance, validated, the processing.http task answered and filled into processing.output, then the output path.
func evaluate(policy *ast.File, parameters []parameter, output string, http httpTask) (json.RawMessage, error) {
	instance := build.NewContext().NewInstance("", nil)
	if err := instance.AddSyntax(policy); err != nil {
		return nil, err
	}
	for _, p := range parameters {
		file, err := parser.ParseFile(p.Name, fmt.Sprintf("%s: %s", p.Name, string(p.Value)))
		if err != nil {
			return nil, err
		}
		if err = instance.AddSyntax(file); err != nil {
			return nil, err
		}
	}
	value := cuecontext.New().BuildInstance(instance)
	if err := value.Validate(); err != nil {
		return nil, err
	}
	value, err := process(value, http)
	if err != nil {
		return nil, err
	}
	result := value.LookupPath(cue.ParsePath(output))
	if !result.Exists() {
		return nil, errOutputNotFound
	}
	return result.MarshalJSON()
}

// process runs the policy's processing.http task, if any, as kinitiras's utils/cue.process does, but through the
// supervisor: the worker itself opens no socket.
func process(value cue.Value, http httpTask) (cue.Value, error) {
	task := value.LookupPath(cue.ParsePath("processing.http"))
	if !task.Exists() {
		return value, nil
	}
	request, err := task.MarshalJSON()
	if err != nil {
		return value, fmt.Errorf("fail to exec http task, %w", err)
	}
	body, err := http(request)
	if err != nil {
		return value, fmt.Errorf("fail to exec http task, %w", err)
	}
	response := make(map[string]interface{})
	if err := json.Unmarshal(body, &response); err != nil {
		return value, fmt.Errorf("fail to exec http task, %w", err)
	}
	return value.FillPath(cue.ParsePath("processing.output"), response), nil
}

// maxMessage bounds an error's text.
const maxMessage = 4096

// describe is CUE's message with its positions ("line:col" in the policy, "name:line:col" in a parameter).
func describe(err error) string {
	var described []string
	seen := make(map[string]bool)
	for _, e := range errors.Errors(err) {
		text := e.Error()
		if positions := errors.Positions(e); len(positions) > 0 {
			at := make([]string, len(positions))
			for i, pos := range positions {
				at[i] = pos.String()
			}
			text += " (at " + strings.Join(at, ", ") + ")"
		}
		if !seen[text] { // CUE reports some errors once per path that reaches them
			seen[text] = true
			described = append(described, text)
		}
	}
	text := strings.Join(described, "; ")
	if len(text) > maxMessage { // an error may quote a value of any size
		text = text[:maxMessage] + "..."
	}
	return text
}
