package acl

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/check-order.md from Order")

const orderDoc = "../docs/check-order.md"

// TestCheckOrderDoc keeps docs/check-order.md what renderOrder makes of
// Order: run `go test ./acl -run TestCheckOrderDoc -update` after changing
// Order.
func TestCheckOrderDoc(t *testing.T) {
	got := renderOrder()
	if *update {
		require.NoError(t, os.WriteFile(orderDoc, []byte(got), 0o644))
	}
	want, err := os.ReadFile(orderDoc)
	require.NoError(t, err, "run: go test ./acl -run TestCheckOrderDoc -update")
	require.Equal(t, string(want), got, "docs/check-order.md is stale: run go test ./acl -run TestCheckOrderDoc -update")
}

// TestOrderIsWellFormed: step IDs are unique per function, layers never go
// back from context to the ACL layer, and every native step names where.
func TestOrderIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, fo := range Order {
		require.False(t, seen[fo.Func], "%s twice", fo.Func)
		seen[fo.Func] = true
		ids := map[string]bool{}
		for _, s := range fo.Steps {
			require.False(t, ids[s.ID], "%s: step %s twice", fo.Func, s.ID)
			ids[s.ID] = true
			require.NotEmpty(t, s.Check, "%s/%s", fo.Func, s.ID)
			require.NotEmpty(t, s.Native, "%s/%s", fo.Func, s.ID)
		}
		require.Equal(t, fo.Steps, OrderOf(fo.Func))
	}
	for fn, steps := range UnrecordedSteps {
		for id := range steps {
			i := slices.IndexFunc(OrderOf(fn), func(s Step) bool { return s.ID == id })
			require.GreaterOrEqual(t, i, 0, "UnrecordedSteps: %s has no step %s", fn, id)
			require.True(t, SetsLastError(OrderOf(fn)[i].Code), "UnrecordedSteps: %s/%s has a code outside the runtime family, never recorded anyway", fn, id)
		}
	}
	require.Nil(t, OrderOf("aclrtNoSuchFunction"))
}

// driverNotes are the audit's findings the native runtime leaves to its
// closed driver, and what the sandbox chose for each.
var driverNotes = []string{
	"Device to device between two devices without `aclrtDeviceEnablePeerAccess`: no runtime check on any copy path. The sandbox refuses it with 107000 (step `peer`), per session.",
	"`aclrtMemcpyAsyncWithCondition` on a driver that cannot report user-malloc memory gives 207000 natively (api_error.cc:2813-2818). The sandbox always knows where memory is, so the function behaves as `aclrtMemcpyAsync`.",
	"An asynchronous copy between two unregistered host buffers with an explicit kind H2D, D2H or D2D passes the runtime and reaches the driver (api_error.cc:2730-2735). The sandbox refuses it as host to host: 207000 (107000 for `aclrtMemcpy2dAsync`, the 2D copies' code for that direction).",
	"Unregistered memory to device memory with kind D2D stays D2D natively and is not treated as pageable (api_error.cc:2789-2803). The sandbox copies it as pageable host to device: it waits for the stream and copies before returning.",
	"Asynchronous batches on a driver with FEATURE_MEMCPY_BATCH_ASYNC give 207000 natively (api_impl.cc:8950-8953). The sandbox takes the other native path, entry by entry, with every entry validated first.",
	"Synchronous `aclrtMemset` with count above maxCount: only the driver sees maxCount (npu_driver_mem.cc:772). The sandbox gives 107000, after the device check.",
	"A synchronous batch without a current device, and synchronous batch entries of 0 bytes, reach the driver natively. The sandbox gives 107002 without a device, and checks a 0-byte entry's addresses and locations like any other, then copies nothing.",
	"`aclrtHostRegister` of a range that overlaps a registered one (the V1 path has no runtime check): 507910. Type 12 (IOMEMORY|READONLY) passes the runtime and is accepted.",
	"A handle of a stream destroyed by `aclrtResetDevice`: natively the freed object's magic is read (runtime_handle_guard.cc:110-125). The sandbox's handles are never reused: always 107017.",
	"Copies and memsets into a range registered READONLY give 107000; `aclrtDeviceDisablePeerAccess` of a pair never enabled gives 107000; `aclrtPointerGetAttributes` reports 4 KiB pages for guest memory.",
}

// renderOrder writes Order as the markdown of docs/check-order.md.
func renderOrder() string {
	var b strings.Builder
	b.WriteString(`# Check order, function by function

<!-- Generated from acl.Order (acl/order.go) by: go test ./acl -run TestCheckOrderDoc -update. Do not edit. -->

A failing call returns the code of the first check it fails, so the order
of the checks is part of the contract. The native runtime checks a call on
one path: the ACL layer's argument checks (**ACL**, 100000), the runtime's
entry point (**entry**: zero-size shortcut, chip feature, stream and event
handles, 107017), its error decorator (**range**: ranges and kinds, 107000
and 207000), its implementation (**context**: current device 107002, stream
of another device 107003), then the driver (**exec**). The sandbox runs
each function's checks in the order below; host/order_test.go has one case
per row, run on both engines and both backends.

Basis: **native**: the native runtime's code at the native point;
**driver?**: the native runtime leaves the outcome to its closed driver,
and the row is the sandbox's choice; **sandbox**: a rule of the sandbox
(guest address ranges, quotas), at the point where the native runtime
looks at the same argument; **deviation**: one of the two sandbox rules
that override the native behaviour (see the end).

Native references are path:line in hicann/runtime at commit 681ef76 (ACL
1.17.0): memory.cpp, stream.cpp, device.cpp and event.cpp are in
src/acl/aclrt_impl/, api_c*.cc in src/runtime/api/, api_error.cc and
api_impl.cc in src/runtime/api/impl/. A function name in parentheses
stands for a place the audit did not pin to a line.

`)
	for _, fo := range Order {
		fmt.Fprintf(&b, "## %s\n\n| # | step | check | code | layer | basis | native |\n|---|---|---|---|---|---|---|\n", fo.Func)
		for i, s := range fo.Steps {
			code := "0 (success)"
			if s.Code != Success {
				code = fmt.Sprintf("%d %s", int32(s.Code), s.Code.Name())
			}
			fmt.Fprintf(&b, "| %d | `%s` | %s | %s | %s | %s | %s |\n", i+1, s.ID, escape(s.Check), code, s.Layer, s.Basis, escape(s.Native))
		}
		b.WriteString("\n")
		var quiet []string
		for _, s := range fo.Steps {
			if where, ok := UnrecordedSteps[fo.Func][s.ID]; ok {
				quiet = append(quiet, fmt.Sprintf("`%s` (%s)", s.ID, where))
			}
		}
		if quiet != nil {
			fmt.Fprintf(&b, "Not recorded as the last error (`aclrtGetLastError`), as natively: %s.\n\n", strings.Join(quiet, "; "))
		}
	}
	b.WriteString("## Where the native runtime leaves it to the driver\n\nThe sandbox's choices, where the native outcome is the closed driver's:\n\n")
	for _, n := range driverNotes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	b.WriteString(`
## Differences from the native runtime

Two sandbox rules override native behaviour; everything else above follows it.

- A call that fails has no effect. Natively an asynchronous batch validates
  and launches its entries one at a time, so entries before a bad one run;
  in the sandbox a batch with a bad entry runs none (row ` + "`atomic`" + `).
- An error of queued work surfaces at the next synchronize of its stream
  (or of an event recorded after it, or of the device), and descriptors and
  offset base slots are re-validated when the copy executes (row ` + "`exec`" + `).
`)
	return b.String()
}

func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
