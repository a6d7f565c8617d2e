// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharding

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// record is one reconcile of a cluster by a replica; end is zero while it runs.
type record struct {
	replica, cluster string
	start, end       time.Time
}

// event is a line the coordinator of a replica logged about a cluster.
type event struct {
	replica, msg, cluster string
	at                    time.Time
	fields                map[string]any
}

// journal collects what every replica printed.
type journal struct {
	mu       sync.Mutex
	records  map[string]*record // by replica, cluster and start
	events   []event
	lastLine map[string]time.Time // by replica: when a line of its output was last read
}

func newJournal() *journal {
	return &journal{records: map[string]*record{}, lastLine: map[string]time.Time{}}
}

// quietSince returns how long ago a line of the replica's output was last read.
func (j *journal) quietSince(replica string) time.Duration {
	j.mu.Lock()
	defer j.mu.Unlock()
	return time.Since(j.lastLine[replica])
}

// stdout parses the START and END lines of a replica.
func (j *journal) stdout(replica string, r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		j.mu.Lock()
		j.lastLine[replica] = time.Now()
		j.mu.Unlock()
		f := strings.Fields(sc.Text())
		if len(f) < 4 || (f[0] != "START" && f[0] != "END") {
			continue
		}
		start, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			continue
		}
		key := f[1] + "/" + f[2] + "/" + f[3]
		j.mu.Lock()
		rec := j.records[key]
		if rec == nil {
			rec = &record{replica: f[1], cluster: f[2], start: time.Unix(0, start)}
			j.records[key] = rec
		}
		if f[0] == "END" && len(f) == 5 {
			if end, err := strconv.ParseInt(f[4], 10, 64); err == nil {
				rec.end = time.Unix(0, end)
			}
		}
		j.mu.Unlock()
	}
}

// stderr parses the JSON log lines of a replica's coordinator that name a cluster, and keeps the last lines.
func (j *journal) stderr(replica string, r io.Reader, tail *tailBuffer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		tail.add(line)
		j.mu.Lock()
		j.lastLine[replica] = time.Now()
		j.mu.Unlock()
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		cl, _ := m["cluster"].(string)
		msg, _ := m["msg"].(string)
		ts, _ := m["ts"].(string)
		at, err := time.Parse(time.RFC3339Nano, ts)
		if cl == "" || err != nil {
			continue
		}
		j.mu.Lock()
		j.events = append(j.events, event{replica: replica, msg: msg, cluster: cl, at: at, fields: m})
		j.mu.Unlock()
	}
}

// snapshot returns copies of the records and events.
func (j *journal) snapshot() ([]record, []event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	recs := make([]record, 0, len(j.records))
	for _, r := range j.records {
		recs = append(recs, *r)
	}
	return recs, append([]event(nil), j.events...)
}

// closeOpen ends, at t, the reconciles of a replica still running (it was killed: they ended with it).
func (j *journal) closeOpen(replica string, t time.Time) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, r := range j.records {
		if r.replica == replica && r.end.IsZero() {
			r.end = t
		}
	}
}

// open reports whether the replica has a reconcile running.
func (j *journal) open(replica string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, r := range j.records {
		if r.replica == replica && r.end.IsZero() {
			return true
		}
	}
	return false
}

// lastStart returns when the replica last started a reconcile.
func (j *journal) lastStart(replica string) time.Time {
	j.mu.Lock()
	defer j.mu.Unlock()
	var last time.Time
	for _, r := range j.records {
		if r.replica == replica && r.start.After(last) {
			last = r.start
		}
	}
	return last
}

// firstStart returns the first reconcile of the cluster after t by a replica other than not ("" for any).
func firstStart(recs []record, cluster string, after time.Time, not string) (record, bool) {
	var best record
	found := false
	for _, r := range recs {
		if r.cluster == cluster && r.replica != not && r.start.After(after) && (!found || r.start.Before(best.start)) {
			best, found = r, true
		}
	}
	return best, found
}

// tailBuffer keeps the last lines of a process's output, for failure reports.
type tailBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *tailBuffer) add(l string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, l)
	if len(b.lines) > 200 {
		b.lines = b.lines[len(b.lines)-200:]
	}
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

// proc is a replica process started by the test; only these processes are ever signalled.
type proc struct {
	id     string
	cmd    *exec.Cmd
	exited chan struct{}
	tail   *tailBuffer
}

// buildReplica builds the replica program.
func buildReplica(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "replica")
	if out, err := exec.Command("go", "build", "-o", bin, "./replica").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startReplica runs a replica process; it is killed when the test ends if it still runs.
func startReplica(t *testing.T, j *journal, bin, kubeconfig, ns, id string) *proc {
	t.Helper()
	p := &proc{id: id, exited: make(chan struct{}), tail: &tailBuffer{}}
	p.cmd = exec.Command(bin, "-id", id, "-namespace", ns,
		"-lease-duration", leaseDuration.String(), "-lease-renew", leaseRenew.String(),
		"-probe", probe.String(), "-rehash", rehash.String(), "-fence-throttle", throttle.String())
	p.cmd.Env = append(p.cmd.Environ(), "KUBECONFIG="+kubeconfig)
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var readers sync.WaitGroup
	readers.Go(func() { j.stdout(id, stdout) })
	readers.Go(func() { j.stderr(id, stderr, p.tail) })
	go func() {
		readers.Wait()
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("last output of replica %s:\n%s", id, p.tail)
		}
	})
	return p
}

// signal sends a signal to the replica process.
func (p *proc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signalling replica %s: %v", p.id, err)
	}
}

// wait waits for the process to exit, for at most d.
func (p *proc) wait(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(d):
		t.Fatalf("replica %s did not exit within %s", p.id, d)
	}
}

// overlaps lists the pairs of reconciles of one cluster by different replicas that overlap in time.
func overlaps(recs []record) []string {
	by := map[string][]record{}
	for _, r := range recs {
		by[r.cluster] = append(by[r.cluster], r)
	}
	var out []string
	for cl, rs := range by {
		for i := range rs {
			for k := range rs {
				a, b := rs[i], rs[k]
				if a.replica >= b.replica {
					continue
				}
				aEnd, bEnd := a.end, b.end
				if aEnd.IsZero() {
					aEnd = time.Now()
				}
				if bEnd.IsZero() {
					bEnd = time.Now()
				}
				if a.start.Before(bEnd) && b.start.Before(aEnd) {
					out = append(out, fmt.Sprintf("cluster %s: %s [%s, %s] and %s [%s, %s]", cl,
						a.replica, a.start.Format("15:04:05.000"), aEnd.Format("15:04:05.000"),
						b.replica, b.start.Format("15:04:05.000"), bEnd.Format("15:04:05.000")))
				}
			}
		}
	}
	return out
}
