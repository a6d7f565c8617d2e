// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package leases

import (
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
)

func TestName(t *testing.T) {
	if got := Name("mcr-shard", "team-a"); got != "mcr-shard-team-a" {
		t.Errorf("a valid name is changed: %q", got)
	}
	seen := map[string]string{}
	for _, suffix := range []string{"Team_A", "team_a", "a/b:c", strings.Repeat("x", 300), "", "..."} {
		got := Name("mcr-shard", suffix)
		if errs := validation.IsDNS1123Subdomain(got); len(errs) != 0 {
			t.Errorf("Name(%q) = %q, not a valid name: %v", suffix, got, errs)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("Name(%q) and Name(%q) are both %q", suffix, other, got)
		}
		seen[got] = suffix
	}
	if got := LabelValue(strings.Repeat("y", 100)); len(validation.IsValidLabelValue(got)) != 0 {
		t.Errorf("LabelValue of a long value = %q, not valid", got)
	}
}

func TestList(t *testing.T) {
	enc := EncodeList([]string{"b", "a", "b", "with,comma"})
	if enc != `["a","b","with,comma"]` {
		t.Errorf("EncodeList = %s", enc)
	}
	if got := DecodeList(enc); len(got) != 3 || got[2] != "with,comma" {
		t.Errorf("DecodeList = %q", got)
	}
	if EncodeList(nil) != "[]" || DecodeList("") != nil || DecodeList("not json") != nil {
		t.Error("empty and malformed lists")
	}
}

// A Lease expires once seen unchanged for its duration, whatever its renewTime says.
func TestObservedExpiry(t *testing.T) {
	seen := time.Now()
	o := Observed{
		Lease: &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{
			LeaseDurationSeconds: ptr.To(int32(10)),
			RenewTime:            ptr.To(metav1.NewMicroTime(seen.Add(100 * 365 * 24 * time.Hour))),
		}},
		Since: seen,
	}
	if o.Expired(seen.Add(9*time.Second), time.Minute) {
		t.Error("expired before its duration")
	}
	if !o.Expired(seen.Add(10*time.Second), time.Minute) {
		t.Error("not expired after its duration, because its renewTime is in the future")
	}
	o.Lease.Spec.LeaseDurationSeconds = nil
	if o.Duration(time.Minute) != time.Minute {
		t.Error("a Lease without a duration does not take the default")
	}
}

// A tracker keeps the time a Lease was first seen at its resourceVersion across lists.
func TestTrackerKeepsFirstSeen(t *testing.T) {
	tr := NewTracker(nil, "ns", nil, time.Second, testLogger(t), nil)
	now := time.Now()
	tr.now = func() time.Time { return now }
	l := coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1"}}
	tr.replace([]coordinationv1.Lease{l})
	now = now.Add(5 * time.Second)
	tr.replace([]coordinationv1.Lease{l})
	if o, _ := tr.Get("a"); !o.Since.Equal(now.Add(-5 * time.Second)) {
		t.Error("an unchanged Lease was seen anew by a list")
	}
	l.ResourceVersion = "2"
	tr.Observe(&l)
	if o, _ := tr.Get("a"); !o.Since.Equal(now) {
		t.Error("a changed Lease kept its old time")
	}
	tr.replace(nil)
	if _, ok := tr.Get("a"); ok {
		t.Error("a Lease gone from the list is still there")
	}
}
