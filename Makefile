SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

ROOT := $(abspath .)
BIN := $(ROOT)/bin

# golangci-lint v2, built from the Go module proxy with the local Go toolchain. Bump the version here only.
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
GOLANGCI_LINT_PKG := github.com/golangci/golangci-lint/v2/cmd/golangci-lint

# Extra flags, e.g. `make test GO_TEST_FLAGS='-count=1 -run TestFoo'` or `make lint GOLANGCI_LINT_FLAGS=--fix`.
GO_TEST_FLAGS ?=
GOLANGCI_LINT_FLAGS ?=
export GO_TEST_FLAGS

# go build with a line of progress every BUILD_PROGRESS_INTERVAL seconds while it compiles (a first build on a fresh
# machine compiles client-go and controller-runtime); see hack/go-build.sh.
GO_BUILD := $(ROOT)/hack/go-build.sh

# Every Go module of the repository (root first); see hack/test-all-modules.sh.
MODULES = $(shell hack/test-all-modules.sh --list)

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  %-10s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development

.PHONY: test
test: ## go vet + go test -race in every module (builds etcd and kube-apiserver once, into a cache).
	@assets=$$(hack/envtest-assets.sh); \
	echo "KUBEBUILDER_ASSETS=$$assets"; \
	KUBEBUILDER_ASSETS="$$assets" hack/test-all-modules.sh

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint in every module.
	@failed=""; \
	for mod in $(MODULES); do \
		echo "=== golangci-lint: module $$mod ==="; \
		(cd "$$mod" && $(GOLANGCI_LINT) run --config "$(ROOT)/.golangci.yml" $(GOLANGCI_LINT_FLAGS) ./...) || failed="$$failed $$mod"; \
	done; \
	if [[ -n "$$failed" ]]; then echo "golangci-lint failed in:$$failed" >&2; exit 1; fi

.PHONY: fmt
fmt: $(GOLANGCI_LINT) ## Format the code of every module (gofmt, goimports).
	@for mod in $(MODULES); do \
		(cd "$$mod" && $(GOLANGCI_LINT) fmt --config "$(ROOT)/.golangci.yml" ./...); \
	done

.PHONY: tidy
tidy: ## go mod tidy in every module.
	@for mod in $(MODULES); do (cd "$$mod" && go mod tidy); done

.PHONY: verify
verify: $(GOLANGCI_LINT) ## Fail if any module is not formatted or its go.mod/go.sum is not tidy.
	@for mod in $(MODULES); do \
		echo "=== verify: module $$mod ==="; \
		(cd "$$mod" && go mod tidy -diff && $(GOLANGCI_LINT) fmt --config "$(ROOT)/.golangci.yml" --diff ./...); \
	done

##@ Demo

# Flags for demo-sharded, e.g. DEMO_SHARDED_FLAGS='-clusters 20 -step 10s'; see examples/sharded-namespace/demo.
DEMO_SHARDED_FLAGS ?=
# Flags for the demo, e.g. `make demo DEMO_FLAGS='-clusters 5 -duration 2m'` or DEMO_FLAGS=-keep; see hack/demo.
DEMO_FLAGS ?=

.PHONY: demo
demo: ## Run the quickstart controller on a local fleet of real control planes (builds etcd and kube-apiserver once).
	@assets=$$(hack/envtest-assets.sh); \
	cd hack/demo && GOWORK=off $(GO_BUILD) -o "$(BIN)/demo" . && KUBEBUILDER_ASSETS="$$assets" "$(BIN)/demo" $(DEMO_FLAGS)

.PHONY: demo-sharded
demo-sharded: ## Run three replicas of a sharded controller on a local control plane and narrate who owns which cluster.
	@assets=$$(hack/envtest-assets.sh); \
	cd examples/sharded-namespace && GOWORK=off $(GO_BUILD) -o "$(BIN)/demo-sharded" ./demo && \
	KUBEBUILDER_ASSETS="$$assets" "$(BIN)/demo-sharded" $(DEMO_SHARDED_FLAGS)

##@ Reliability

# How long `make soak` inflicts faults, its seed (0: a new one, printed) and extra flags for its go test.
SOAK_DURATION ?= 30m
SOAK_SEED ?= 0
SOAK_FLAGS ?=
# Where `make soak` writes its figures (docs/reliability.md quotes them).
SOAK_FIGURES ?= $(BIN)/soak-figures.txt

