// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/tools/clientcmd"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/file"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) write(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(s + "\n")
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The provider's log lines name files, contexts and clusters, and never show a credential: not of a good file, not
// of a malformed one, not of a context that cannot be loaded.
func TestLogsShowNoCredentials(t *testing.T) {
	const token = "t0ken-do-not-log-0123456789"
	logs := &syncBuffer{}
	ctx := logf.IntoContext(t.Context(), funcr.New(func(prefix, args string) { logs.write(prefix + " " + args) },
		funcr.Options{Verbosity: 10}))

	dir := t.TempDir()
	good := filepath.Join(dir, "good.kubeconfig")
	data := kubeconfig(t, map[string]string{"m": "member-0"})
	kc, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	keyData := kc.AuthInfos["m"].ClientKeyData
	writeFile(t, good, data)
	broken := filepath.Join(dir, "broken.kubeconfig")
	writeFile(t, broken, []byte("users:\n- name: u\n  user:\n    ? {token: "+token+"}\n    : x\n"))
	partial := filepath.Join(dir, "partial.kubeconfig")
	writeFile(t, partial, []byte(`apiVersion: v1
kind: Config
users:
- name: u
  user: {token: `+token+`}
contexts:
- name: orphan
  context: {cluster: missing, user: u}
`))

	p, err := file.New(file.Options{KubeconfigDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	aware := harness.NewEngagements()
	done := make(chan error, 1)
	runCtx, cancel := context.WithCancel(ctx)
	go func() { done <- p.Start(runCtx, aware) }()
	aware.WaitFor(t, harness.DefaultTimeout, "the good file engaged", func() bool { return aware.Cluster(multicluster.ClusterName(good+"+m")) != nil })
	harness.Eventually(t, 0, "both bad files logged", func() bool {
		out := logs.String()
		return strings.Contains(out, broken) && strings.Contains(out, partial) && strings.Contains(out, `"orphan"`)
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	out := logs.String()
	for what, secret := range map[string]string{
		"token":                token,
		"client key":           string(keyData),
		"client key as base64": base64.StdEncoding.EncodeToString(keyData),
	} {
		if strings.Contains(out, secret) {
			t.Errorf("the logs show the %s:\n%s", what, out)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Log(out)
	}
}
