// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package rig

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Event is an Event of either API (events.k8s.io/v1 or core/v1), reduced to what the suite looks at.
type Event struct {
	Type, Reason, Note string
	Kind, Name         string
	Namespace          string
}

// String renders the event for messages.
func (e Event) String() string {
	return fmt.Sprintf("%s %s on %s %s/%s: %s", e.Type, e.Reason, e.Kind, e.Namespace, e.Name, e.Note)
}

// Events lists the Events of both APIs in every namespace of a control plane.
func (r *Rig) Events(ctx context.Context, controlPlane string) ([]Event, error) {
	c, err := r.Client(controlPlane)
	if err != nil {
		return nil, err
	}
	ctx = Quiet(ctx)
	var out []Event
	var list eventsv1.EventList
	if err := c.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("listing the events of %s: %w", controlPlane, err)
	}
	for _, e := range list.Items {
		out = append(out, Event{Type: e.Type, Reason: e.Reason, Note: e.Note, Kind: e.Regarding.Kind,
			Name: e.Regarding.Name, Namespace: e.Namespace})
	}
	var core corev1.EventList
	if err := c.List(ctx, &core, client.Limit(5000)); err != nil {
		return nil, fmt.Errorf("listing the core events of %s: %w", controlPlane, err)
	}
	for _, e := range core.Items {
		// events.k8s.io Events are also served as core Events: count each once.
		if e.ReportingController != "" && e.Action != "" {
			continue
		}
		out = append(out, Event{Type: e.Type, Reason: e.Reason, Note: e.Message, Kind: e.InvolvedObject.Kind,
			Name: e.InvolvedObject.Name, Namespace: e.Namespace})
	}
	return out, nil
}
