package host

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// Mount makes a directory of the host visible to the guest (a WASI
// preopen): the guest's paths under GuestDir resolve inside HostDir only,
// whatever "..", absolute paths or symbolic links they go through, and a
// file outside every mount does not exist for the guest (ENOENT). A mount
// is read-only unless Writable.
type Mount struct {
	HostDir  string // an existing directory of the host
	GuestDir string // where the guest sees it: absolute and clean ("/data")
	Writable bool
}

// Defaults of the file limits (Policy.MaxFileReadBytes, MaxFileWriteBytes
// and MaxOpenFiles), which apply only when the policy mounts something.
const (
	DefaultMaxFileReadBytes  = 1 << 30
	DefaultMaxFileWriteBytes = 256 << 20
	DefaultMaxOpenFiles      = 64
)

// ErrMount is wrapped by the errors of a policy's mounts.
var ErrMount = errors.New("mount")

// mountsWithDefaults checks p's mounts and sets the file limits' defaults.
func (p *Policy) mountsWithDefaults() error {
	if p.MaxFileReadBytes == 0 {
		p.MaxFileReadBytes = DefaultMaxFileReadBytes
	}
	if p.MaxFileWriteBytes == 0 {
		p.MaxFileWriteBytes = DefaultMaxFileWriteBytes
	}
	if p.MaxOpenFiles == 0 {
		p.MaxOpenFiles = DefaultMaxOpenFiles
	}
	if p.MaxOpenFiles < 0 {
		return fmt.Errorf("policy: MaxOpenFiles %d must not be negative", p.MaxOpenFiles)
	}
	guests := map[string]bool{}
	p.Mounts = slices.Clone(p.Mounts) // the caller's stay as they are
	for i, m := range p.Mounts {
		if err := m.check(); err != nil {
			return fmt.Errorf("policy: Mounts[%d]: %w", i, err)
		}
		// Relative to the working directory of Load, not of each run.
		abs, err := filepath.Abs(m.HostDir)
		if err != nil {
			return fmt.Errorf("policy: Mounts[%d]: %w: host directory: %w", i, ErrMount, err)
		}
		p.Mounts[i].HostDir = abs
		if guests[m.GuestDir] {
			return fmt.Errorf("policy: Mounts[%d]: %w: guest directory %s is mounted twice", i, ErrMount, m.GuestDir)
		}
		guests[m.GuestDir] = true
	}
	return nil
}

