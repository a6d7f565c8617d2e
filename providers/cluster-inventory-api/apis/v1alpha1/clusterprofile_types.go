package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

const (
	// LabelClusterManagerKey labels a ClusterProfile with the name of the tool that manages its cluster.
	LabelClusterManagerKey = "x-k8s.io/cluster-manager"
	// LabelClusterSetKey labels a ClusterProfile with the ClusterSet its cluster belongs to.
	LabelClusterSetKey = "multicluster.x-k8s.io/clusterset"

	// ClusterConditionControlPlaneHealthy is the condition type telling whether the cluster's control plane is
	// healthy.
	ClusterConditionControlPlaneHealthy = "ControlPlaneHealthy"
	// ClusterConditionJoined is the condition type telling whether the cluster has joined the inventory, that is,
	// whether its cluster manager can reach and manage it.
	ClusterConditionJoined = "Joined"
)

// ClusterProfile describes one cluster of an inventory: who manages it, its health and version, free-form
// properties, and how to reach it.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:printcolumn:name="Manager",type=string,JSONPath=`.spec.clusterManager.name`
// +kubebuilder:printcolumn:name="Kubernetes",type=string,JSONPath=`.status.version.kubernetes`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ClusterProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is written by the cluster manager.
	// +required
	Spec ClusterProfileSpec `json:"spec"`

	// Status is the observed state of the cluster.
	// +optional
	Status ClusterProfileStatus `json:"status,omitempty"`
}

// ClusterProfileSpec is the desired state of a ClusterProfile.
type ClusterProfileSpec struct {
	// DisplayName is a human-readable name of the cluster.
	// +optional
	DisplayName string `json:"displayName,omitempty"`

	// ClusterManager is the tool that manages the cluster and writes this profile.
	// +required
	ClusterManager ClusterManager `json:"clusterManager"`
}

// ClusterManager names the tool that manages a cluster.
type ClusterManager struct {
	// Name of the cluster manager.
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
}

// ClusterProfileStatus is the observed state of a ClusterProfile.
type ClusterProfileStatus struct {
	// Conditions of the cluster, among them ControlPlaneHealthy and Joined.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Version is the version of the cluster.
	// +optional
	Version ClusterVersion `json:"version,omitempty"`

	// Properties are name/value pairs describing the cluster, such as the KEP-2149 cluster ID
	// (cluster.clusterset.k8s.io) and ClusterSet (clusterset.k8s.io).
	// +optional
	// +listType=map
	// +listMapKey=name
	Properties []Property `json:"properties,omitempty"`

	// CredentialProviders lists the ways to reach the cluster, one per credential-provider type (KEP-5339).
	// +optional
	// +listType=map
	// +listMapKey=name
	CredentialProviders []CredentialProvider `json:"credentialProviders,omitempty"`

	// AccessProviders is the name a later revision of the API (KEP-5339) gives to CredentialProviders, with the
	// same elements. Controllers read both lists; an entry here wins over one of the same type in
	// CredentialProviders. Tools that write profiles for both revisions write CredentialProviders.
	// +optional
	// +listType=map
	// +listMapKey=name
	AccessProviders []CredentialProvider `json:"accessProviders,omitempty"`
}

// ClusterVersion is the version of a cluster.
type ClusterVersion struct {
	// Kubernetes is the Kubernetes version of the cluster.
	// +optional
	Kubernetes string `json:"kubernetes,omitempty"`
}

// Property is a name/value pair describing a cluster.
type Property struct {
	// Name of the property, for example cluster.clusterset.k8s.io.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Value of the property.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Value string `json:"value"`

	// LastObservedTime is when the property was last observed.
	// +optional
	LastObservedTime metav1.Time `json:"lastObservedTime,omitempty"`
}

// CredentialProvider is one way to reach a cluster: a credential-provider type and the cluster's connection
// details for it.
type CredentialProvider struct {
	// Name is the credential-provider type, for example "token" or "gkeFleet"; a controller maps it to a
	// credential plugin.
	// +required
	Name string `json:"name"`

	// Cluster holds the connection details, in the schema of a kubeconfig's cluster entry (client-go's
	// clientcmd v1 Cluster: server, certificate-authority-data, tls-server-name, insecure-skip-tls-verify,
	// proxy-url, disable-compression, extensions).
	// +required
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	Cluster runtime.RawExtension `json:"cluster"`
}

// ClusterProfileList is a list of ClusterProfiles.
//
// +kubebuilder:object:root=true
type ClusterProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterProfile `json:"items"`
}
