# The project's commands. `make demo` needs only Go; `make test` installs
# every toolchain the tests need (apt, npm from lock files) and runs them all.

GO ?= go
WASM_OUT := build/wasm

.PHONY: demo test tools guests vet unit unit-wasmtime bench clean

# The main job: the roundtrip sample (a Go plugin) on the simulated device.
demo:
	mkdir -p $(WASM_OUT)
	GOOS=wasip1 GOARCH=wasm $(GO) build -o $(WASM_OUT)/roundtrip.wasm ./samples/roundtrip
	$(GO) run ./cmd/aclwasm run --stats $(WASM_OUT)/roundtrip.wasm

# Everything CI runs.
test: tools guests vet unit unit-wasmtime

tools:
	bash scripts/install-toolchains.sh

guests:
	bash scripts/build-guests.sh

vet:
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./...

unit:
	$(GO) test -race -count=1 ./...

# Every test that runs guests, again on the second engine (cgo).
unit-wasmtime:
	$(GO) vet -tags wasmtime ./...
	ACLWASM_TEST_ENGINE=wasmtime $(GO) test -race -count=1 -tags wasmtime ./host/ ./tests/...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2x ./...

clean:
	rm -rf build