// check checks one mount.
func (m Mount) check() error {
	if m.HostDir == "" {
		return fmt.Errorf("%w: no host directory", ErrMount)
	}
	fi, err := os.Stat(m.HostDir)
	if err != nil {
		return fmt.Errorf("%w: host directory: %w", ErrMount, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: host directory %s is not a directory", ErrMount, m.HostDir)
	}
	if !path.IsAbs(m.GuestDir) || path.Clean(m.GuestDir) != m.GuestDir {
		return fmt.Errorf("%w: guest directory %q must be an absolute, clean path (like /data)", ErrMount, m.GuestDir)
	}
	return nil
}

// checkMountsOn refuses what the engine named cannot enforce: wasmtime's
// WASI does not tell the host how a write changes a file's size, so
// MaxMountBytes needs wazero.
func (p *Policy) checkMountsOn(engineName string) error {
	if engineName == "wasmtime" && p.MaxMountBytes > 0 && slices.ContainsFunc(p.Mounts, func(m Mount) bool { return m.Writable }) {
		return fmt.Errorf("policy: %w: MaxMountBytes needs the wazero engine (wasmtime's WASI cannot bound a writable mount's size)", ErrMount)
	}
	return nil
}

// engineMounts returns p's mounts and file limits for an instance.
func (p *Policy) engineMounts() ([]engine.Mount, *engine.Files) {
	if len(p.Mounts) == 0 {
		return nil, nil
	}
	ms := make([]engine.Mount, len(p.Mounts))
	for i, m := range p.Mounts {
		ms[i] = engine.Mount{HostDir: m.HostDir, GuestDir: m.GuestDir, Writable: m.Writable}
	}
	return ms, engine.NewFiles(engine.FileLimits{
		MaxRead: p.MaxFileReadBytes, MaxWrite: p.MaxFileWriteBytes,
		MaxOpen: p.MaxOpenFiles, MaxMountBytes: p.MaxMountBytes,
	})
}

// ParseMount parses a mount in the command line's form,
// HOSTDIR:GUESTDIR[:rw] (":ro", read-only, is the default): the last
// colon before GUESTDIR splits, so a host path may hold colons
// (C:\data:/data). It checks the form only; Load checks the directory.
func ParseMount(s string) (Mount, error) {
	m := Mount{}
	rest := s
	if r, ok := strings.CutSuffix(rest, ":rw"); ok {
		rest, m.Writable = r, true
	} else if r, ok := strings.CutSuffix(rest, ":ro"); ok {
		rest = r
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return Mount{}, fmt.Errorf("%w %q: want HOSTDIR:GUESTDIR[:rw]", ErrMount, s)
	}
	m.HostDir, m.GuestDir = rest[:i], rest[i+1:]
	if m.HostDir == "" {
		return Mount{}, fmt.Errorf("%w %q: no host directory (want HOSTDIR:GUESTDIR[:rw])", ErrMount, s)
	}
	if !path.IsAbs(m.GuestDir) || path.Clean(m.GuestDir) != m.GuestDir {
		return Mount{}, fmt.Errorf("%w %q: guest directory %q must be an absolute, clean path (like /data)", ErrMount, s, m.GuestDir)
	}
	return m, nil
}

// String writes m in ParseMount's form.
func (m Mount) String() string {
	if m.Writable {
		return m.HostDir + ":" + m.GuestDir + ":rw"
	}
	return m.HostDir + ":" + m.GuestDir
}

// decodeMounts decodes a manifest's policy.mounts: a sequence whose items
// are ParseMount's strings or mappings of host_dir, guest_dir and
// writable.
func decodeMounts(n *yaml.Node) ([]Mount, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, errors.New("want a sequence of mounts (HOSTDIR:GUESTDIR[:rw], or host_dir, guest_dir, writable)")
	}
	var out []Mount
	for i, item := range n.Content {
		m, err := decodeMount(item)
		if err != nil {
			return nil, fmt.Errorf("[%d] (line %d): %w", i, item.Line, err)
		}
		out = append(out, m)
	}
	return out, nil
}

func decodeMount(n *yaml.Node) (Mount, error) {
	if n.Kind == yaml.ScalarNode {
		return ParseMount(n.Value)
	}
	if n.Kind != yaml.MappingNode {
		return Mount{}, errors.New("want HOSTDIR:GUESTDIR[:rw] or a mapping of host_dir, guest_dir, writable")
	}
	var m Mount
	seen := map[string]bool{}
	for k := 0; k+1 < len(n.Content); k += 2 {
		key, val := n.Content[k], n.Content[k+1]
		if seen[key.Value] {
			return Mount{}, fmt.Errorf("%s: given twice", key.Value)
		}
		seen[key.Value] = true
		var err error
		switch key.Value {
		case "host_dir":
			err = val.Decode(&m.HostDir)
		case "guest_dir":
			err = val.Decode(&m.GuestDir)
		case "writable":
			err = val.Decode(&m.Writable)
		default:
			return Mount{}, fmt.Errorf("%s: no such field (have: host_dir, guest_dir, writable)", key.Value)
		}
		if err != nil {
			return Mount{}, fmt.Errorf("%s: %w", key.Value, err)
		}
	}
	if m.HostDir == "" {
		return Mount{}, errors.New("host_dir: missing")
	}
	if !path.IsAbs(m.GuestDir) || path.Clean(m.GuestDir) != m.GuestDir {
		return Mount{}, fmt.Errorf("%w: guest_dir %q must be an absolute, clean path (like /data)", ErrMount, m.GuestDir)
	}
	return m, nil
}
