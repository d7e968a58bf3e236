# The project's commands. `make demo` needs only Go; `make test` installs
# every toolchain the tests need (apt, npm from lock files) and runs them all.

GO ?= go
comma := ,
WASM_OUT := build/wasm

.PHONY: demo test tools guests check generate vet unit unit-wasmtime unit-cann standin bench bench-baseline perf-table perf-compare serve-bench fuzz soak clean serve-test deploy-test image

# The main job: the roundtrip sample (a Go plugin) on the simulated device.
demo:
	mkdir -p $(WASM_OUT)
	GOOS=wasip1 GOARCH=wasm $(GO) build -o $(WASM_OUT)/roundtrip.wasm ./samples/roundtrip
	$(GO) run ./cmd/aclwasm run --stats $(WASM_OUT)/roundtrip.wasm

# Everything CI runs.
test: tools guests vet unit unit-wasmtime unit-cann serve-test deploy-test

tools:
	bash scripts/install-toolchains.sh

guests:
	bash scripts/build-guests.sh

# The one gate: formatting, vet and staticcheck under every build tag the
# project uses, tidy modules, fresh generated files. gofmt reads tracked and
# untracked Go files alike. The tidy and generate steps may rewrite files:
# the gate fails when they changed anything, and prints what they changed
# (measured against the tree as it was when the gate began, so unrelated
# uncommitted edits are neither reported nor fatal). Under CI (CI=true) it
# also fails on any difference from the commit.
# staticcheck is built once for this machine, so that it can also analyze
# for another GOOS (the Go guest SDK as wasip1).
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(CURDIR)/build/bin/staticcheck-$(STATICCHECK_VERSION)
# Every Go module of the repository (the root, guest-sdk/go, and any other).
GO_MODULES = $(sort $(patsubst %/,%,$(dir $(shell git ls-files --cached --others --exclude-standard '*go.mod'))))

$(STATICCHECK):
	mkdir -p build/bin/tmp
	GOBIN=$(CURDIR)/build/bin/tmp $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv build/bin/tmp/staticcheck $@

GO_FILES = $(shell git ls-files --cached --others --exclude-standard '*.go')

check: $(STATICCHECK)
	@files=$$(gofmt -l $(GO_FILES)); test -z "$$files" || { echo "$$files"; echo 'gofmt: the files above need formatting'; exit 1; }
	@mkdir -p build && bash scripts/tree-state.sh > build/check-before.txt
	for m in $(GO_MODULES); do (cd $$m && $(GO) mod tidy && $(GO) vet ./... && $(STATICCHECK) ./...) || exit 1; done
	# The build tags: the second engine (cgo) and OpenTelemetry tracing
	# (cmd/aclwasm/otel.go); the Go guest SDK also as the guest it is.
	$(GO) vet -tags wasmtime ./...
	$(STATICCHECK) -tags wasmtime ./...
	$(GO) vet -tags otel ./...
	$(STATICCHECK) -tags otel ./...
	# staticcheck v0.8.2 takes a //go:wasmexport function for unused (U1000),
	# so the examples, whose exports are those, go without that check.
	cd guest-sdk/go && GOOS=wasip1 GOARCH=wasm $(GO) vet ./... && \
		GOOS=wasip1 GOARCH=wasm $(STATICCHECK) ./acl/... && \
		GOOS=wasip1 GOARCH=wasm $(STATICCHECK) -checks inherit,-U1000 ./examples/...
	# The files derived from the tables (make generate).
	$(MAKE) --no-print-directory generate
	@bash scripts/tree-state.sh > build/check-after.txt; \
	if ! cmp -s build/check-before.txt build/check-after.txt; then \
		diff build/check-before.txt build/check-after.txt | sed -n 's/^[<>] \([^ ]*\) .*/\1/p' | sort -u; \
		echo 'check: the steps above rewrote the files listed (a stale generated file or an untidy go.mod or go.sum): commit the result'; exit 1; \
	fi
	@if [ -n "$${CI:-}" ]; then git diff --exit-code && test -z "$$(git status --porcelain)" || { git status --short; echo 'check (CI): the tree differs from the commit'; exit 1; }; fi

# The files derived from the tables abi.Funcs and acl.Order: the sandbox's
# import table (host/internal/sandbox/internal/importgen), the signature
# blocks of docs/ABI.md (abi/internal/specgen), the SDKs' binding layers
# (guest-sdk/generate.go) and docs/check-order.md. The sandbox's table
# first: the SDK generator builds the sandbox.
generate:
	$(GO) generate ./host/internal/sandbox ./abi ./guest-sdk
	$(GO) test ./acl -run TestCheckOrderDoc -count=1 -update

