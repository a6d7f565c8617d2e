// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package restmapper

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// digest identifies an API surface: the SHA-256 digest of a cluster's discovery documents.
type digest [sha256.Size]byte

// aggregatedGVK is the kind of an aggregated discovery document, as its content type names it.
var aggregatedGVK = schema.GroupVersionKind{Group: "apidiscovery.k8s.io", Version: "v2", Kind: "APIGroupDiscoveryList"}

// accept asks for aggregated discovery and accepts the unaggregated form, as client-go's discovery client does.
const accept = discovery.AcceptV2 + "," + discovery.AcceptV1

// source is how a cluster's RESTMapper reaches its API server's discovery.
type source struct {
	config *rest.Config
	client *http.Client
}

// docPaths are the paths of the aggregated discovery documents: the legacy (core) group's and the named groups'.
var docPaths = [2]string{"/api", "/apis"}

// discoveryTimeout bounds each discovery request when the cluster's rest.Config sets no timeout, as client-go's
// discovery client does.
const discoveryTimeout = 32 * time.Second

// document is what is known of one aggregated discovery document of an API server.
type document struct {
	// sum is the SHA-256 digest of the document as the server sent it.
	sum [sha256.Size]byte
	// etag is the entity tag the server sent with the document, if it is a digest of the document's content (see
	// contentETag); empty otherwise.
	etag string
}

// documents are the discovery documents of one API server, fetched at one time.
type documents struct {
	digest digest
	// docs are the aggregated documents (/api, /apis); zero for a server without aggregated discovery.
	docs [2]document
	// restMapper builds the RESTMapper of the documents; it is called only for a digest no group has yet.
	restMapper func() (meta.RESTMapper, error)
}

// fetch gets the API server's discovery documents and their digest. With aggregated discovery that is two
// requests (/api and /apis) and a hash, and nothing is decoded until restMapper is called. The requests are
// conditional on the entity tags of the documents of known, if any: a document the server reports unchanged
// (304 Not Modified) is known's, and is neither downloaded nor hashed. Without aggregated discovery, every group
// version is discovered, as client-go does, and the result is hashed.
func (s *source) fetch(ctx context.Context, known *group) (*documents, error) {
	var (
		docs   [2]document
		bodies [2][]byte
		full   [2]bool
	)
	for i, path := range docPaths {
		var etag string
		if known != nil {
			etag = known.docs[i].etag
		}
		r, err := s.get(ctx, path, etag)
		switch {
		case err != nil:
			return nil, fmt.Errorf("discovering the APIs of %s: %w", s.config.Host, err)
		case r.notModified:
			docs[i] = known.docs[i]
		case !r.aggregated && !r.missing:
			return s.fetchUnaggregated(ctx)
		default:
			docs[i] = document{sum: sha256.Sum256(r.body), etag: contentETag(r.etag)}
			bodies[i], full[i] = r.body, true
		}
	}
	return &documents{
		digest: digestOf(docs[0].sum[:], docs[1].sum[:]),
		docs:   docs,
		restMapper: func() (meta.RESTMapper, error) {
			// A new surface may have a document that the server reported unchanged from known's: get it now.
			for i, path := range docPaths {
				if full[i] {
					continue
				}
				r, err := s.get(ctx, path, "")
				if err != nil {
					return nil, fmt.Errorf("discovering the APIs of %s: %w", s.config.Host, err)
				}
				if sha256.Sum256(r.body) != docs[i].sum {
					return nil, fmt.Errorf("discovering the APIs of %s: %s changed while it was being discovered", s.config.Host, path)
				}
				bodies[i] = r.body
			}
			return decodeAggregated(s.config.Host, bodies[0], bodies[1])
		},
	}, nil
}

// response is the answer to a discovery request.
type response struct {
	body []byte
	etag string
	// aggregated reports an aggregated discovery document; notModified a 304 to a conditional request; missing a
	// 404 for /api, which aggregated API servers answer.
	aggregated, notModified, missing bool
}

