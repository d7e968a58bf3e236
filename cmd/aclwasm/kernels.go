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

// kernelFileSets reads the --kernel-file files once: each registers its
// kernels, which only have native binaries, as the set it names. A set or
// a kernel that another file or a linked set has too is an error naming
// both.
func (f *sandboxFlags) kernelFileSets() ([]*host.KernelFile, error) {
	if f.fileSets != nil || len(f.kernelFiles) == 0 {
		return f.fileSets, nil
	}
	owner := map[string]string{} // a set's or a kernel's name -> where it comes from
	for _, n := range kernelSetNames() {
		owner[n] = "a linked set"
		for _, k := range kernelSets[n]() {
			owner[k.Name] = "linked set " + n
		}
	}
	var out []*host.KernelFile
	for _, path := range f.kernelFiles {
		kf, err := host.ReadKernelFile(path)
		if err != nil {
			return nil, fmt.Errorf("--kernel-file: %w", err)
		}
		names := []string{kf.Set}
		for _, k := range kf.Kernels {
			names = append(names, k.Name)
		}
		for i, n := range names {
			what := "set"
			if i > 0 {
				what = "kernel"
			}
			if o, ok := owner[n]; ok {
				return nil, fmt.Errorf("--kernel-file %s: %s %s is a name of %s too: a grant must name one thing", path, what, n, o)
			}
			owner[n] = "--kernel-file " + path
		}
		out = append(out, kf)
	}
	f.fileSets = out
	return out, nil
}

// kernelOptions registers the linked sets and the --kernel-file sets.
func (f *sandboxFlags) kernelOptions() ([]host.Option, error) {
	var opts []host.Option
	for _, n := range kernelSetNames() {
		opts = append(opts, host.WithKernelSet(n, kernelSets[n]()...))
	}
	files, err := f.kernelFileSets()
	if err != nil {
		return nil, err
	}
	for _, kf := range files {
		opts = append(opts, host.WithKernelSet(kf.Set, kf.Kernels...))
	}
	return opts, nil
}

// checkKernelGrants refuses a --kernels entry that names no set or
// kernel, linked or of a --kernel-file.
func (f *sandboxFlags) checkKernelGrants(grants []string) error {
	files, err := f.kernelFileSets()
	if err != nil {
		return err
	}
	for _, g := range grants {
		if _, ok := kernelSets[g]; ok {
			continue
		}
		found := false
		for _, ks := range kernelSets {
			found = found || slices.ContainsFunc(ks(), func(k host.Kernel) bool { return k.Name == g })
		}
		sets := kernelSetNames()
		for _, kf := range files {
			found = found || kf.Set == g || slices.ContainsFunc(kf.Kernels, func(k host.Kernel) bool { return k.Name == g })
			sets = append(sets, kf.Set)
		}
		if !found {
			return fmt.Errorf("--kernels %q: no such kernel set or kernel (sets: %s)", g, strings.Join(sets, ", "))
		}
	}
	return nil
}
