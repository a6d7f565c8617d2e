// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package rig

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// WriteTimeout bounds every request of a writer, so that a writer of a member that does not answer keeps trying.
const WriteTimeout = 5 * time.Second

// Target is how one manager sees a member: the manager's observer and the name of the member's cluster in it.
type Target struct {
	Observer *Observer
	Cluster  multicluster.ClusterName
}

// Writer writes the objects of one member: Objects ConfigMaps and as many Secrets in Namespace, named obj-<i>,
// each with a data field "v" holding a number that grows with every write. Each write goes to the next object in
// turn; with Churn > 0 that fraction of writes deletes the object instead (the next write to it creates it
// again). Every write is announced to the observers of the targets before it is sent.
type Writer struct {
	Member   string
	Objects  int
	Interval time.Duration
	Churn    float64

	client  client.Client
	rnd     *rand.Rand
	targets atomic.Pointer[[]Target]
	tag     atomic.Pointer[string]

	// Owned by the goroutine that runs the writer.
	next   int64
	turn   int
	exists map[string]bool

	ok, failed atomic.Int64
	mu         sync.Mutex
	lastErr    error
}

// NewWriter returns a writer of the member at cfg (whose Timeout it sets to WriteTimeout). rnd decides which writes
// delete (with Churn); it must not be shared with other goroutines.
func NewWriter(member string, cfg *rest.Config, objects int, interval time.Duration, churn float64, rnd *rand.Rand) (*Writer, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = WriteTimeout
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return nil, fmt.Errorf("client of %s: %w", member, err)
	}
	w := &Writer{Member: member, Objects: objects, Interval: interval, Churn: churn, client: c, rnd: rnd, exists: map[string]bool{}}
	w.SetTargets()
	return w, nil
}

// SetTargets replaces the managers' views of the member that writes are announced to.
func (w *Writer) SetTargets(targets ...Target) {
	t := append([]Target(nil), targets...)
	w.targets.Store(&t)
}

// SetTag sets the tag appended to the observers' phase for the writes from now on (see Observer.Writing).
func (w *Writer) SetTag(tag string) { w.tag.Store(&tag) }

// Targets returns the managers' views of the member.
func (w *Writer) Targets() []Target { return *w.targets.Load() }

// Stats returns how many writes succeeded and failed, and the last failure.
func (w *Writer) Stats() (ok, failed int64, lastErr error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ok.Load(), w.failed.Load(), w.lastErr
}

// Seed creates (or updates) every object once, retrying until each write succeeds or ctx ends.
func (w *Writer) Seed(ctx context.Context) error {
	for i := range w.Objects {
		for _, kind := range Kinds {
			name := objectName(i)
			for {
				if err := w.write(ctx, kind, name, false); err == nil {
					break
				}
				select {
				case <-ctx.Done():
					return fmt.Errorf("seeding %s: %w", w.Member, ctx.Err())
				case <-time.After(100 * time.Millisecond):
				}
			}
		}
	}
	return nil
}

// Run writes one object per Interval until ctx ends. A write that takes longer than Interval delays the next.
func (w *Writer) Run(ctx context.Context) {
	ticker := time.NewTicker(w.Interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		kind := Kinds[w.turn%len(Kinds)]
		name := objectName((w.turn / len(Kinds)) % w.Objects)
		w.turn++
		del := w.Churn > 0 && w.exists[kind+"/"+name] && w.rnd.Float64() < w.Churn
		_ = w.write(ctx, kind, name, del)
	}
}

// write updates (creating it if needed) or deletes one object.
func (w *Writer) write(ctx context.Context, kind, name string, del bool) error {
	ctx = klog.NewContext(ctx, logr.Discard())
	id := kind + "/" + name
	if del {
		err := w.client.Delete(ctx, newObject(kind, name, 0))
		if apierrors.IsNotFound(err) {
			err = nil
		}
		w.count(err)
		if err == nil {
			w.exists[id] = false
		}
		return err
	}

	w.next++
	value := w.next
	began := time.Now()
	targets := w.Targets()
	tag := ""
	if p := w.tag.Load(); p != nil {
		tag = *p
	}
	for _, t := range targets {
		t.Observer.Writing(ObjectKey{Cluster: t.Cluster, Kind: kind, Name: name}, value, began, tag)
	}
	err := w.client.Patch(ctx, newObject(kind, name, value), client.RawPatch(types.MergePatchType, patchData(kind, value)))
	if apierrors.IsNotFound(err) {
		err = w.client.Create(ctx, newObject(kind, name, value))
	}
	if err != nil {
		for _, t := range targets {
			t.Observer.Failed(ObjectKey{Cluster: t.Cluster, Kind: kind, Name: name}, value)
		}
	} else {
		w.exists[id] = true
	}
	w.count(err)
	return err
}

func (w *Writer) count(err error) {
	if err == nil {
		w.ok.Add(1)
		return
	}
	w.failed.Add(1)
	w.mu.Lock()
	w.lastErr = err
	w.mu.Unlock()
}

// objectName is the name of the i-th object of each kind.
func objectName(i int) string { return fmt.Sprintf("obj-%d", i) }

// newObject returns an object of the kind in Namespace with data "v" = value.
func newObject(kind, name string, value int64) client.Object {
	meta := metav1.ObjectMeta{Namespace: Namespace, Name: name}
	if kind == KindSecret {
		return &corev1.Secret{ObjectMeta: meta, Data: map[string][]byte{"v": []byte(formatValue(value))}}
	}
	return &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"v": formatValue(value)}}
}

// patchData is a merge patch setting data "v" to value.
func patchData(kind string, value int64) []byte {
	v := formatValue(value)
	if kind == KindSecret {
		v = base64.StdEncoding.EncodeToString([]byte(v))
	}
	return fmt.Appendf(nil, `{"data":{"v":%q}}`, v)
}