// get requests the discovery document at path through the cluster's HTTP client, asking for aggregated discovery
// and, if etag is not empty, only if the document's entity tag is not etag.
func (s *source) get(ctx context.Context, path, etag string) (response, error) {
	u, _, err := rest.DefaultServerUrlFor(s.config)
	if err != nil {
		return response{}, err
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	timeout := s.config.Timeout
	if timeout <= 0 {
		timeout = discoveryTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Accept", accept)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return response{}, fmt.Errorf("getting %s: %w", path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, fmt.Errorf("getting %s: %w", path, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && etag != "":
		return response{notModified: true}, nil
	case resp.StatusCode == http.StatusNotFound && path == docPaths[0]:
		return response{missing: true}, nil
	case resp.StatusCode != http.StatusOK:
		return response{}, fmt.Errorf("getting %s: %w", path, apierrors.FromObject(&metav1.Status{
			Status: metav1.StatusFailure, Code: int32(resp.StatusCode), Reason: metav1.StatusReasonUnknown,
			Message: fmt.Sprintf("the server answered %s", resp.Status),
		}))
	}
	aggregated, _ := discovery.ContentTypeIsGVK(resp.Header.Get("Content-Type"), aggregatedGVK)
	return response{body: body, etag: resp.Header.Get("ETag"), aggregated: aggregated}, nil
}

// contentETag returns etag if it is a strong entity tag that is a digest of the document's content, as Kubernetes
// API servers send with aggregated discovery (the hexadecimal SHA-512 of the document), and "" otherwise. Only such
// tags are sent back in conditional requests, to the same cluster or to another one: a server answers 304 Not
// Modified only if its own document has that very tag, which for a content digest means the same content. A tag
// that is a version number or a timestamp could be the same for different documents on different servers, and is
// never sent.
func contentETag(etag string) string {
	digits := strings.TrimSuffix(strings.TrimPrefix(etag, `"`), `"`)
	if len(digits) != len(etag)-2 || len(digits) < 64 {
		return ""
	}
	for _, c := range digits {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return ""
		}
	}
	return etag
}

// digestOf hashes documents, each with its length, so that no two different lists of documents hash alike.
func digestOf(docs ...[]byte) digest {
	h := sha256.New()
	var n [8]byte
	for _, doc := range docs {
		binary.BigEndian.PutUint64(n[:], uint64(len(doc)))
		h.Write(n[:])
		h.Write(doc)
	}
	var d digest
	h.Sum(d[:0])
	return d
}

// decodeAggregated builds the RESTMapper of the aggregated discovery documents of /api and /apis, with the groups
// in the server's order (the legacy group first) and each group's versions in its order of preference, as client-go
// does. Versions the server reports stale are left out, as controller-runtime leaves them out.
func decodeAggregated(host string, docs ...[]byte) (meta.RESTMapper, error) {
	var groups []*restmapper.APIGroupResources
	for _, doc := range docs {
		if doc == nil {
			continue
		}
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(doc, &list); err != nil {
			return nil, fmt.Errorf("decoding the aggregated discovery of %s: %w", host, err)
		}
		apiGroups, resources, _ := discovery.SplitGroupsAndResources(list)
		for _, g := range apiGroups.Groups {
			groups = append(groups, groupResources(g, resources))
		}
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("discovering the APIs of %s: the server reported no API group", host)
	}
	return restmapper.NewDiscoveryRESTMapper(groups), nil
}

// groupResources returns the resources of every version of group g.
func groupResources(g metav1.APIGroup, resources map[schema.GroupVersion]*metav1.APIResourceList) *restmapper.APIGroupResources {
	gr := &restmapper.APIGroupResources{Group: g, VersionedResources: make(map[string][]metav1.APIResource, len(g.Versions))}
	for _, v := range g.Versions {
		if list, ok := resources[schema.GroupVersion{Group: g.Name, Version: v.Version}]; ok {
			gr.VersionedResources[v.Version] = list.APIResources
		}
	}
	return gr
}

// fetchUnaggregated discovers an API server without aggregated discovery, group version by group version, and
// hashes the result. Group versions that fail are left out (their kinds do not map), as client-go leaves them out;
// a server that reports no group at all is an error.
func (s *source) fetchUnaggregated(ctx context.Context) (*documents, error) {
	host := s.config.Host
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(s.config, s.client)
	if err != nil {
		return nil, fmt.Errorf("discovering the APIs of %s: %w", host, err)
	}
	groups, err := restmapper.GetAPIGroupResourcesWithContext(ctx, dc)
	if err != nil {
		return nil, fmt.Errorf("discovering the APIs of %s: %w", host, err)
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("discovering the APIs of %s: the server reported no API group", host)
	}
	canonical, err := json.Marshal(groups)
	if err != nil {
		return nil, fmt.Errorf("discovering the APIs of %s: %w", host, err)
	}
	return &documents{
		digest:     digestOf([]byte("unaggregated"), canonical),
		restMapper: func() (meta.RESTMapper, error) { return restmapper.NewDiscoveryRESTMapper(groups), nil },
	}, nil
}
