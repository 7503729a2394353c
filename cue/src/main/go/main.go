// The CUE worker: kinitiras's evaluation (cuelang.org/go v0.4.3) for Remold's JVM, which starts it, bounds it and
// kills it (io.remold.cue). One JSON request per line on stdin, one answer per line on stdout; a policy's
// processing.http task is a question on stdout answered on stdin. The worker reads no environment, opens no file and
// no socket, and exits when it passes its memory bound.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"cuelang.org/go/cue/ast"
)

// request: "compile" parses a policy and keeps it under its id; "evaluate" evaluates a kept policy (the source
// comes along when the supervisor knows this worker has not seen it, else "missing" asks for it).
type request struct {
	Op         string      `json:"op"`
	ID         int64       `json:"id"`
	Source     *string     `json:"source,omitempty"`
	Parameters []parameter `json:"parameters,omitempty"`
	Output     string      `json:"output,omitempty"`
}

// answer: exactly one field is set; "http" is a question, answered by a reply before the final answer.
type answer struct {
	OK      bool            `json:"ok,omitempty"`
	Value   json.RawMessage `json:"value,omitempty"`
	Error   string          `json:"error,omitempty"`
	Missing bool            `json:"missing,omitempty"`
	HTTP    json.RawMessage `json:"http,omitempty"`
}

// reply is the supervisor's answer to an http question: the response body parsed, or why there is none.
type reply struct {
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
}

type worker struct {
	in        *bufio.Reader
	out       *bufio.Writer
	policies  *policies
	maxOutput int
}

func main() {
	memory := flag.Int64("memory", 256, "memory bound in MiB (data mappings); the worker dies beyond it")
	kept := flag.Int("policies", 256, "parsed policies kept; the least recently used beyond are parsed again")
	maxOutput := flag.Int("max-output", 4<<20, "largest answer in bytes")
	flag.Parse()
	runtime.GOMAXPROCS(1)
	debug.SetTraceback("none") // a fatal error's message only: the supervisor reads it from a bounded pipe
	bound(*memory << 20)
	w := &worker{bufio.NewReaderSize(os.Stdin, 1<<16), bufio.NewWriterSize(os.Stdout, 1<<16), newPolicies(*kept), *maxOutput}
	w.send(answer{OK: true}) // ready: the supervisor tells a worker that cannot start from a policy that kills one
	for {
		line, err := w.in.ReadBytes('\n')
		if err != nil {
			return // the supervisor closed the pipe
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil {
			w.send(answer{Error: "bad request: " + err.Error()})
			continue
		}
		w.send(w.serve(req))
	}
}

// bound sets the limits: the Go runtime collects harder from three quarters of the memory bound, and the kernel
// refuses data mappings beyond it, which the runtime does not survive (it exits "out of memory"); RLIMIT_AS cannot
// serve, as the runtime reserves over a gigabyte of address space at start. No descriptor beyond the three pipes can
// be opened (but the runtime's own poller, opened first), no file written, no core dumped.
func bound(bytes int64) {
	debug.SetMemoryLimit(bytes / 4 * 3)
	limit := func(resource int, value uint64) {
		if err := syscall.Setrlimit(resource, &syscall.Rlimit{Cur: value, Max: value}); err != nil {
			fmt.Fprintln(os.Stderr, "cue worker: setrlimit:", err)
			os.Exit(2)
		}
	}
	limit(syscall.RLIMIT_DATA, uint64(bytes))
	time.NewTimer(time.Hour).Stop() // the runtime's poller (one epoll descriptor) comes with the first timer
	limit(syscall.RLIMIT_NOFILE, 3)
	limit(syscall.RLIMIT_FSIZE, 0)
	limit(syscall.RLIMIT_CORE, 0)
}

func (w *worker) serve(req request) answer {
	if req.Source != nil {
		if err := w.policies.compile(req.ID, *req.Source); err != nil {
			return answer{Error: describe(err)}
		}
	}
	if req.Op == "compile" {
		return answer{OK: true}
	}
	if req.Op != "evaluate" {
		return answer{Error: "unknown op " + req.Op}
	}
	policy := w.policies.get(req.ID)
	if policy == nil {
		return answer{Missing: true}
	}
	value, err := evaluate(policy, req.Parameters, req.Output, w.ask)
	if err != nil {
		return answer{Error: describe(err)}
	}
	if len(value) > w.maxOutput {
		return answer{Error: fmt.Sprintf("the output (%d bytes) exceeds the bound of %d bytes", len(value), w.maxOutput)}
	}
	return answer{Value: value}
}

// ask sends a policy's http task to the supervisor and waits for its reply.
func (w *worker) ask(task json.RawMessage) (json.RawMessage, error) {
	w.send(answer{HTTP: task})
	line, err := w.in.ReadBytes('\n')
	if err != nil {
		os.Exit(0) // the supervisor is gone
	}
	var r reply
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, err
	}
	if r.Error != "" {
		return nil, errors.New(r.Error)
	}
	return r.Value, nil
}

func (w *worker) send(a answer) {
	line, err := json.Marshal(a)
	if err != nil {
		line, _ = json.Marshal(answer{Error: err.Error()})
	}
	w.out.Write(line)
	w.out.WriteByte('\n')
	if err := w.out.Flush(); err != nil {
		os.Exit(0) // the supervisor is gone
	}
}

// policies keeps parsed policies by id, the least recently used dropped beyond a bound.
type policies struct {
	files map[int64]*ast.File
	order []int64 // least recently used first
	max   int
}

func newPolicies(max int) *policies {
	return &policies{files: make(map[int64]*ast.File), max: max}
}

func (p *policies) compile(id int64, source string) error {
	file, err := parse(source)
	if err != nil {
		return err
	}
	if _, ok := p.files[id]; !ok && len(p.files) >= p.max {
		delete(p.files, p.order[0])
		p.order = p.order[1:]
	}
	p.files[id] = file
	p.touch(id)
	return nil
}

func (p *policies) get(id int64) *ast.File {
	file := p.files[id]
	if file != nil {
		p.touch(id)
	}
	return file
}

func (p *policies) touch(id int64) {
	for i, kept := range p.order {
		if kept == id {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
	p.order = append(p.order, id)
}
