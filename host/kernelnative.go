package host

import (
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/aclwasm/aclwasm/acl"
)

// nativeKernels are the native functions of a plugin's granted kernels,
// on a backend that runs kernel binaries (acl.KernelRunner, the native
// backend): loaded with the plugin, unloaded with it.
type nativeKernels struct {
	kr    acl.KernelRunner
	bins  []acl.KernelBinary
	funcs map[string]acl.KernelFunc // by kernel name
}

// loadNativeKernels loads the binaries of the granted kernels that name
// one, each file once, and their entries; nil when the backend runs no
// kernel binaries. An error names the kernel, and nothing stays loaded.
func (r *Runtime) loadNativeKernels(granted map[string]*kernel) (*nativeKernels, error) {
	kr := r.backend.Traits().KernelRunner
	if kr == nil {
		return nil, nil
	}
	nk := &nativeKernels{kr: kr, funcs: map[string]acl.KernelFunc{}}
	names := make([]string, 0, len(granted))
	for n, k := range granted {
		if k.decl.Binary != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names) // the same kernel fails first every time
	bins := map[string]acl.KernelBinary{}
	for _, n := range names {
		d := granted[n].decl
		bin, ok := bins[d.Binary]
		if !ok {
			var err error
			if bin, err = kr.LoadKernelBinary(d.Binary); err != nil {
				return nil, errors.Join(fmt.Errorf("kernel %s: loading its binary %s: %w", n, d.Binary, err), nk.unload())
			}
			bins[d.Binary] = bin
			nk.bins = append(nk.bins, bin)
		}
		entry := d.Entry
		if _, err := strconv.ParseUint(entry, 10, 64); entry == "" || err == nil { // a tiling key names no function
			entry = d.Name
		}
		f, err := kr.KernelFunction(bin, entry)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("kernel %s: entry %s of its binary %s: %w", n, entry, d.Binary, err), nk.unload())
		}
		nk.funcs[n] = f
	}
	return nk, nil
}

// unload unloads the binaries; nil does nothing.
func (nk *nativeKernels) unload() error {
	if nk == nil {
		return nil
	}
	var errs []error
	for _, b := range nk.bins {
		if err := nk.kr.UnloadKernelBinary(b); err != nil {
			errs = append(errs, fmt.Errorf("host: unloading a kernel binary: %w", err))
		}
	}
	nk.bins = nil
	return errors.Join(errs...)
}
