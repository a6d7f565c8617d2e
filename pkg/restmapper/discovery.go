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

// digest identifies one part of an API surface: the SHA-256 digest of the part and of its discovery document.
type digest [sha256.Size]byte

// part is one of the two halves of an API server's discovery, each described by a document of its own: the legacy
// (core) group, at /api, and the named groups, at /apis. Each part is discovered when a lookup first needs it, and
// grouped and shared on its own.
type part int

const (
	legacyPart part = iota
	namedPart
)

// parts are both parts, in the order in which an API server lists its groups.
var parts = [2]part{legacyPart, namedPart}

// partOf returns the part that serves the kinds of API group apiGroup.
func partOf(apiGroup string) part {
	if apiGroup == "" {
		return legacyPart
	}
	return namedPart
}

// aggregatedGVK is the kind of an aggregated discovery document, as its content type names it.
var aggregatedGVK = schema.GroupVersionKind{Group: "apidiscovery.k8s.io", Version: "v2", Kind: "APIGroupDiscoveryList"}

// accept asks for aggregated discovery and accepts the unaggregated form, as client-go's discovery client does.
const accept = discovery.AcceptV2 + "," + discovery.AcceptV1

// source is how a cluster's RESTMapper reaches its API server's discovery.
type source struct {
	config *rest.Config
	client *http.Client
}

// docPaths are the paths of the aggregated discovery documents of the parts.
var docPaths = [2]string{legacyPart: "/api", namedPart: "/apis"}

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

// documents is the discovery of one part of an API server, fetched at one time.
type documents struct {
	digest digest
	// doc is the part's aggregated document; zero for a server without aggregated discovery, or without the legacy
	// group.
	doc document
	// restMapper decodes the part's RESTMapper; it is called only for a digest no group has yet.
	restMapper func() (meta.RESTMapper, error)
}

// fetch gets the discovery document of part p and its digest. With aggregated discovery that is one request and a
// hash, and nothing is decoded until restMapper is called. The request is conditional on the entity tag of known's
// document, if any: a document the server reports unchanged (304 Not Modified) is known's, and is neither
// downloaded nor hashed. Without aggregated discovery, every group version is discovered, as client-go does, and
// the part's groups are hashed.
func (s *source) fetch(ctx context.Context, p part, known *group) (*documents, error) {
	var etag string
	if known != nil {
		etag = known.doc.etag
	}
	r, err := s.get(ctx, docPaths[p], etag)
	switch {
	case err != nil:
		return nil, fmt.Errorf("discovering the APIs of %s: %w", s.config.Host, err)
	case r.notModified:
		return &documents{digest: known.digest, doc: known.doc}, nil
	case r.missing:
		// An aggregated API server serves no legacy group: the part maps nothing.
		return &documents{digest: digestOf([]byte{byte(p)}), restMapper: func() (meta.RESTMapper, error) {
			return restmapper.NewDiscoveryRESTMapper(nil), nil
		}}, nil
	case !r.aggregated:
		return s.fetchUnaggregated(ctx, p)
	}
	doc := document{sum: sha256.Sum256(r.body), etag: contentETag(r.etag)}
	body := r.body
	return &documents{
		digest:     digestOf([]byte{byte(p)}, doc.sum[:]),
		doc:        doc,
		restMapper: func() (meta.RESTMapper, error) { return decodeAggregated(s.config.Host, body) },
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
	case resp.StatusCode == http.StatusNotFound && path == docPaths[legacyPart]:
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

// decodeAggregated builds the RESTMapper of an aggregated discovery document, with the groups in the server's order
// and each group's versions in its order of preference, as client-go does. Versions the server reports stale are
// left out, as controller-runtime leaves them out.
func decodeAggregated(host string, doc []byte) (meta.RESTMapper, error) {
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(doc, &list); err != nil {
		return nil, fmt.Errorf("decoding the aggregated discovery of %s: %w", host, err)
	}
	apiGroups, resources, _ := discovery.SplitGroupsAndResources(list)
	groups := make([]*restmapper.APIGroupResources, 0, len(apiGroups.Groups))
	for _, g := range apiGroups.Groups {
		groups = append(groups, groupResources(g, resources))
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
// hashes the groups of part p. Group versions that fail are left out (their kinds do not map), as client-go leaves
// them out; a server that reports no group at all is an error. Such a server (older than Kubernetes v1.26) is
// discovered in full for each part a cluster needs.
func (s *source) fetchUnaggregated(ctx context.Context, p part) (*documents, error) {
	host := s.config.Host
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(s.config, s.client)
	if err != nil {
		return nil, fmt.Errorf("discovering the APIs of %s: %w", host, err)
	}
	all, err := restmapper.GetAPIGroupResourcesWithContext(ctx, dc)
	if err != nil {
		return nil, fmt.Errorf("discovering the APIs of %s: %w", host, err)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("discovering the APIs of %s: the server reported no API group", host)
	}
	var groups []*restmapper.APIGroupResources
	for _, g := range all {
		if partOf(g.Group.Name) == p {
			groups = append(groups, g)
		}
	}
	canonical, err := json.Marshal(groups)
	if err != nil {
		return nil, fmt.Errorf("discovering the APIs of %s: %w", host, err)
	}
	return &documents{
		digest:     digestOf([]byte{byte(p)}, []byte("unaggregated"), canonical),
		restMapper: func() (meta.RESTMapper, error) { return restmapper.NewDiscoveryRESTMapper(groups), nil },
	}, nil
}
