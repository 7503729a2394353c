package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// cluster answers kinitiras's look-ups of other objects (valueRef/dataRef from k8s or owner) from the case's
// cluster list. Every kind counts as served by the API server; a kind with no objects lists nothing.
type cluster struct {
	byKind map[schema.GroupVersionKind]cache.Indexer
}

func newCluster(objs []map[string]any) *cluster {
	c := &cluster{byKind: map[schema.GroupVersionKind]cache.Indexer{}}
	for _, o := range objs {
		u := &unstructured.Unstructured{Object: o}
		if err := c.indexer(u.GroupVersionKind()).Add(u); err != nil {
			panic(err)
		}
	}
	return c
}

func (c *cluster) indexer(gvk schema.GroupVersionKind) cache.Indexer {
	idx, ok := c.byKind[gvk]
	if !ok {
		idx = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		c.byKind[gvk] = idx
	}
	return idx
}

func (c *cluster) RegisterNewResource(bool, ...schema.GroupVersionKind) error { return nil }

func (c *cluster) GVKToResourceLister(gvk schema.GroupVersionKind) (cache.GenericLister, error) {
	return cache.NewGenericLister(c.indexer(gvk), schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}), nil
}

// cannedBodies holds the current case's HTTP answers, keyed by URL (with its query, or without it).
var cannedBodies map[string]json.RawMessage

// cannedTransport answers kinitiras's valueRef/dataRef http calls from the case, never from the network.
type cannedTransport struct{}

func (cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, ok := cannedBodies[req.URL.String()]
	if !ok {
		bare := *req.URL
		bare.RawQuery = ""
		body, ok = cannedBodies[bare.String()]
	}
	if !ok {
		return nil, fmt.Errorf("harness: no canned response for %s", req.URL)
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Status:     "200 OK",
		Header:     http.Header{"Content-Type": []string{"application/json"}},
		Body:       io.NopCloser(bytes.NewReader(body)),
		Request:    req,
	}, nil
}
