//go:build !(wasmtime && cgo)

package host

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWasmtimeEngineNeedsTag(t *testing.T) {
	_, err := NewRuntime(context.Background(), WithEngine("wasmtime"))
	require.ErrorContains(t, err, "build with -tags wasmtime (cgo)")
}
