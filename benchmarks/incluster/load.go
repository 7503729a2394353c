package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// loadResult is one rate's outcome as the client saw it. Latency runs from each create's scheduled start (open loop:
// a late send counts against the server, so a stalled API server cannot hide behind a slow client).
type loadResult struct {
	Kind      string         `json:"kind"`
	Rate      float64        `json:"rate"`
	Seconds   float64        `json:"seconds"`
	Sent      int            `json:"sent"`
	Created   int            `json:"created"`
	Errors    int            `json:"errors"`
	ErrorKind map[string]int `json:"errorKinds,omitempty"`
	// Mutated counts created objects whose returned body carries every expected mutation (-expect); with none
	// expected, every created object.
	Mutated   int     `json:"mutated"`
	P50Ms     float64 `json:"p50Ms"`
	P90Ms     float64 `json:"p90Ms"`
	P99Ms     float64 `json:"p99Ms"`
	MaxMs     float64 `json:"maxMs"`
	MaxLateMs float64 `json:"maxSendLateMs"`
}

func load(args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	server := fs.String("server", "", "API server URL")
	caFile := fs.String("ca", "", "PEM CA of the API server")
	certFile := fs.String("cert", "", "PEM client certificate")
	keyFile := fs.String("key", "", "PEM client key")
	namespace := fs.String("namespace", "", "namespace to create in")
	kind := fs.String("kind", "pod", "pod or configmap")
	node := fs.String("node", "", "spec.nodeName of the pods (a node with no kubelet: nothing runs them)")
	rate := fs.Float64("rate", 10, "creates per second; 0 sends nothing for -duration (an idle window, for the CPU at rest)")
	duration := fs.Duration("duration", 30*time.Second, "how long to send")
	timeout := fs.Duration("timeout", 30*time.Second, "per-request timeout")
	maxInFlight := fs.Int("max-in-flight", 2000, "creates outstanding at once; past it a create counts as an error")
	expect := fs.String("expect", "", "comma-separated substrings every created object's body must contain")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *server == "" || *namespace == "" || *rate < 0 {
		return errors.New("load: -server, -namespace and a -rate of 0 or more are required")
	}
	client, err := httpsClient(*caFile, *certFile, *keyFile, *timeout)
	if err != nil {
		return err
	}
	body, path, err := template(*kind, *node)
	if err != nil {
		return err
	}
	url := strings.TrimSuffix(*server, "/") + "/api/v1/namespaces/" + *namespace + "/" + path
	var expected []string
	if *expect != "" {
		expected = strings.Split(*expect, ",")
	}

	total := int(*rate * duration.Seconds())
	latencies := make([]time.Duration, total)
	outcomes := make([]string, total)
	mutated := make([]bool, total)
	slots := make(chan struct{}, *maxInFlight)
	var wg sync.WaitGroup
	var maxLate time.Duration
	interval := time.Duration(0)
	if total > 0 {
		interval = time.Duration(float64(time.Second) / *rate)
	}
	start := time.Now()
	for i := range total {
		scheduled := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(scheduled))
		if late := time.Since(scheduled); late > maxLate {
			maxLate = late
		}
		select {
		case slots <- struct{}{}:
		default:
			outcomes[i] = "client: too many in flight"
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			payload := bytes.Replace(body, []byte("NAME"), fmt.Appendf(nil, "bench-%06d", i), 1)
			outcome, returned := create(client, url, payload)
			latencies[i] = time.Since(scheduled)
			outcomes[i] = outcome
			mutated[i] = outcome == "" && containsAll(returned, expected)
		}()
	}
	wg.Wait()
	time.Sleep(time.Until(start.Add(*duration)))

	result := loadResult{Kind: *kind, Rate: *rate, Seconds: duration.Seconds(), Sent: total,
		ErrorKind: map[string]int{}, MaxLateMs: ms(maxLate)}
	var ok []time.Duration
	for i, outcome := range outcomes {
		if outcome != "" {
			result.Errors++
			result.ErrorKind[outcome]++
			continue
		}
		result.Created++
		ok = append(ok, latencies[i])
		if mutated[i] {
			result.Mutated++
		}
	}
	sort.Slice(ok, func(a, b int) bool { return ok[a] < ok[b] })
	result.P50Ms, result.P90Ms, result.P99Ms = ms(quantile(ok, 0.50)), ms(quantile(ok, 0.90)), ms(quantile(ok, 0.99))
	if len(ok) > 0 {
		result.MaxMs = ms(ok[len(ok)-1])
	}
	return json.NewEncoder(os.Stdout).Encode(result)
}

// create POSTs one object; the outcome is "" for a 201, else the status and the start of the API server's message.
func create(client *http.Client, url string, payload []byte) (string, []byte) {
	resp, err := client.Post(url, "application/json", bytes.NewReader(payload))
	if err != nil {
		return "transport: " + firstWords(err.Error()), nil
	}
	defer resp.Body.Close()
	returned, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "transport: " + firstWords(err.Error()), nil
	}
	if resp.StatusCode != http.StatusCreated {
		var status struct{ Message string }
		_ = json.Unmarshal(returned, &status)
		return fmt.Sprintf("%d: %s", resp.StatusCode, firstWords(status.Message)), nil
	}
	return "", returned
}

func template(kind, node string) ([]byte, string, error) {
	switch kind {
	case "pod":
		if node == "" {
			return nil, "", errors.New("load: -kind pod needs -node")
		}
		// One container from the registry the rewrite rule moves; the ServiceAccount token is not mounted, so the
		// create does not wait on a token request.
		return fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"NAME","labels":{"app":"bench"}},`+
			`"spec":{"nodeName":%q,"automountServiceAccountToken":false,"containers":[{"name":"app",`+
			`"image":"old-registry.example/team/app:1.0","ports":[{"containerPort":8080}]}]}}`, node), "pods", nil
	case "configmap":
		return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME","labels":{"app":"bench"}},` +
			`"data":{"key":"value"}}`), "configmaps", nil
	}
	return nil, "", fmt.Errorf("load: -kind %q: pod or configmap", kind)
}

func httpsClient(caFile, certFile, keyFile string, timeout time.Duration) (*http.Client, error) {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("load: no certificate in %s", caFile)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	transport := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 100,
	}
	return &http.Client{Transport: transport, Timeout: timeout}, nil
}

func containsAll(body []byte, parts []string) bool {
	for _, part := range parts {
		if !bytes.Contains(body, []byte(part)) {
			return false
		}
	}
	return true
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func firstWords(s string) string {
	if len(s) > 120 {
		return s[:120]
	}
	return s
}
