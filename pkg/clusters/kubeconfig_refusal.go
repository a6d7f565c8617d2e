// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrKubeconfigRefused is matched (errors.Is) by every error of RESTConfigFromKubeconfig, RESTConfigForContext and
// KubeconfigPolicy.CheckRESTConfig that refuses a kubeconfig for what its KubeconfigPolicy does not allow.
var ErrKubeconfigRefused = errors.New("kubeconfig refused by its policy")

// KubeconfigRefusedError is the error of a kubeconfig (or rest.Config) refused by a KubeconfigPolicy. It lists
// every refused field, so that the author can fix them all at once. It matches ErrKubeconfigRefused.
type KubeconfigRefusedError struct {
	// Refusals are the refused fields, in the order they were found.
	Refusals []KubeconfigRefusal
}

// KubeconfigRefusal is one field a KubeconfigPolicy refuses. It names the field, never its value.
type KubeconfigRefusal struct {
	// Entry is the kubeconfig entry holding the field, such as `user "admin"` or `cluster "prod"` (the name
	// quoted and cut to 63 bytes), or "rest.Config".
	Entry string
	// Field is the field, as the kubeconfig spells it (tokenFile, exec, insecure-skip-tls-verify, ...) or as
	// rest.Config does.
	Field string
	// Reason says what the field would make the controller do.
	Reason string
	// Option is the KubeconfigPolicy field that would allow it; empty when no option does (a relative path).
	Option string
}

// String formats the refusal: `user "admin": tokenFile names a file ... (set KubeconfigPolicy.AllowLocalFiles to
// allow it)`.
func (r KubeconfigRefusal) String() string {
	s := r.Entry + ": " + r.Field + " " + r.Reason
	if r.Option != "" {
		s += " (set KubeconfigPolicy." + r.Option + " to allow it)"
	}
	return s
}

// Error lists the refusals.
func (e *KubeconfigRefusedError) Error() string {
	parts := make([]string, 0, len(e.Refusals))
	for _, r := range e.Refusals {
		parts = append(parts, r.String())
	}
	return ErrKubeconfigRefused.Error() + ": " + strings.Join(parts, "; ")
}

// Is reports whether target is ErrKubeconfigRefused.
func (e *KubeconfigRefusedError) Is(target error) bool { return target == ErrKubeconfigRefused }

// kubeconfigRefusals collects refusals.
type kubeconfigRefusals []KubeconfigRefusal

// err returns the refusals as an error, or nil if there are none.
func (r kubeconfigRefusals) err() error {
	if len(r) == 0 {
		return nil
	}
	return &KubeconfigRefusedError{Refusals: slices.Clone(r)}
}

// Scrubbing error messages of client-go, which may quote the kubeconfig.
const (
	// maxScrubbedMessage bounds the length of a message scrub returns, and its cost.
	maxScrubbedMessage = 1024
	// minQuotedRun is the length from which a run of a message that also occurs in the kubeconfig is removed.
	minQuotedRun = 8
	// minSecretLength is the length from which a known credential is removed wherever it occurs in a message.
	minSecretLength = 4
	redactionMarker = "[redacted]"
)

// kubeconfigFieldNames are the words of kubeconfigs that error messages quote and that are never credentials.
var kubeconfigFieldNames = map[string]bool{
	"apiVersion": true, "clusters": true, "contexts": true, "current-context": true, "preferences": true,
	"extensions": true, "certificate-authority": true, "certificate-authority-data": true,
	"insecure-skip-tls-verify": true, "tls-server-name": true, "proxy-url": true, "disable-compression": true,
	"client-certificate": true, "client-certificate-data": true, "client-key": true, "client-key-data": true,
	"tokenFile": true, "act-as": true, "act-as-uid": true, "act-as-groups": true, "act-as-user-extra": true,
	"username": true, "password": true, "auth-provider": true, "namespace": true, "interactiveMode": true,
	"installHint": true, "provideClusterInfo": true, "extension": true,
}

// scrub returns an error message of client-go fit for logs and Events: cut to maxScrubbedMessage bytes, with every
// one of secrets (at least minSecretLength long) and every run of at least minQuotedRun characters that also occurs
// in data (the kubeconfig) and is not a field name replaced by "[redacted]". A run is what lies between spaces,
// quotes, brackets and separators (, ; :), so that a quoted value is one run.
func scrub(msg string, data []byte, secrets []string) string {
	if len(msg) > maxScrubbedMessage {
		msg = strings.ToValidUTF8(msg[:maxScrubbedMessage], "") + "..."
	}
	// Longest first, so that a secret containing another is removed whole.
	secrets = slices.DeleteFunc(slices.Clone(secrets), func(s string) bool { return len(s) < minSecretLength })
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, redactionMarker)
	}
	if len(data) == 0 {
		return msg
	}
	var b strings.Builder
	for len(msg) > 0 {
		end := strings.IndexFunc(msg, isRunSeparator)
		if end == 0 {
			_, size := utf8.DecodeRuneInString(msg)
			b.WriteString(msg[:size])
			msg = msg[size:]
			continue
		}
		if end < 0 {
			end = len(msg)
		}
		run := msg[:end]
		msg = msg[end:]
		if len(run) >= minQuotedRun && !kubeconfigFieldNames[run] && bytes.Contains(data, []byte(run)) {
			run = redactionMarker
		}
		b.WriteString(run)
	}
	return b.String()
}

func isRunSeparator(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("\"'`()[]{}<>,;:", r)
}
