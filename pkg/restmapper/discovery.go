package restmapper

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"

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

// documents are the discovery documents of one API server, fetched at one time.
type documents struct {
	digest digest
	// restMapper builds the RESTMapper of the documents; it is called only for a digest no group has yet.
	restMapper func() (meta.RESTMapper, error)
}

// fetch gets the API server's discovery documents and their digest. With aggregated discovery that is two
// requests (/api and /apis) and a hash, and nothing is decoded until restMapper is called; without it, every group
// version is discovered, as client-go does, and the result is hashed.
func (s *source) fetch(ctx context.Context) (*documents, error) {
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(s.config, s.client)
	if err != nil {
		return nil, fmt.Errorf("discovering the APIs of %s: %w", s.config.Host, err)
	}
	api, apiAggregated, err := get(ctx, dc.RESTClient(), "/api", true)
	if err != nil {
		return nil, fmt.Errorf("discovering the APIs of %s: %w", s.config.Host, err)
	}
	apis, apisAggregated, err := get(ctx, dc.RESTClient(), "/apis", false)
	if err != nil {
		return nil, fmt.Errorf("discovering the APIs of %s: %w", s.config.Host, err)
	}
	if apisAggregated && (apiAggregated || api == nil) {
		return &documents{
			digest:     digestOf(api, apis),
			restMapper: func() (meta.RESTMapper, error) { return decodeAggregated(s.config.Host, api, apis) },
		}, nil
	}
	return fetchUnaggregated(ctx, s.config.Host, dc)
}

// get returns the body of the discovery document at path and whether it is aggregated. With missingOK, a 404 (which
// aggregated API servers answer for /api) is an empty document.
func get(ctx context.Context, c rest.Interface, path string, missingOK bool) (body []byte, aggregated bool, err error) {
	var contentType string
	body, err = c.Get().AbsPath(path).SetHeader("Accept", accept).Do(ctx).ContentType(&contentType).Raw()
	if err != nil {
		if missingOK && apierrors.IsNotFound(err) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("getting %s: %w", path, err)
	}
	aggregated, _ = discovery.ContentTypeIsGVK(contentType, aggregatedGVK)
	return body, aggregated, nil
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
func fetchUnaggregated(ctx context.Context, host string, dc *discovery.DiscoveryClient) (*documents, error) {
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
