package clusters

import logf "sigs.k8s.io/controller-runtime/pkg/log"

var providerLog = logf.Log.WithName("clusters-provider")
