package host_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// Prometheus metrics of every session of a runtime: register them once,
// name each plugin at Load, and serve reg (promhttp.HandlerFor) or gather
// it. Here a plugin pulls 16 bytes of a lent device buffer, and the
// counters show the host call, the bytes by direction and the call's
// outcome.
func ExampleNewMetrics() {
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	m, err := host.NewMetrics(reg)
	if err != nil {
		log.Fatal(err)
	}
	rt, err := host.NewRuntime(ctx, host.WithMetrics(m))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	wasm, err := os.ReadFile("testdata/lend.wasm")
	if err != nil {
		log.Fatal(err)
	}
	pl, err := rt.Load(ctx, wasm, host.Policy{MemoryPages: 1}, host.LoadName("lend"))
	if err != nil {
		log.Fatal(err)
	}
	defer pl.Close(ctx)
	inst, err := pl.Instantiate(ctx, host.Config{})
	if err != nil {
		log.Fatal(err)
	}
	b := rt.Backend()
	buf, err := b.Malloc(0, 16, acl.MemMallocHugeFirst)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Free(ctx, buf)
	l, err := inst.Lend(buf, 16, host.LendOptions{ReadOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := inst.Call(ctx, "pull", l.Addr(), 16); err != nil {
		log.Fatal(err)
	}
	if err := inst.Close(ctx); err != nil {
		log.Fatal(err)
	}

	families, err := reg.Gather()
	if err != nil {
		log.Fatal(err)
	}
	var lines []string
	for _, f := range families {
		switch f.GetName() {
		case "aclwasm_calls_total", "aclwasm_bytes_total", "aclwasm_runs_total":
		default:
			continue
		}
		for _, s := range f.GetMetric() {
			var labels []string
			for _, p := range s.GetLabel() {
				labels = append(labels, p.GetName()+"="+p.GetValue())
			}
			lines = append(lines, fmt.Sprintf("%s{%s} %g", f.GetName(), strings.Join(labels, ","), s.GetCounter().GetValue()))
		}
	}
	sort.Strings(lines)
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// aclwasm_bytes_total{direction=D2H,function=aclrtMemcpy,plugin=lend} 16
	// aclwasm_calls_total{function=aclrtMemcpy,plugin=lend} 1
	// aclwasm_calls_total{function=aclrtSetDevice,plugin=lend} 1
	// aclwasm_runs_total{outcome=ok,plugin=lend} 1
}