# check, then the builds CI ships: no cgo, the otel CLI, and the CLI for
# Windows and macOS (the native backend is linux/darwin only, acl/cann is
# empty on Windows).
vet: check
	CGO_ENABLED=0 $(GO) build ./...
	CGO_ENABLED=0 $(GO) build -tags otel -o /dev/null ./cmd/aclwasm
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null ./cmd/aclwasm
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/aclwasm
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) vet ./cmd/aclwasm ./acl/...

# go test starts the packages in the order given, two at a time on two
# cores: the longest go first (tests, host, cmd/aclwasm: minutes each), so
# that the short ones fill the other core, and no long one begins near the
# end while the other core idles. ./... does not run them again.
UNIT_FIRST := ./tests/ ./host/ ./cmd/aclwasm/
unit:
	$(GO) test -race -count=1 -timeout 30m $(UNIT_FIRST) ./...
	cd guest-sdk/go && $(GO) test -race -count=1 -timeout 30m ./...

# The deploy module (deploy/go.mod: the image builder and the Helm chart,
# whose dependencies stay out of the main module; ./... does not reach it).
# staticcheck is check's binary: go run would link it again on every run.
deploy-test: $(STATICCHECK)
	cd deploy && $(GO) vet ./... && $(STATICCHECK) ./... && $(GO) test -race -count=1 -timeout 30m ./...

# The container image, built by deploy/cmd/mkimage without a Docker daemon
# or a base image, into build/image/aclwasm.tar (docker load, podman load),
# with its SBOM beside it (build/image/aclwasm.cdx.json, CycloneDX);
# PUSH=REGISTRY/REPO:TAG pushes it too (the Docker config's credentials).
# The image carries whole Debian 12 packages, IMAGE_DEBS (deploy/image's
# Packages; a test keeps the two equal), downloaded for each platform by
# scripts/image-debs.sh (apt-get download) into build/image/debs/ARCH,
# unless DEBS_ARCH=DIR gives a directory of their .deb files.
# IMAGE_PLATFORMS=linux/amd64,linux/arm64... builds each; the tar holds
# the first; a push of several is an index (docs/DEPLOY.md).
IMAGE_VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
IMAGE_PLATFORMS ?= linux/$(shell $(GO) env GOARCH)
IMAGE_DEBS = base-files ca-certificates gcc-12-base libc6 libgcc-s1 libstdc++6
image:
	mkdir -p build/image
	for p in $(subst $(comma), ,$(IMAGE_PLATFORMS)); do \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -buildvcs=auto -o build/image/aclwasm-$${p%/*}-$${p#*/} ./cmd/aclwasm || exit 1; \
	done
	$(foreach p,$(subst $(comma), ,$(IMAGE_PLATFORMS)),$(if $(DEBS_$(notdir $(p))),,bash scripts/image-debs.sh build/image/debs/$(notdir $(p)) $(notdir $(p)) $(IMAGE_DEBS) &&)) true
	cd deploy && SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct) $(GO) run ./cmd/mkimage \
		$(foreach p,$(subst $(comma), ,$(IMAGE_PLATFORMS)),-binary $(p)=../build/image/aclwasm-$(subst /,-,$(p)) -debs $(p)=$(abspath $(or $(DEBS_$(notdir $(p))),build/image/debs/$(notdir $(p))))) \
		-version $(IMAGE_VERSION) -revision $$(git rev-parse HEAD) -out ../build/image/aclwasm.tar -sbom ../build/image/aclwasm.cdx.json $(if $(PUSH),-push $(PUSH))

# Every test that runs guests, again on the second engine (cgo): the
# packages whose tests pick the engine (testsupport.Engine) or have files
# of the wasmtime build tag. The others (the wazero engine's own tests, the
# kernel sets') would run exactly as in unit, at the cost of a cgo link each.
# The longest first, as in unit.
ENGINE_PKGS = $(sort $(patsubst %,./%/,$(shell git grep --untracked -lE 'testsupport\.Engine\(\)|go:build.*wasmtime' -- '*_test.go' | xargs -n1 dirname)))
# Of those, the tests that run no guest (the docs' code blocks, built with
# their toolchains; the C SDK's headers against a libc sysroot) run in unit.
ENGINE_FREE := ^(TestDocBlocks|TestNativeHeadersDeferToLibc)$$
unit-wasmtime:
	$(if $(strip $(ENGINE_PKGS)),,$(error unit-wasmtime: git grep found no package whose tests pick the engine))
	ACLWASM_TEST_ENGINE=wasmtime $(GO) test -race -count=1 -timeout 30m -tags wasmtime -skip '$(ENGINE_FREE)' $(foreach p,$(UNIT_FIRST),$(filter $(p),$(ENGINE_PKGS))) $(filter-out $(UNIT_FIRST),$(ENGINE_PKGS))

