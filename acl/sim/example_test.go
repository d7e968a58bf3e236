package sim_test

import (
	"context"
	"fmt"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// A round trip through device memory: a pinned host buffer copied to the
// device and back on a stream, then a synchronize.
func Example() {
	b := sim.New()
	defer b.Close()
	ctx := context.Background()

	p, _ := b.Malloc(0, 16, acl.MemMallocHugeFirst)
	s, _ := b.CreateStream(0)
	in := []byte("hello, device!!!")
	pin, _ := b.HostRegister(in, acl.HostRegisterMapped)
	out := make([]byte, 16)

	_ = b.MemcpyAsync(ctx, acl.Device(p), acl.Host(in, pin), 16, s)
	_ = b.MemcpyAsync(ctx, acl.Host(out, 0), acl.Device(p), 16, s) // pageable: done on return
	fmt.Println(string(out), b.SynchronizeStream(ctx, s, -1))

	err := b.Memcpy(ctx, acl.Device(p+8), acl.Host(out, 0), 16) // crosses the end
	fmt.Println(acl.CodeOf(err))
	// Output:
	// hello, device!!! <nil>
	// ACL_ERROR_RT_PARAM_INVALID (107000)
}
