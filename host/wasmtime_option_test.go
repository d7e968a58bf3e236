package host

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWithFuelNeedsWasmtime(t *testing.T) {
	_, err := NewRuntime(context.Background(), WithEngine("wazero"), WithFuel(1000))
	require.ErrorContains(t, err, "fuel metering (WithFuel) needs the wasmtime engine")
}

func TestWasmtimeEngineNeedsTag(t *testing.T) {
	if _, ok := engines["wasmtime"]; ok {
		t.Skip("this build has the wasmtime engine")
	}
	_, err := NewRuntime(context.Background(), WithEngine("wasmtime"))
	require.ErrorContains(t, err, "build with -tags wasmtime (cgo)")
}
