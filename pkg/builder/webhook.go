// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package builder

import (
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// WebhookBuilder builds admission and conversion webhooks for objects of type T, served by the host manager. It is
// controller-runtime's generic webhook builder: webhooks receive admission requests from the host cluster's API
// server only, so they are built on the host manager (pass mgr.GetLocalManager()), and every method of
// controller-runtime's builder (WithDefaulter, WithValidator, WithConverter, WithContextFunc, WithLogConstructor,
// RecoverPanic, the custom paths, and the deprecated WithCustomDefaulter and WithCustomValidator) is available.
type WebhookBuilder[T runtime.Object] = builder.WebhookBuilder[T]

// Defaulter defaults objects of type T; see controller-runtime's admission.Defaulter.
type Defaulter[T runtime.Object] = admission.Defaulter[T]

// Validator validates objects of type T; see controller-runtime's admission.Validator.
type Validator[T runtime.Object] = admission.Validator[T]

// WebhookManagedBy returns a builder of webhooks for objects of obj's type, registered with the (host) manager m
// when Complete is called.
func WebhookManagedBy[T runtime.Object](m manager.Manager, obj T) *WebhookBuilder[T] {
	return builder.WebhookManagedBy(m, obj)
}
