package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/kernels/basic"
	"github.com/aclwasm/aclwasm/host/kernels/cannexamples"
)

// kernelSets are the kernel sets the CLI links (ABI section 13.3): every
// runtime of run, call, check and serve registers them, and a plugin may
// launch those its policy grants (--kernels, a manifest's policy.kernels).
var kernelSets = map[string]func() []host.Kernel{
	basic.Set:        basic.Kernels,
	cannexamples.Set: cannexamples.Kernels,
}

// kernelSetNames lists the sets, sorted, for help and messages.
func kernelSetNames() []string {
	names := make([]string, 0, len(kernelSets))
	for n := range kernelSets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// kernelOptions registers the linked sets.
func kernelOptions() []host.Option {
	var opts []host.Option
	for _, n := range kernelSetNames() {
		opts = append(opts, host.WithKernelSet(n, kernelSets[n]()...))
	}
	return opts
}

// checkKernelGrants refuses a --kernels entry that names neither a linked
// set nor a kernel of one.
func checkKernelGrants(grants []string) error {
	for _, g := range grants {
		if _, ok := kernelSets[g]; ok {
			continue
		}
		found := false
		for _, ks := range kernelSets {
			found = found || slices.ContainsFunc(ks(), func(k host.Kernel) bool { return k.Name == g })
		}
		if !found {
			return fmt.Errorf("--kernels %q: no such kernel set or kernel (sets: %s)", g, strings.Join(kernelSetNames(), ", "))
		}
	}
	return nil
}
