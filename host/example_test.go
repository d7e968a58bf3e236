package host_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/aclwasm/aclwasm/host"
)

// A command plugin on the simulated device: its exit code and the bytes it
// moved each way.
func Example() {
	ctx := context.Background()
	wasm, err := os.ReadFile("testdata/example.wasm")
	if err != nil {
		log.Fatal(err)
	}
	rt, err := host.NewRuntime(ctx) // wazero, simulated device
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, wasm, host.Policy{DeviceMemory: 64 << 20})
	if err != nil {
		log.Fatal(err)
	}
	defer pl.Close(ctx)
	res, err := pl.Run(ctx, host.Config{Args: []string{"example"}, Stdout: os.Stdout})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("exit code", res.ExitCode)
	fmt.Println("H2D", res.Stats.Bytes["H2D"], "D2H", res.Stats.Bytes["D2H"])
	// Output:
	// exit code 0
	// H2D 4096 D2H 4096
}
