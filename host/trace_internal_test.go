package host

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// TestTraceFollowsTheTable: the trace renders every function from its
// parameters' descriptions in abi.Funcs, with nothing of its own keyed by
// name: each out-parameter that holds one value shows it (failIndex even
// on failure), each enum parameter shows the header's name.
func TestTraceFollowsTheTable(t *testing.T) {
	mem := make([]byte, 0x1000)
	for k := 0; k+8 <= len(mem); k += 8 {
		binary.LittleEndian.PutUint64(mem[k:], 1)
	}
	for fi := range abi.Funcs {
		f := &abi.Funcs[fi]
		stack := make([]uint64, len(f.Params))
		var want, always []int
		for i, p := range f.Params {
			stack[i] = 1
			if p.Type == abi.Gptr {
				stack[i] = uint64(0x100 + 0x40*i)
				if p.Dir != abi.In && p.Len == "" && !p.Kind.IsStruct() {
					want = append(want, i)
					if p.Dir == abi.OutAlways {
						always = append(always, i)
					}
				}
			}
		}
		for _, code := range []acl.Error{acl.Success, acl.ErrInvalidParam} {
			outs := traceOuts(fi, abi.Wide, mem, stack, code)
			var got []int
			for _, o := range outs {
				got = append(got, o.Param)
				require.EqualValues(t, 1, o.Value, "%s.%s", f.Name, f.Params[o.Param].Name)
			}
			if code == acl.Success {
				require.Equal(t, want, got, "%s: out-parameters shown", f.Name)
			} else {
				require.Equal(t, always, got, "%s: out-parameters shown on failure", f.Name)
			}
			line := CallRecord{Func: f, Args: traceArgs(f, stack), Result: int32(code), Code: code, Outs: outs}.String()
			for _, p := range f.Params {
				if p.Enum == nil {
					continue
				}
				switch {
				case p.Enum.Macros: // flags: the number, then their names
					require.Contains(t, line, p.Name+"=1 ("+p.Enum.Name(1)+")", "%s.%s", f.Name, p.Name)
				case p.Type != abi.Gptr:
					require.Contains(t, line, p.Name+"="+p.Enum.Name(1), "%s.%s", f.Name, p.Name)
				case code == acl.Success:
					require.Regexp(t, p.Name+`=0x[0-9a-f]+ -> `+p.Enum.Name(1), line, "%s.%s", f.Name, p.Name)
				}
			}
		}
	}
}
