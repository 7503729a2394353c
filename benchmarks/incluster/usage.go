package main

import (
	"encoding/json"
	"errors"
	"os"
	"sort"
)

// summary is the part of the kubelet's /stats/summary that usage reads.
type summary struct {
	Pods []struct {
		PodRef struct{ Name, Namespace string } `json:"podRef"`
		CPU    struct {
			UsageCoreNanoSeconds uint64 `json:"usageCoreNanoSeconds"`
		} `json:"cpu"`
		Memory struct {
			WorkingSetBytes uint64 `json:"workingSetBytes"`
		} `json:"memory"`
	} `json:"pods"`
}

type podUsage struct {
	Namespace  string  `json:"namespace"`
	Pod        string  `json:"pod"`
	CPUSeconds float64 `json:"cpuSeconds"`
	MemoryMiB  float64 `json:"memoryMiB"`
}

// usage prints, per pod of the given namespaces, the CPU it used between two summaries and its working set at the
// second: usage BEFORE AFTER NAMESPACE...
func usage(args []string) error {
	if len(args) < 3 {
		return errors.New("usage: usage BEFORE AFTER NAMESPACE...")
	}
	before, after, err := readPair(args, readSummary)
	if err != nil {
		return err
	}
	wanted := map[string]bool{}
	for _, ns := range args[2:] {
		wanted[ns] = true
	}
	start := map[string]uint64{}
	for _, p := range before.Pods {
		start[p.PodRef.Namespace+"/"+p.PodRef.Name] = p.CPU.UsageCoreNanoSeconds
	}
	out := []podUsage{}
	for _, p := range after.Pods {
		if !wanted[p.PodRef.Namespace] {
			continue
		}
		// A pod absent from the first summary started in between: all its CPU is in the interval.
		used := p.CPU.UsageCoreNanoSeconds - min(p.CPU.UsageCoreNanoSeconds, start[p.PodRef.Namespace+"/"+p.PodRef.Name])
		out = append(out, podUsage{Namespace: p.PodRef.Namespace, Pod: p.PodRef.Name, CPUSeconds: float64(used) / 1e9,
			MemoryMiB: float64(p.Memory.WorkingSetBytes) / (1 << 20)})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Namespace+out[a].Pod < out[b].Namespace+out[b].Pod })
	return json.NewEncoder(os.Stdout).Encode(out)
}

func readSummary(file string) (summary, error) {
	var s summary
	data, err := os.ReadFile(file)
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(data, &s)
}

// readPair reads the two snapshots (before, after) named by the first two arguments.
func readPair[T any](args []string, read func(string) (T, error)) (before, after T, err error) {
	if before, err = read(args[0]); err != nil {
		return before, after, err
	}
	after, err = read(args[1])
	return before, after, err
}
