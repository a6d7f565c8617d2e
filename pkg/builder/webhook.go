package builder

import (
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// WebhookBuilder builds admission webhooks served by the host manager. Webhooks receive admission requests from
// the host cluster's API server, so they are built on the host manager: pass mgr.GetLocalManager().
type WebhookBuilder struct {
	blder *builder.WebhookBuilder
}

// WebhookManagedBy returns a builder of webhooks registered with the (host) manager m.
func WebhookManagedBy(m manager.Manager) *WebhookBuilder {
	return &WebhookBuilder{blder: builder.WebhookManagedBy(m)}
}

// For sets the type the webhooks admit.
func (blder *WebhookBuilder) For(apiType runtime.Object) *WebhookBuilder {
	blder.blder.For(apiType)
	return blder
}

// WithDefaulter sets the defaulting (mutating) webhook.
func (blder *WebhookBuilder) WithDefaulter(defaulter admission.CustomDefaulter, opts ...admission.DefaulterOption) *WebhookBuilder {
	blder.blder.WithDefaulter(defaulter, opts...)
	return blder
}

// WithValidator sets the validating webhook.
func (blder *WebhookBuilder) WithValidator(validator admission.CustomValidator) *WebhookBuilder {
	blder.blder.WithValidator(validator)
	return blder
}

// WithLogConstructor sets how the webhooks build the logger of each request.
func (blder *WebhookBuilder) WithLogConstructor(logConstructor func(base logr.Logger, req *admission.Request) logr.Logger) *WebhookBuilder {
	blder.blder.WithLogConstructor(logConstructor)
	return blder
}

// RecoverPanic sets whether panics in the webhooks are recovered (default true).
func (blder *WebhookBuilder) RecoverPanic(recoverPanic bool) *WebhookBuilder {
	blder.blder.RecoverPanic(recoverPanic)
	return blder
}

// WithCustomPath serves the webhook under a custom path instead of the generated one.
func (blder *WebhookBuilder) WithCustomPath(customPath string) *WebhookBuilder {
	blder.blder.WithCustomPath(customPath) //nolint:staticcheck // kept for compatibility with controller-runtime's builder
	return blder
}

// Complete registers the webhooks with the manager's webhook server.
func (blder *WebhookBuilder) Complete() error {
	return blder.blder.Complete()
}
