//go:build wasmtime && cgo

package host

import "github.com/aclwasm/aclwasm/host/internal/engine/wasmtime"

func init() { engines["wasmtime"] = wasmtime.New }