.PHONY: soak
soak: ## Randomized soak on real control planes: member kills, stalls, rotations, additions, removals (SOAK_DURATION=30m, SOAK_SEED=0).
	@assets=$$(hack/envtest-assets.sh); mkdir -p "$(BIN)"; \
	cd test/faults && KUBEBUILDER_ASSETS="$$assets" GOWORK=off go test -race -count=1 -v -timeout 0 -run '^TestSoak$$' ./soak \
		-soak.duration=$(SOAK_DURATION) -soak.seed=$(SOAK_SEED) -soak.figures="$(SOAK_FIGURES)" $(SOAK_FLAGS)

# Every fuzz target, as <module directory>:<package>:<target>. Each runs for FUZZ_TIME (hack/fuzz-target.sh).
FUZZ_TARGETS = \
	providers/file:.:FuzzParseKubeconfig \
	providers/file:.:FuzzRedact \
	providers/file:.:FuzzOptions \
	.:./providers/kubeconfig:FuzzDesiredFrom \
	.:./pkg/clusters:FuzzRESTConfigFromKubeconfig \
	.:./providers/multi:FuzzClusterName \
	.:./pkg/util/sanitize:FuzzDNS1123 \
	providers/cluster-inventory-api:./access:FuzzNewFromFile \
	providers/cluster-inventory-api:./access:FuzzBuildConfigFromCP
FUZZ_TIME ?= 5m

.PHONY: fuzz
fuzz: ## Run every fuzz target for FUZZ_TIME (default 5m each; CI runs them for 10s). Crashers land in testdata/fuzz.
	@for t in $(FUZZ_TARGETS); do \
		mod=$${t%%:*}; rest=$${t#*:}; pkg=$${rest%%:*}; target=$${rest#*:}; \
		echo "=== fuzz $$target ($$mod $$pkg) for $(FUZZ_TIME)"; \
		hack/fuzz-target.sh "$$mod" "$$pkg" "$$target" "$(FUZZ_TIME)" || exit 1; \
	done

##@ Benchmarks

# Where `make bench` writes results.json, results.txt (the table) and heap profiles, and where it writes the charts of docs/performance.md.
BENCH_OUT ?= $(ROOT)/bench/results
BENCH_CHARTS ?= $(ROOT)/docs/images
# Extra flags for mcbench, e.g. BENCH_FLAGS=-only=noisy.
BENCH_FLAGS ?=

.PHONY: bench
bench: ## Run the benchmark suite in full on real control planes (~14 min on 2 cores); writes results and charts.
	@assets=$$(hack/envtest-assets.sh); \
	cd bench && GOWORK=off $(GO_BUILD) -o "$(BIN)/mcbench" ./cmd/mcbench && \
	KUBEBUILDER_ASSETS="$$assets" "$(BIN)/mcbench" -out "$(BENCH_OUT)" -charts "$(BENCH_CHARTS)" $(BENCH_FLAGS)

.PHONY: bench-quick
bench-quick: ## Run every benchmark scenario small, to prove the suite runs (measures nothing; writes nothing).
	@assets=$$(hack/envtest-assets.sh); \
	cd bench && GOWORK=off $(GO_BUILD) -o "$(BIN)/mcbench" ./cmd/mcbench && KUBEBUILDER_ASSETS="$$assets" "$(BIN)/mcbench" -quick $(BENCH_FLAGS)

##@ Tools

$(GOLANGCI_LINT): # Installed only when this exact version is missing.
	@echo "installing golangci-lint $(GOLANGCI_LINT_VERSION) into $(BIN)"
	@rm -rf "$(BIN)/.install" && mkdir -p "$(BIN)/.install"
	GOBIN="$(BIN)/.install" go install $(GOLANGCI_LINT_PKG)@$(GOLANGCI_LINT_VERSION)
	@mv "$(BIN)/.install/golangci-lint" "$@" && rm -rf "$(BIN)/.install"
	@ln -sf "$(notdir $@)" "$(BIN)/golangci-lint"

.PHONY: clean
clean: ## Remove bin/ and test output (keeps the envtest binary cache).
	rm -rf "$(BIN)" cover.out
