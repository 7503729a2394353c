package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestHistogramQuantileInterpolatesInsideTheBucketAsPrometheusDoes(t *testing.T) {
	// 10 observations: 4 up to 5 ms, 6 more up to 25 ms, none above.
	cumulative := map[float64]float64{0.005: 4, 0.025: 10, 0.1: 10, math.Inf(1): 10}
	for _, c := range []struct {
		q, want float64
	}{
		{0.2, 0.0025},  // rank 2 of the first bucket's 4, from 0
		{0.5, 0.00833}, // rank 5: one of six into 5-25 ms
		{0.99, 0.0247}, // rank 9.9
		{1, 0.025},
	} {
		if got := histogramQuantile(cumulative, c.q); math.Abs(got-c.want) > 0.0001 {
			t.Errorf("q=%v: got %v, want %v", c.q, got, c.want)
		}
	}
	// A rank in the +Inf bucket answers the largest finite bound.
	if got := histogramQuantile(map[float64]float64{0.5: 1, math.Inf(1): 10}, 0.99); got != 0.5 {
		t.Errorf("rank in +Inf: got %v, want 0.5", got)
	}
}

func TestWebhooksReadsTheDifferenceOfTwoScrapes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	before := write("before", `# HELP apiserver_admission_webhook_admission_duration_seconds x
apiserver_admission_webhook_admission_duration_seconds_bucket{name="m.example",operation="CREATE",rejected="false",type="admit",le="0.005"} 100
apiserver_admission_webhook_admission_duration_seconds_bucket{name="m.example",operation="CREATE",rejected="false",type="admit",le="0.025"} 100
apiserver_admission_webhook_admission_duration_seconds_bucket{name="m.example",operation="CREATE",rejected="false",type="admit",le="+Inf"} 100
apiserver_admission_webhook_rejection_count{error_type="calling_webhook_error",name="m.example",operation="CREATE",rejection_code="503",type="admit"} 2
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1",le="0.1"} 7
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1",le="+Inf"} 7
`)
	after := write("after", `apiserver_admission_webhook_admission_duration_seconds_bucket{name="m.example",operation="CREATE",rejected="false",type="admit",le="0.005"} 104
apiserver_admission_webhook_admission_duration_seconds_bucket{name="m.example",operation="CREATE",rejected="false",type="admit",le="0.025"} 110
apiserver_admission_webhook_admission_duration_seconds_bucket{name="m.example",operation="CREATE",rejected="false",type="admit",le="+Inf"} 110
apiserver_admission_webhook_rejection_count{error_type="calling_webhook_error",name="m.example",operation="CREATE",rejection_code="503",type="admit"} 5
apiserver_admission_webhook_fail_open_count{name="m.example",type="admit"} 1
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1",le="0.1"} 17
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1",le="+Inf"} 17
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1",le="+Inf"} 50
`)
	report, err := diffScrapes(before, after, "pods")
	if err != nil {
		t.Fatal(err)
	}
	got := report.Webhooks
	if len(got) != 1 || got[0].Name != "m.example" || got[0].Count != 10 || math.Abs(got[0].P50Ms-8.33) > 0.01 {
		t.Errorf("webhook latency: %+v, want m.example, 10 calls, p50 8.33 ms", got)
	}
	// Only POST pods: the ConfigMaps' creates are another resource.
	if len(report.Creates) != 1 || report.Creates[0].Count != 10 {
		t.Errorf("pod creates: %+v, want 10", report.Creates)
	}
	if n := report.Rejections["m.example calling_webhook_error 503"]; n != 3 || len(report.Rejections) != 1 {
		t.Errorf("failed calls: %v, want 3 of m.example", report.Rejections)
	}
	if report.FailOpen != 1 {
		t.Errorf("fail-open calls: %d, want 1", report.FailOpen)
	}
}
