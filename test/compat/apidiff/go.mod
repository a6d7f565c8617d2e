module sigs.k8s.io/multicluster-runtime/test/compat/apidiff

go 1.26.0

require (
	golang.org/x/exp v0.0.0-20260410095643-746e56fc9e2f
	golang.org/x/mod v0.37.0
	golang.org/x/tools v0.47.0
)

require golang.org/x/sync v0.21.0 // indirect
