// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// maxEventNote is the longest note an events.k8s.io/v1 Event may carry; the API server rejects longer ones.
const maxEventNote = 1024

// minRedacted is the length from which a credential is redacted from error messages: a shorter one cannot be told
// apart from the words around it.
const minRedacted = 8

// reportOne logs an outcome, records its Event and hands it to OnOutcome. r is the run it happened in, or nil.
func (e *Engager) reportOne(r *engageRun, o Outcome) {
	_, log := e.reporters()
	switch {
	case log.GetSink() != nil:
	case r != nil:
		log = r.log
	default:
		log = logf.Log
	}
	kv := []any{"cluster", o.Name}
	if o.Target.Source != "" {
		kv = append(kv, "source", o.Target.Source)
	}
	switch o.Kind {
	case OutcomeEngaging:
		log.V(1).Info("Engaging cluster: its cache has synced", kv...)
	case OutcomeUnchanged:
		log.V(2).Info("Cluster unchanged", kv...)
	case OutcomeAdded, OutcomeReplaced:
		verb := "Engaged"
		if o.Kind == OutcomeReplaced {
			verb = "Replaced"
		}
		log.Info(verb+" cluster", append(kv, "duration", o.Duration.Round(time.Millisecond))...)
		send := func() {
			e.eventf(o.Target, corev1.EventTypeNormal, ReasonEngaged, "%s cluster %q%s", verb, o.Name, from(o.Target))
		}
		switch {
		case o.Target.Object == nil:
		case r == nil: // not from a worker of a run: nothing to pace with
			send()
		case !e.events.record(r.ctx, &e.pacing, send):
			log.V(1).Info("Too many Events held back: not recording that the cluster is engaged", kv...)
		}
	case OutcomeFailed:
		msg, retry := "Failed to engage cluster", ""
		if o.RetryIn > 0 {
			msg += "; retrying"
			kv = append(kv, "retryIn", o.RetryIn.Round(time.Millisecond))
			retry = fmt.Sprintf(", retrying in %s", o.RetryIn.Round(time.Second))
		}
		e.handleError(log, o.Err, msg, kv...)
		e.eventf(o.Target, corev1.EventTypeWarning, ReasonEngageFailed, "Failed to engage cluster %q%s%s: %v", o.Name,
			from(o.Target), retry, o.Err)
	case OutcomeRemoved:
		log.Info("Disengaged cluster", kv...)
	}
	if e.opts.OnOutcome != nil {
		e.opts.OnOutcome(o)
	}
}

// handleError hands a failure to the set's ErrorHandler if it has one, and logs it otherwise.
func (e *Engager) handleError(log logr.Logger, err error, msg string, keysAndValues ...any) {
	if e.set.ErrorHandler != nil {
		e.set.ErrorHandler(err, msg, keysAndValues...)
		return
	}
	log.Error(err, msg, keysAndValues...)
}

// eventf records an Event about engaging a target's cluster on the target's object, if it has one.
func (e *Engager) eventf(t Target, eventType, reason, format string, args ...any) {
	if t.Object != nil {
		e.Eventf(t.Object, eventType, reason, ActionEngage, format, args...)
	}
}

// Eventf records an Event (events.k8s.io/v1) on regarding with the engager's recorder, if it has one, its note cut at
// a rune boundary to what the API server accepts (1024 bytes). Providers record their own Events about their
// source (a Secret without a kubeconfig, say) with it, beside those the engager records.
func (e *Engager) Eventf(regarding runtime.Object, eventType, reason, action, format string, args ...any) {
	recorder, _ := e.reporters()
	if recorder == nil {
		return
	}
	recorder.Eventf(regarding, nil, eventType, reason, action, "%s", eventNote(fmt.Sprintf(format, args...)))
}

// from is " from <Source>", or nothing for a target without a Source.
func from(t Target) string {
	if t.Source == "" {
		return ""
	}
	return " from " + t.Source
}

// eventNote cuts note at a rune boundary to at most maxEventNote bytes, "..." included.
func eventNote(note string) string {
	if len(note) <= maxEventNote {
		return note
	}
	cut := maxEventNote - len("...")
	for cut > 0 && !utf8.RuneStart(note[cut]) {
		cut--
	}
	return note[:cut] + "..."
}

// redactValues replaces in msg every value (and the base64 form of every value) of at least minRedacted bytes with
// "[redacted]".
func redactValues(msg string, values ...string) string {
	for _, v := range values {
		if len(v) < minRedacted {
			continue
		}
		msg = strings.ReplaceAll(msg, v, "[redacted]")
		msg = strings.ReplaceAll(msg, base64.StdEncoding.EncodeToString([]byte(v)), "[redacted]")
	}
	return msg
}
