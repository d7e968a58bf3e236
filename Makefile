# The project's commands. `make demo` needs only Go; `make test` installs
# every toolchain the tests need (apt, npm from lock files) and runs them all.

GO ?= go
comma := ,
WASM_OUT := build/wasm

.PHONY: demo test tools guests vet unit unit-wasmtime unit-cann bench bench-baseline perf-table fuzz soak clean serve-test deploy-test image

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

vet:
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	# The Go guest SDK is a module of its own (no ./... above reaches it).
	cd guest-sdk/go && $(GO) vet ./... && GOOS=wasip1 GOARCH=wasm $(GO) vet ./... && $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	CGO_ENABLED=0 $(GO) build ./...
	# OpenTelemetry tracing is opt-in at build time (cmd/aclwasm/otel.go);
	# TestOtelRun in unit runs this build.
	$(GO) vet -tags otel ./cmd/aclwasm
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags otel ./cmd/aclwasm
	CGO_ENABLED=0 $(GO) build -tags otel -o /dev/null ./cmd/aclwasm
	# The CLI is also shipped for Windows and macOS (no cgo; the native
	# backend is linux/darwin only, acl/cann is empty on Windows).
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null ./cmd/aclwasm
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/aclwasm
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) vet ./cmd/aclwasm ./acl/...

unit:
	$(GO) test -race -count=1 ./...
	cd guest-sdk/go && $(GO) test -race -count=1 ./...

# The deploy module (deploy/go.mod: the image builder and the Helm chart,
# whose dependencies stay out of the main module; ./... does not reach it).
deploy-test:
	cd deploy && $(GO) vet ./... && $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./... && $(GO) test -race -count=1 ./...

# The container image, built by deploy/cmd/mkimage without a Docker daemon
# or a base image, into build/image/aclwasm.tar (docker load, podman load);
# PUSH=REGISTRY/REPO:TAG pushes it too (the Docker config's credentials).
# IMAGE_PLATFORMS=linux/amd64,linux/arm64... builds each; all but the
# machine's own need SYSROOT_arm64=DIR (or _amd64): that architecture's C
# library (docs/DEPLOY.md). The tar holds the first; a push of several is
# an index.
IMAGE_VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
IMAGE_PLATFORMS ?= linux/$(shell $(GO) env GOARCH)
image:
	mkdir -p build/image
	for p in $(subst $(comma), ,$(IMAGE_PLATFORMS)); do \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -buildvcs=auto -o build/image/aclwasm-$${p%/*}-$${p#*/} ./cmd/aclwasm || exit 1; \
	done
	cd deploy && SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct) $(GO) run ./cmd/mkimage \
		$(foreach p,$(subst $(comma), ,$(IMAGE_PLATFORMS)),-binary $(p)=../build/image/aclwasm-$(subst /,-,$(p)) $(if $(SYSROOT_$(notdir $(p))),-sysroot $(p)=$(abspath $(SYSROOT_$(notdir $(p)))))) \
		-version $(IMAGE_VERSION) -revision $$(git rev-parse HEAD) -out ../build/image/aclwasm.tar $(if $(PUSH),-push $(PUSH))

# Every test that runs guests, again on the second engine (cgo).
unit-wasmtime:
	$(GO) vet -tags wasmtime ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags wasmtime ./host/
	ACLWASM_TEST_ENGINE=wasmtime $(GO) test -race -count=1 -tags wasmtime ./host/ ./serve/ ./tests/... ./examples/...

# The sandbox's guest tests again, delegating to the native backend over the
# stand-in libascendcl.so (a C library with the native ABI; no NPU here).
unit-cann:
	mkdir -p build/standin
	gcc -shared -fPIC -O2 -fvisibility=hidden -o build/standin/libascendcl.so acl/cann/testdata/standin/standin.c -lpthread
	ACLWASM_TEST_ACL_LIB=$(CURDIR)/build/standin/libascendcl.so $(GO) test -race -count=1 ./host/ ./examples/...

# aclwasm serve on 127.0.0.1, checked with curl: statuses, parallel
# requests, hot reload, /metrics, SIGTERM (the Go tests of serve/ run in unit).
serve-test:
	bash scripts/serve-test.sh

# The Go benchmarks, long enough to compare: 1s each, 6 times, into
# build/bench/current.txt, then benchstat against bench/baseline.txt when
# there is one (`make bench-baseline` saves the current run as it).
# `aclwasm bench` is the user-facing suite (README, Performance).
BENCHSTAT := $(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
BENCH ?= .
BENCHFLAGS ?= -benchtime 1s -count 6
bench:
	mkdir -p build/bench
	{ $(GO) test -run '^$$' -bench '$(BENCH)' $(BENCHFLAGS) ./...; echo $$? > build/bench/status; } | tee build/bench/current.txt
	exit $$(cat build/bench/status)
	if [ -f bench/baseline.txt ]; then $(BENCHSTAT) bench/baseline.txt build/bench/current.txt; \
	else echo "no bench/baseline.txt: make bench-baseline saves one"; fi

bench-baseline:
	test -f build/bench/current.txt || $(MAKE) bench
	cp build/bench/current.txt bench/baseline.txt

# The performance goals (BenchmarkGoal* in host/) on both engines, printed
# as the README's performance table (into build/perf/table.md).
perf-table:
	GO=$(GO) BENCHFLAGS='$(BENCHFLAGS)' bash scripts/perf-table.sh

# Every fuzz target of the sandbox (host/fuzz_*_test.go, the lease ranges,
# the compilation cache's entries, Load's rewrites) and of serve's requests,
# one after the other, FUZZTIME each; their seeds (testdata/fuzz) run in
# `unit`.
# FuzzDifferential runs last with every configuration: wazero and wasmtime
# on the simulator, and wazero on the native backend over the stand-in.
FUZZTIME ?= 30s
FUZZ_TARGETS := FuzzImports FuzzCopies FuzzBatches Fuzz2D FuzzDescriptors FuzzMemory FuzzStreams FuzzDevice FuzzLend FuzzCacheEntry FuzzPrepare
STANDIN := build/standin/libascendcl.so

$(STANDIN): acl/cann/testdata/standin/standin.c
	mkdir -p $(@D)
	gcc -shared -fPIC -O2 -fvisibility=hidden -o $@ $< -lpthread

fuzz: $(STANDIN)
	for t in $(FUZZ_TARGETS); do $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) ./host/ || exit 1; done
	$(GO) test -run '^$$' -fuzz '^FuzzServeRequest$$' -fuzztime $(FUZZTIME) ./serve/
	ACLWASM_TEST_ACL_LIB=$(CURDIR)/$(STANDIN) $(GO) test -tags wasmtime -run '^$$' -fuzz '^FuzzDifferential$$' -fuzztime $(FUZZTIME) ./host/

# The soak (tests/soak_test.go): SOAK_SESSIONS concurrent workers of
# well-behaved and hostile plugins for SOAK_DURATION; `unit` runs it for 3s.
SOAK_DURATION ?= 5m
SOAK_SESSIONS ?= 256

soak: guests
	SOAK_DURATION=$(SOAK_DURATION) SOAK_SESSIONS=$(SOAK_SESSIONS) $(GO) test -count=1 -timeout 0 -run '^TestSoak$$' -v ./tests/

clean:
	rm -rf build
