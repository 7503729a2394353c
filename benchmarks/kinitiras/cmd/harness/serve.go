package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"syscall"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/k-cloud-labs/kinitiras/pkg/lister"
	"github.com/k-cloud-labs/kinitiras/pkg/util/gclient"
	listers "github.com/k-cloud-labs/pkg/client/listers/policy/v1alpha1"
)

// serve runs kinitiras's webhook as its Run (kinitiras/cmd/app/webhook.go) wires it, with no API server: the
// policies come from the manifests of a folder instead of the informers' watch. Each is admitted through the
// webhook's own handlers (the mutating call renders a template into renderedCue) and the CRD's pruning and schema,
// then added to an indexer built as the dynamic informer builds its own; kinitiras's unstructured listers read
// those indexers, as in the webhook, so every request converts each listed policy from unstructured and lists them
// in the map's order. The handlers are served by controller-runtime's webhook server on /mutate and /validate with
// kinitiras's TLS default (1.3). Look-ups of other objects (valueRef k8s) find nothing: there is no cluster.
func serve(args []string) {
	flags := flag.NewFlagSet("serve", flag.ExitOnError)
	folder := flags.String("policies", "", "folder of policy manifests (*.yaml, several documents each)")
	host := flags.String("host", "127.0.0.1", "address to listen on")
	port := flags.Int("port", 8443, "HTTPS port")
	certDir := flags.String("cert-dir", "", "folder holding tls.crt and tls.key")
	_ = flags.Parse(args)
	if *folder == "" || *certDir == "" {
		fail(errors.New("serve needs --policies DIR and --cert-dir DIR"))
	}
	setMaxProcs()

	store := newInformerStore()
	interrupters := newInterrupters(store)
	mutating, validating := handlersWith(interrupters, store, newCluster(nil))
	manifests, err := readManifests(*folder)
	if err != nil {
		fail(err)
	}
	for _, p := range manifests {
		if res := admitPolicy(store, mutating, validating, p); !res.Admitted {
			fail(fmt.Errorf("kinitiras refused %s %s: %s", res.Kind, res.Name, res.Error))
		}
	}
	// The webhook's start-up pass over the policies it found (valueRef tokens), after its caches are synced.
	if err := interrupters.OnStartUp(); err != nil {
		fail(err)
	}

	server := &webhook.Server{Host: *host, Port: *port, CertDir: *certDir, TLSMinVersion: "1.3"}
	server.Register("/mutate", &webhook.Admission{Handler: mutating})
	server.Register("/validate", &webhook.Admission{Handler: validating})
	server.WebhookMux.Handle("/readyz", http.StripPrefix("/readyz", &healthz.Handler{}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(os.Stderr, "harness: serving %d kinitiras policies on https://%s:%d (GOMAXPROCS %d)\n",
		len(manifests), *host, *port, runtime.GOMAXPROCS(0))
	if err := server.StartStandalone(ctx, gclient.NewSchema()); err != nil {
		fail(err)
	}
}

// setMaxProcs is kinitiras's own (main.go): GOMAXPROCS is the CPUS variable, 1 when it is unset or below 1.
func setMaxProcs() {
	cpus, err := strconv.ParseFloat(os.Getenv("CPUS"), 64)
	if err != nil || cpus < 1 {
		cpus = 1
	}
	runtime.GOMAXPROCS(int(cpus))
}

// readManifests reads every document of the folder's *.yaml files, files by name.
func readManifests(folder string) ([]map[string]any, error) {
	files, err := filepath.Glob(filepath.Join(folder, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []map[string]any
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(in, 4096)
		for {
			var doc map[string]any
			if err := decoder.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				in.Close()
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if doc != nil {
				out = append(out, doc)
			}
		}
		in.Close()
	}
	return out, nil
}

// informerStore holds admitted policies as the webhook's informers do: unstructured, in one indexer per kind.
type informerStore struct {
	ops, cops, cvps cache.Indexer
}

func newInformerStore() *informerStore {
	// The key and index functions of client-go's dynamic informers (dynamicinformer.NewFilteredDynamicInformer).
	indexer := func() cache.Indexer {
		return cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	return &informerStore{ops: indexer(), cops: indexer(), cvps: indexer()}
}

// add stores the policy as the informer would after its watch: decoded from JSON by the unstructured scheme (whole
// numbers as int64, where the harness's maps hold float64).
func (s *informerStore) add(policy map[string]any) error {
	decoded, _, err := unstructured.UnstructuredJSONScheme.Decode(mustJSON(policy), nil, nil)
	if err != nil {
		return err
	}
	u := decoded.(*unstructured.Unstructured)
	switch u.GetKind() {
	case "OverridePolicy":
		return s.ops.Add(u)
	case "ClusterOverridePolicy":
		return s.cops.Add(u)
	case "ClusterValidatePolicy":
		return s.cvps.Add(u)
	}
	return fmt.Errorf("harness: not a kinitiras policy kind: %q", u.GetKind())
}

func (s *informerStore) opLister() listers.OverridePolicyLister {
	return lister.NewUnstructuredOverridePolicyLister(s.ops)
}

func (s *informerStore) copLister() listers.ClusterOverridePolicyLister {
	return lister.NewUnstructuredClusterOverridePolicyLister(s.cops)
}

func (s *informerStore) cvpLister() listers.ClusterValidatePolicyLister {
	return lister.NewUnstructuredClusterValidatePolicyLister(s.cvps)
}