# The sandbox's guest tests again, delegating to the native backend over the
# stand-in libascendcl.so and operator library (C libraries with the native
# ABI; no NPU here); and the sample tests that run on the native backend
# when ACLWASM_TEST_ACL_LIB names one (NATIVE_SAMPLES), on both engines;
# and the CLI's --kernel-file, whose kernels only the native backend runs.
NATIVE_SAMPLES := ^(TestNNChain|TestSampleNotifyPipeline|TestNativeSection12Backends)$$
unit-cann: standin
	ACLWASM_TEST_ACL_LIB=$(CURDIR)/$(STANDIN) $(GO) test -race -count=1 -timeout 30m -run '^TestKernelFile(Serve)?$$' ./cmd/aclwasm/
	ACLWASM_TEST_ACL_LIB=$(CURDIR)/$(STANDIN) ACLWASM_TEST_OPAPI_LIB=$(CURDIR)/$(STANDIN_OPS) $(GO) test -race -count=1 -timeout 30m ./host/ ./host/internal/sandbox/ ./examples/...
	ACLWASM_TEST_ACL_LIB=$(CURDIR)/$(STANDIN) ACLWASM_TEST_OPAPI_LIB=$(CURDIR)/$(STANDIN_OPS) $(GO) test -race -count=1 -timeout 30m -run '$(NATIVE_SAMPLES)' ./tests/
	ACLWASM_TEST_ENGINE=wasmtime ACLWASM_TEST_ACL_LIB=$(CURDIR)/$(STANDIN) ACLWASM_TEST_OPAPI_LIB=$(CURDIR)/$(STANDIN_OPS) $(GO) test -race -count=1 -timeout 30m -tags wasmtime -run '$(NATIVE_SAMPLES)' ./tests/

# The stand-in native libraries (acl/cann/testdata/standin): libascendcl.so,
# and beside it the operator library as the toolkit lays it out,
# libnnopbase.so (tensors and their relatives) and libopapi.so (the
# operators, linking libnnopbase.so through its $ORIGIN and finding
# libascendcl.so beside it).
STANDIN_SRC := acl/cann/testdata/standin
STANDIN := build/standin/libascendcl.so
STANDIN_BASE := build/standin/libnnopbase.so
STANDIN_OPS := build/standin/libopapi.so
STANDIN_CC := gcc -shared -fPIC -O2 -fvisibility=hidden

standin: $(STANDIN) $(STANDIN_OPS)

$(STANDIN): $(STANDIN_SRC)/standin.c $(STANDIN_SRC)/mdl.c
	mkdir -p $(@D)
	$(STANDIN_CC) -o $@ $< -lpthread

$(STANDIN_BASE): $(STANDIN_SRC)/nnopbase.c $(STANDIN_SRC)/nn.h
	mkdir -p $(@D)
	$(STANDIN_CC) -o $@ $<

$(STANDIN_OPS): $(STANDIN_SRC)/opapi.c $(STANDIN_SRC)/nn.h $(STANDIN) $(STANDIN_BASE)
	$(STANDIN_CC) -o $@ $< -L$(@D) -lnnopbase -Wl,-rpath,'$$ORIGIN' -ldl -lpthread -lm

# aclwasm serve on 127.0.0.1, checked with curl: statuses, parallel
# requests, hot reload, /metrics, SIGTERM (the Go tests of serve/ run in unit).
serve-test:
	bash scripts/serve-test.sh

