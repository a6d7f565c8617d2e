package clusterinventoryapi

import (
	"fmt"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
)

// maxEventNote is the longest note an events.k8s.io/v1 Event may carry; the API server rejects longer ones.
const maxEventNote = 1024

// Reasons and actions of the Warning events the provider records on ClusterProfiles.
const (
	reasonKubeconfigUnavailable = "KubeconfigUnavailable"
	actionBuildClientConfig     = "BuildClientConfig"
	reasonEngageFailed          = "EngageFailed"
	actionEngage                = "Engage"
)

// warnf records a Warning event on clp through the events API (events.k8s.io/v1), its note cut to what the API
// server accepts. Recording never blocks: the events broadcaster sends it in the background.
func (p *Provider) warnf(clp *clusterinventoryv1alpha1.ClusterProfile, reason, action, format string, args ...any) {
	p.recorder.Eventf(clp, nil, corev1.EventTypeWarning, reason, action, "%s", eventNote(format, args...))
}

// eventNote formats an event's note, cut at a rune boundary to at most maxEventNote bytes, "..." included.
func eventNote(format string, args ...any) string {
	note := fmt.Sprintf(format, args...)
	if len(note) <= maxEventNote {
		return note
	}
	cut := maxEventNote - len("...")
	for cut > 0 && !utf8.RuneStart(note[cut]) {
		cut--
	}
	return note[:cut] + "..."
}
