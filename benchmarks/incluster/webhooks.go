package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Series of the API server's /metrics that webhooks reads: the latency of each webhook call as the API server
// measured it, its whole handling of the resource's creates (admission, webhooks and storage), and the calls that
// failed.
const (
	webhookDuration = "apiserver_admission_webhook_admission_duration_seconds"
	requestDuration = "apiserver_request_duration_seconds"
	webhookRejected = "apiserver_admission_webhook_rejection_count"
	webhookFailOpen = "apiserver_admission_webhook_fail_open_count"
)

type latency struct {
	Name  string  `json:"name"`
	Type  string  `json:"type"`
	Count int64   `json:"count"`
	P50Ms float64 `json:"p50Ms"`
	P99Ms float64 `json:"p99Ms"`
}

type webhookReport struct {
	Webhooks   []latency        `json:"webhooks"`
	Creates    []latency        `json:"creates"`
	Rejections map[string]int64 `json:"rejections"`
	FailOpen   int64            `json:"failOpen"`
}

// webhooks prints what happened between two scrapes: webhooks BEFORE AFTER RESOURCE.
func webhooks(args []string) error {
	if len(args) != 3 {
		return errors.New("usage: webhooks BEFORE AFTER RESOURCE")
	}
	report, err := diffScrapes(args[0], args[1], args[2])
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(report)
}

func diffScrapes(beforeFile, afterFile, resource string) (webhookReport, error) {
	before, after, err := readPair([]string{beforeFile, afterFile}, scrape)
	if err != nil {
		return webhookReport{}, err
	}
	delta := map[string]float64{}
	for key, value := range after {
		delta[key] = value - before[key]
	}
	report := webhookReport{Rejections: map[string]int64{}}
	report.Webhooks = histograms(delta, webhookDuration, func(l map[string]string) (string, string, bool) {
		return l["name"], l["type"], true
	})
	report.Creates = histograms(delta, requestDuration, func(l map[string]string) (string, string, bool) {
		return l["resource"], l["verb"], l["verb"] == "POST" && l["resource"] == resource && l["subresource"] == "" &&
			l["dry_run"] == ""
	})
	for key, value := range delta {
		name, labels := parseKey(key)
		switch {
		case value == 0:
		case name == webhookRejected:
			report.Rejections[labels["name"]+" "+labels["error_type"]+" "+labels["rejection_code"]] += int64(value)
		case name == webhookFailOpen:
			report.FailOpen += int64(value)
		}
	}
	return report, nil
}

// histograms groups a family's buckets by the key that group gives (summing the other labels) and reads each
// group's count and quantiles.
func histograms(delta map[string]float64, family string, group func(map[string]string) (string, string, bool)) []latency {
	type id struct{ name, kind string }
	buckets := map[id]map[float64]float64{}
	for key, value := range delta {
		name, labels := parseKey(key)
		if name != family+"_bucket" {
			continue
		}
		groupName, kind, keep := group(labels)
		if !keep {
			continue
		}
		le, err := strconv.ParseFloat(labels["le"], 64)
		if err != nil {
			continue
		}
		g := id{groupName, kind}
		if buckets[g] == nil {
			buckets[g] = map[float64]float64{}
		}
		buckets[g][le] += value
	}
	var out []latency
	for g, byLe := range buckets {
		count := byLe[math.Inf(1)]
		if count <= 0 {
			continue
		}
		out = append(out, latency{Name: g.name, Type: g.kind, Count: int64(count),
			P50Ms: 1000 * histogramQuantile(byLe, 0.5), P99Ms: 1000 * histogramQuantile(byLe, 0.99)})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name+out[a].Type < out[b].Name+out[b].Type })
	return out
}

// histogramQuantile interpolates linearly inside the bucket that holds the rank, as Prometheus does; a rank in the
// +Inf bucket answers the largest finite bound.
func histogramQuantile(cumulative map[float64]float64, q float64) float64 {
	bounds := make([]float64, 0, len(cumulative))
	for le := range cumulative {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	rank := q * cumulative[math.Inf(1)]
	lower, below := 0.0, 0.0
	for _, le := range bounds {
		count := cumulative[le]
		if count >= rank {
			if math.IsInf(le, 1) {
				return lower
			}
			if count == below {
				return le
			}
			return lower + (le-lower)*(rank-below)/(count-below)
		}
		lower, below = le, count
	}
	return lower
}

var sample = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)`)

// scrape reads the samples of the families above from a /metrics text file, keyed by name and labels.
func scrape(file string) (map[string]float64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	values := map[string]float64{}
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		if !strings.HasPrefix(line, "apiserver_admission_") && !strings.HasPrefix(line, requestDuration+"_bucket") {
			continue
		}
		m := sample.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		value, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", file, line, err)
		}
		values[m[1]+m[2]] = value
	}
	return values, scanner.Err()
}

var label = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

func parseKey(key string) (string, map[string]string) {
	name, rest, _ := strings.Cut(key, "{")
	labels := map[string]string{}
	for _, m := range label.FindAllStringSubmatch(rest, -1) {
		labels[m[1]] = m[2]
	}
	return name, labels
}