# The Go benchmarks, long enough to compare: 1s each, 6 times, into
# build/bench/current.txt, then benchstat against build/bench/baseline.txt
# when there is one (`make bench-baseline` saves the current run as it; a
# baseline is only worth comparing on the machine that measured it, so it
# stays untracked under build/).
# `aclwasm bench` is the user-facing suite (README, Performance).
BENCHSTAT := $(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
BENCH ?= .
BENCHFLAGS ?= -benchtime 1s -count 6
bench:
	mkdir -p build/bench
	{ $(GO) test -run '^$$' -bench '$(BENCH)' $(BENCHFLAGS) ./...; echo $$? > build/bench/status; } | tee build/bench/current.txt
	exit $$(cat build/bench/status)
	if [ -f build/bench/baseline.txt ]; then $(BENCHSTAT) build/bench/baseline.txt build/bench/current.txt; \
	else echo "no build/bench/baseline.txt: make bench-baseline saves one"; fi

bench-baseline:
	test -f build/bench/current.txt || $(MAKE) bench
	cp build/bench/current.txt build/bench/baseline.txt

# The performance goals (BenchmarkGoal* in host/) on both engines, printed
# as the README's performance table (into build/perf/table.md).
perf-table:
	GO=$(GO) BENCHFLAGS='$(BENCHFLAGS)' SERVE_BENCHFLAGS='$(SERVE_BENCHFLAGS)' SERVE_MEMFLAGS='$(SERVE_MEMFLAGS)' bash scripts/perf-table.sh

# The goal benchmarks of BASE (a commit) and of the working tree, in
# alternating rounds on this machine, printed as two tables (into
# build/perf/compare.md): the before and after of a change.
BASE ?= HEAD~1
perf-compare:
	GO=$(GO) bash scripts/perf-compare.sh $(BASE)

# serve's benchmarks (serve/bench_test.go): echo through serve against a
# bare net/http + wazero floor at 1, 16 and 64 clients, HTTP and HTTPS, and
# idle pooled instances' memory against bare wazero instances, printed as a
# table of the goals (into build/perf/serve-table.md).
SERVE_BENCHFLAGS ?= -benchtime 20000x -count 5
SERVE_MEMFLAGS ?= -benchtime 2000x -count 5
serve-bench:
	GO=$(GO) SERVE_BENCHFLAGS='$(SERVE_BENCHFLAGS)' SERVE_MEMFLAGS='$(SERVE_MEMFLAGS)' bash scripts/serve-bench.sh

# Every fuzz target of the sandbox (host/internal/sandbox/fuzz_*_test.go:
# the imports by family, the operator library's, the callbacks and kernel
# launches; host/fuzz_*_test.go: the lease ranges, the compilation
# cache's entries, Load's rewrites; the module readers and rewrites of
# host/internal/module) and of serve's requests and access decisions, one
# after the other, FUZZTIME each; their seeds (testdata/fuzz) run in `unit`.
# FuzzOps fuzzes the operator table (acl/aclnn). FuzzDifferential and
# FuzzDifferential32 (the acl32 profile) run last with every configuration:
# wazero and wasmtime on the simulator, and wazero on the native backend
# over the stand-in.
FUZZTIME ?= 30s
FUZZ_SANDBOX := FuzzImports FuzzImports32 FuzzCopies FuzzBatches Fuzz2D FuzzDescriptors FuzzMemory FuzzStreams FuzzDevice FuzzNN FuzzCallbacks FuzzKernel
FUZZ_HOST := FuzzLend FuzzCacheEntry FuzzPrepare
fuzz: standin
	for t in $(FUZZ_SANDBOX); do $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) ./host/internal/sandbox/ || exit 1; done
	for t in $(FUZZ_HOST); do $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) ./host/ || exit 1; done
	$(GO) test -run '^$$' -fuzz '^FuzzRewrites$$' -fuzztime $(FUZZTIME) ./host/internal/module/
	$(GO) test -run '^$$' -fuzz '^FuzzServeRequest$$' -fuzztime $(FUZZTIME) ./serve/
	$(GO) test -run '^$$' -fuzz '^FuzzAccessRoute$$' -fuzztime $(FUZZTIME) ./serve/
	$(GO) test -run '^$$' -fuzz '^FuzzOps$$' -fuzztime $(FUZZTIME) ./acl/aclnn/
	for t in FuzzDifferential FuzzDifferential32; do ACLWASM_TEST_ACL_LIB=$(CURDIR)/$(STANDIN) $(GO) test -tags wasmtime -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) ./host/internal/sandbox/ || exit 1; done

# The soak (tests/soak_test.go): SOAK_SESSIONS concurrent workers of
# well-behaved and hostile plugins for SOAK_DURATION; `unit` runs it for 3s.
SOAK_DURATION ?= 5m
SOAK_SESSIONS ?= 256

soak: guests
	SOAK_DURATION=$(SOAK_DURATION) SOAK_SESSIONS=$(SOAK_SESSIONS) $(GO) test -count=1 -timeout 0 -run '^TestSoak$$' -v ./tests/

clean:
	rm -rf build guest-sdk/c/build
