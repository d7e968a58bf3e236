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
