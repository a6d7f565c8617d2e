// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Reasons of the Events the provider records on Secrets.
const (
	// ReasonKubeconfigMissing (Warning): the Secret has no kubeconfig under Options.KubeconfigSecretKey.
	ReasonKubeconfigMissing = "KubeconfigMissing"
	// ReasonInvalidKubeconfig (Warning): the kubeconfig cannot be turned into a rest.Config, or a RESTOptions
	// function rejected it.
	ReasonInvalidKubeconfig = "InvalidKubeconfig"
	// ReasonEngageFailed (Warning): building the cluster, syncing its cache or engaging it failed; the provider
	// retries with backoff. It is the reason of every provider built on clusters.Engager.
	ReasonEngageFailed = clusters.ReasonEngageFailed
	// ReasonEngaged (Normal): the cluster described by the Secret is engaged. It is the reason of every provider
	// built on clusters.Engager.
	ReasonEngaged = clusters.ReasonEngaged
)

// actionReadKubeconfig is the action (events.k8s.io/v1) of the Events about the kubeconfig of a Secret; those about
// engaging its cluster have clusters.ActionEngage.
const actionReadKubeconfig = "ReadKubeconfig"

// Reconcile brings the cluster named after a Secret in line with the Secret, and returns at once: it tells the
// provider's clusters.Engager what the cluster should be, which engages it in the background once the manager has
// started the provider (see Start and the package documentation), so one cluster whose cache is slow to sync never
// delays another. It is called by the provider's controller; callers need not call it.
//
//   - Secret gone, or without the label: its cluster is disengaged.
//   - Kubeconfig missing or invalid: a Warning Event on the Secret and an error log say why, naming the Secret and
//     the key; a cluster engaged from an earlier version of the Secret is disengaged. There is no retry until the
//     Secret changes.
//   - Kubeconfig unchanged: nothing happens.
//   - Kubeconfig new or changed: the cluster is built and engaged, replacing the previous one of the same name.
//
// Credentials never appear in its logs, errors or Events.
func (p *Provider) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	name := multicluster.ClusterName(req.Name)
	log := logf.FromContext(ctx).WithValues("cluster", name)
	if p.secrets == nil {
		return ctrl.Result{}, errors.New("kubeconfig provider: SetupWithManager has not been called")
	}
	if req.Namespace != p.opts.Namespace {
		return ctrl.Result{}, nil
	}

	secret := &corev1.Secret{}
	if err := p.secrets.Get(ctx, req.NamespacedName, secret); err != nil {
		if apierrors.IsNotFound(err) {
			p.remove(ctx, log, name, "the Secret was deleted or lost its label")
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("kubeconfig provider: reading Secret %s: %w", req.NamespacedName, err)
	}
	if _, labelled := secret.Labels[p.opts.KubeconfigSecretLabel]; !labelled || secret.DeletionTimestamp != nil {
		p.remove(ctx, log, name, "the Secret is being deleted or lost its label")
		return ctrl.Result{}, nil
	}

	target, err := p.targetFrom(secret)
	if err != nil {
		var serr *secretError
		reason := ReasonInvalidKubeconfig
		if errors.As(err, &serr) {
			reason = serr.reason
		}
		log.Error(err, "Secret does not describe a usable cluster; the cluster is not engaged",
			"secret", req.NamespacedName.String(), "key", p.opts.KubeconfigSecretKey, "reason", reason)
		p.engager.Eventf(secret, corev1.EventTypeWarning, reason, actionReadKubeconfig, "%s", err.Error())
		p.remove(ctx, log, name, "the Secret does not describe a usable cluster")
		return ctrl.Result{}, nil
	}
	p.engager.Want(name, target)
	return ctrl.Result{}, nil
}

// targetFrom reads the cluster a Secret describes: its kubeconfig, turned into a rest.Config under
// Options.KubeconfigPolicy (clusters.RESTConfigFromKubeconfig), adjusted by every RESTOptions function, and a
// reference to the Secret (namespace, name, UID and resource version, nothing of its data) for the Events. Errors
// are *secretError and name the Secret and the key, never a credential.
func (p *Provider) targetFrom(secret *corev1.Secret) (clusters.Target, error) {
	key := p.opts.KubeconfigSecretKey
	data, ok := secret.Data[key]
	if !ok || len(data) == 0 {
		what := "has no key"
		if ok {
			what = "has an empty key"
		}
		return clusters.Target{}, &secretError{
			reason: ReasonKubeconfigMissing,
			msg:    fmt.Sprintf("Secret %s/%s %s %q holding a kubeconfig", secret.Namespace, secret.Name, what, key),
		}
	}
	cfg, err := clusters.RESTConfigFromKubeconfig(data, p.opts.KubeconfigPolicy)
	if err != nil {
		return clusters.Target{}, &secretError{
			reason: ReasonInvalidKubeconfig,
			msg: fmt.Sprintf("key %q of Secret %s/%s does not hold a valid kubeconfig: %s", key, secret.Namespace,
				secret.Name, redact(err.Error(), secret.Data)),
			err: err,
		}
	}
	for i, adjust := range p.opts.RESTOptions {
		if err := adjust(cfg); err != nil {
			return clusters.Target{}, &secretError{
				reason: ReasonInvalidKubeconfig,
				msg: fmt.Sprintf("key %q of Secret %s/%s: RESTOptions[%d] rejected the kubeconfig: %s", key,
					secret.Namespace, secret.Name, i, redact(err.Error(), secret.Data)),
				err: err,
			}
		}
	}
	return clusters.Target{
		Config: cfg,
		Object: &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
			Namespace: secret.Namespace, Name: secret.Name, UID: secret.UID, ResourceVersion: secret.ResourceVersion,
		}},
		Source: p.source(secret.Namespace, secret.Name),
	}, nil
}

// secretError says why a Secret does not describe a usable cluster. Its message is safe to log and to record in an
// Event: it names the Secret and the key and has credentials redacted. The wrapped error, if any, is the original
// one and may not be.
type secretError struct {
	reason string
	msg    string
	err    error
}

func (e *secretError) Error() string { return e.msg }
func (e *secretError) Unwrap() error { return e.err }

// redactMinLength is the length from which a run of credential-like characters in an error message is redacted if
// it also occurs in the Secret.
const redactMinLength = 12

// redact replaces with "[redacted]" every run of credential-like characters (letters, digits, and + / = _ - .) in
// msg that is at least redactMinLength long, is not a plain lowercase name (such as "certificate-authority-data")
// and occurs in one of the Secret's values. Parse errors of client-go do not quote values; this keeps it so
// whatever a future version prints.
func redact(msg string, data map[string][]byte) string {
	var b strings.Builder
	runStart := -1
	flush := func(end int) {
		if runStart < 0 {
			return
		}
		run := msg[runStart:end]
		runStart = -1
		if len(run) >= redactMinLength && !isPlainName(run) && occursIn(run, data) {
			b.WriteString("[redacted]")
			return
		}
		b.WriteString(run)
	}
	for i, r := range msg {
		if isCredentialRune(r) {
			if runStart < 0 {
				runStart = i
			}
			continue
		}
		flush(i)
		b.WriteRune(r)
	}
	flush(len(msg))
	return b.String()
}

func isCredentialRune(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("+/=_-.", r))
}

// isPlainName reports whether s looks like a field name: lowercase letters and dashes only.
func isPlainName(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r != '-' && (r < 'a' || r > 'z') }) < 0
}

func occursIn(s string, data map[string][]byte) bool {
	for _, v := range data {
		if strings.Contains(string(v), s) {
			return true
		}
	}
	return false
}
