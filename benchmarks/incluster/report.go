package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// run is what incluster.sh leaves in one run's folder: meta.json, load.json (load), webhooks.json (webhooks) and
// usage.json (usage).
type run struct {
	Meta struct {
		Contender string  `json:"contender"`
		Rate      float64 `json:"rate"`
		Round     int     `json:"round"`
		// Namespace of the contender's pods; AdmissionPods the name prefix of those that serve the webhooks.
		Namespace     string `json:"namespace"`
		AdmissionPods string `json:"admissionPods"`
	}
	Load     loadResult
	Webhooks webhookReport
	Usage    []podUsage
}

// report prints a Markdown table of every run under the folders given: report DIR...
func report(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: report RUNDIR...")
	}
	var runs []run
	for _, dir := range args {
		var r run
		for file, into := range map[string]any{"meta.json": &r.Meta, "load.json": &r.Load,
			"webhooks.json": &r.Webhooks, "usage.json": &r.Usage} {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				return err
			}
			if err := json.Unmarshal(data, into); err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(dir, file), err)
			}
		}
		runs = append(runs, r)
	}
	sort.SliceStable(runs, func(a, b int) bool { return runs[a].Meta.Rate < runs[b].Meta.Rate })
	// A rate of 0 is an idle window of the same length: its CPU is what the contender burns at rest, subtracted
	// from the loaded runs' of the same contender and round for the CPU per create net of idle.
	idle := map[string]float64{}
	for _, r := range runs {
		if r.Meta.Rate == 0 {
			idle[fmt.Sprintf("%s #%d", r.Meta.Contender, r.Meta.Round)], _ = r.cpu()
		}
	}
	fmt.Println("| contender | rate/s | creates ok / sent | mutated | errors: client / webhook calls / fail-open | " +
		"client p50 / p99 ms | " +
		"API server's create p50 / p99 ms | webhook calls | slowest webhook p50 / p99 ms (API server) | " +
		"webhook pods CPU s (ms per create; net of idle) | all its pods CPU s | its memory MiB (webhook pods) | API server CPU s |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range runs {
		fmt.Println(r.row(idle))
	}
	return nil
}

// cpu is the CPU seconds of the contender's webhook pods and of all its pods.
func (r run) cpu() (admission, all float64) {
	for _, p := range r.Usage {
		if p.Namespace == r.Meta.Namespace && r.Meta.Namespace != "" {
			all += p.CPUSeconds
			if strings.HasPrefix(p.Pod, r.Meta.AdmissionPods) {
				admission += p.CPUSeconds
			}
		}
	}
	return admission, all
}

func (r run) row(idle map[string]float64) string {
	name := fmt.Sprintf("%s #%d", r.Meta.Contender, r.Meta.Round)
	var calls int64
	var slowest latency
	for _, w := range r.Webhooks.Webhooks {
		calls += w.Count
		if w.P99Ms > slowest.P99Ms {
			slowest = w
		}
	}
	var creates latency
	if len(r.Webhooks.Creates) == 1 {
		creates = r.Webhooks.Creates[0]
	}
	// A failed webhook call the API server turns into an error reaches the client too: the columns are apart.
	var callErrors int64
	for _, n := range r.Webhooks.Rejections {
		callErrors += n
	}
	cpuAdmission, cpuAll := r.cpu()
	var memAll, memAdmission, cpuAPI float64
	for _, p := range r.Usage {
		switch {
		case p.Namespace == "kube-system" && strings.HasPrefix(p.Pod, "kube-apiserver-"):
			cpuAPI += p.CPUSeconds
		case p.Namespace == r.Meta.Namespace && r.Meta.Namespace != "":
			memAll += p.MemoryMiB
			if strings.HasPrefix(p.Pod, r.Meta.AdmissionPods) {
				memAdmission += p.MemoryMiB
			}
		}
	}
	controller, perCreate, all, memory := "—", "", "—", "—"
	if r.Meta.Namespace != "" {
		controller = num(cpuAdmission)
		if r.Load.Sent > 0 {
			perCreate = fmt.Sprintf(" (%s", num(1000*cpuAdmission/float64(r.Load.Sent)))
			if at, ok := idle[name]; ok {
				perCreate += "; " + num(1000*(cpuAdmission-at)/float64(r.Load.Sent))
			}
			perCreate += ")"
		}
		all = num(cpuAll)
		memory = fmt.Sprintf("%s (%s)", num(memAll), num(memAdmission))
	}
	webhook := "—"
	if calls > 0 {
		webhook = fmt.Sprintf("%s / %s (%s)", num(slowest.P50Ms), num(slowest.P99Ms), slowest.Name)
	}
	mutated := "—"
	if r.Meta.Namespace != "" {
		mutated = strconv.Itoa(r.Load.Mutated)
	}
	return fmt.Sprintf("| %s | %s | %d / %d | %s | %d / %d / %d | %s / %s | %s / %s | %d | %s | %s%s | %s | %s | %s |",
		name, num(r.Meta.Rate), r.Load.Created, r.Load.Sent, mutated, r.Load.Errors, callErrors, r.Webhooks.FailOpen,
		num(r.Load.P50Ms),
		num(r.Load.P99Ms), num(creates.P50Ms), num(creates.P99Ms), calls, webhook, controller, perCreate, all,
		memory, num(cpuAPI))
}

// num prints three significant digits at most, as the tables of BENCHMARKS.md do.
func num(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}
