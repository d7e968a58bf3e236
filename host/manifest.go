package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/aclwasm/aclwasm/host/internal/sandbox"
	"github.com/aclwasm/aclwasm/internal/confschema"
)

// Manifest describes a plugin in a file: its module, its policy, and the
// environment and configuration values it gets (docs/EMBEDDING.md).
//
//	name: preprocess
//	module:
//	  path: preprocess.wasm       # relative to the manifest's directory
//	  sha256: 9f86d0...           # optional: Load refuses other bytes
//	policy:                       # every Policy field, in snake_case
//	  device_memory: 64MiB        # byte counts: integers or with KiB, MiB, GiB
//	  timeout: 30s                # or none (NoTimeout)
//	  compile_timeout: 10s        # Load's compilation; or none
//	  deny: [aclrtHostRegister]
//	  models: {classifier: cnn.onnx} # approved models: name -> file, relative to the manifest's directory
//	  mounts:                     # host directories the guest sees (read-only unless rw)
//	    - data:/data              # HOSTDIR:GUESTDIR[:rw], relative to the manifest's directory
//	    - {host_dir: out, guest_dir: /out, writable: true}
//	  max_file_write_bytes: 64MiB
//	args: [--verbose]             # argv[1:], after the name
//	env: {LANG: C}                # the guest's environment
//	config: {scale: "0.5"}        # read by the guest with aclwasm.config_read
//	serve:                        # only aclwasm serve reads these
//	  max_concurrent: 4           # runs at once (default: the server's)
//	  export: handle              # a reactor's export for requests
//	  reuse_instances: true       # keep a reactor's instances between requests
type Manifest struct {
	// Name names the plugin (argv[0], logs).
	Name string
	// Path is the module's file, absolute or relative to the manifest.
	Path string
	// SHA256 is the module's expected hash in hex, or "".
	SHA256 string
	Policy Policy
	Args   []string
	Env    map[string]string
	Vars   map[string]string // the manifest's config
	// Serve is how aclwasm serve (package serve) runs the plugin; other
	// users of a manifest ignore it.
	Serve ServeManifest
}

// ServeManifest is a manifest's serve section: what only a server of
// plugins needs, kept apart so that the policy stays what every host
// enforces. Zero values keep the server's defaults.
type ServeManifest struct {
	// MaxConcurrent bounds the plugin's runs at once (more get 429).
	MaxConcurrent int `yaml:"max_concurrent"`
	// Export is the export a reactor's requests call (the server's
	// default is "handle").
	Export string `yaml:"export"`
	// ReuseInstances, when true, has the server keep a reactor's
	// instances between requests (a host.Pool of MaxConcurrent instances)
	// instead of instantiating one per request; false makes every request
	// get a fresh instance; nil keeps the server's default. A kept
	// instance keeps its linear memory, device memory and streams from one
	// request to the next, so the plugin's requests see each other's
	// leftovers: only for plugins written for it. A command (exporting
	// _start, which runs once per instance) cannot be reused: the server
	// refuses one with reuse_instances: true.
	ReuseInstances *bool `yaml:"reuse_instances"`
}

// maxVarLen bounds a config value, so that config_read's result (a
// length) never collides with an aclError code.
const maxVarLen = sandbox.MaxVarLen

// LoadManifest reads and checks the manifest file at path (YAML). Unknown
// fields, wrong types and bad values give an error naming the field and
// its line; nothing is loaded.
func LoadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("host: manifest: %w", err)
	}
	m, err := ParseManifest(b)
	if err != nil {
		return nil, fmt.Errorf("host: manifest %s: %w", path, err)
	}
	if !filepath.IsAbs(m.Path) {
		m.Path = filepath.Join(filepath.Dir(path), m.Path)
	}
	for name, file := range m.Policy.Models {
		if !filepath.IsAbs(file) {
			m.Policy.Models[name] = filepath.Join(filepath.Dir(path), file)
		}
	}
	for i, mt := range m.Policy.Mounts { // relative to the manifest, as the module
		if !filepath.IsAbs(mt.HostDir) {
			m.Policy.Mounts[i].HostDir = filepath.Join(filepath.Dir(path), mt.HostDir)
		}
	}
	return m, nil
}

// manifestFile is the file's layout; policy is decoded field by field
// into Policy (decodePolicy), so that every Policy field is covered.
type manifestFile struct {
	Name   string `yaml:"name"`
	Module struct {
		Path   string `yaml:"path"`
		SHA256 string `yaml:"sha256"`
	} `yaml:"module"`
	Policy yaml.Node         `yaml:"policy"`
	Args   []string          `yaml:"args"`
	Env    map[string]string `yaml:"env"`
	Config map[string]string `yaml:"config"`
	Serve  ServeManifest     `yaml:"serve"`
}

// ParseManifest parses a manifest; a relative module path stays relative.
// The manifest is checked against its JSON Schema first
// (internal/confschema/manifest.schema.json, the one editors use), whose
// errors name the field and its line; the strict decoding and the checks
// that follow refuse what a schema cannot say, and a second YAML document
// in the file.
func ParseManifest(data []byte) (*Manifest, error) {
	f, _, err := decodeStrict[manifestFile](data, confschema.Manifest, "the manifest")
	if err != nil {
		return nil, err
	}
	m := &Manifest{Name: f.Name, Path: f.Module.Path, SHA256: strings.ToLower(f.Module.SHA256), Args: f.Args, Env: f.Env, Vars: f.Config, Serve: f.Serve}
	switch {
	case m.Name == "":
		return nil, errors.New("name: missing: a plugin needs a name")
	case m.Path == "":
		return nil, errors.New("module.path: missing")
	}
	if m.SHA256 != "" {
		if h, err := hex.DecodeString(m.SHA256); err != nil || len(h) != sha256.Size {
			return nil, fmt.Errorf("module.sha256: %q is not 64 hex digits", f.Module.SHA256)
		}
	}
	if m.Serve.MaxConcurrent < 0 {
		return nil, fmt.Errorf("serve.max_concurrent: %d: want at least 1 (or none for the server's default)", m.Serve.MaxConcurrent)
	}
	if e := m.Serve.Export; e == "_start" { // a command is served by _start itself
		return nil, fmt.Errorf("serve.export: %q: want a reactor's export, not _start", e)
	}
	for k, v := range m.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return nil, fmt.Errorf("env.%s: a key must be nonempty without '=' or NUL, a value without NUL", k)
		}
	}
	for k, v := range m.Vars {
		if len(v) > maxVarLen {
			return nil, fmt.Errorf("config.%s: %d bytes, at most %d", k, len(v), maxVarLen)
		}
	}
	if err := decodePolicy(&f.Policy, &m.Policy); err != nil {
		return nil, err
	}
	return m, nil
}

// decodePolicy sets the Policy field of each key of n: device_memory is
// DeviceMemory. Byte counts may carry a unit, durations are Go durations.
func decodePolicy(n *yaml.Node, p *Policy) error {
	if n.Kind == 0 {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("policy (line %d): want a mapping of Policy fields", n.Line)
	}
	v := reflect.ValueOf(p).Elem()
	fields := map[string]int{}
	var names []string
	for i := 0; i < v.NumField(); i++ {
		fields[strings.ToLower(v.Type().Field(i).Name)] = i
		names = append(names, snake(v.Type().Field(i).Name))
	}
	sort.Strings(names)
	seen := map[int]bool{}
	for k := 0; k+1 < len(n.Content); k += 2 {
		key, val := n.Content[k], n.Content[k+1]
		i, ok := fields[strings.ReplaceAll(strings.ToLower(key.Value), "_", "")]
		if !ok || snake(v.Type().Field(i).Name) != key.Value {
			return fmt.Errorf("policy.%s (line %d): no such field (have: %s)", key.Value, key.Line, strings.Join(names, ", "))
		}
		if seen[i] {
			return fmt.Errorf("policy.%s (line %d): given twice", key.Value, key.Line)
		}
		seen[i] = true
		if err := decodeField(val, v.Field(i)); err != nil {
			return fmt.Errorf("policy.%s (line %d): %w", key.Value, val.Line, err)
		}
		if key.Value == "models" {
			if err := checkModels(p.Models); err != nil {
				return fmt.Errorf("policy.models (line %d): %w", val.Line, err)
			}
		}
	}
	return nil
}

func decodeField(n *yaml.Node, f reflect.Value) error {
	switch f.Interface().(type) {
	case time.Duration:
		if n.Value == "none" {
			f.SetInt(int64(NoTimeout))
			return nil
		}
		d, err := time.ParseDuration(n.Value)
		if err != nil || n.Kind != yaml.ScalarNode {
			return fmt.Errorf("%q is not a duration (like 30s, 2m)", n.Value)
		}
		f.SetInt(int64(d))
		return nil
	case []Mount:
		ms, err := decodeMounts(n)
		if err != nil {
			return err
		}
		f.Set(reflect.ValueOf(ms))
		return nil
	case uint64:
		b, err := parseByteCount(n.Value)
		if err != nil || n.Kind != yaml.ScalarNode {
			return fmt.Errorf("%q is not a byte count (like 4096, 64KiB, 1GiB)", n.Value)
		}
		f.SetUint(b)
		return nil
	}
	if err := n.Decode(f.Addr().Interface()); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			return errors.New(strings.Join(te.Errors, "; "))
		}
		return err
	}
	return nil
}

// snake writes a Go field name in snake_case: MaxBatchEntries is
// max_batch_entries.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func parseByteCount(s string) (uint64, error) {
	num, mult := strings.TrimSpace(s), uint64(1)
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n > ^uint64(0)/mult {
		return 0, fmt.Errorf("bad byte count %q", s)
	}
	return n * mult, nil
}

// Config returns the run configuration the manifest describes: argv is
// the name then Args, Env and Vars as given. Stdio stays for the caller.
func (m *Manifest) Config() Config {
	cfg := Config{Args: append([]string{m.Name}, m.Args...), Vars: m.Vars}
	keys := make([]string, 0, len(m.Env))
	for k := range m.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cfg.Env = append(cfg.Env, k+"="+m.Env[k])
	}
	return cfg
}

// Load reads the manifest's module, checks its hash if the manifest gives
// one, and loads it into rt with the manifest's policy, named by the
// manifest's name in metrics and run records (LoadName(m.Name), so that a
// plugin has one name throughout: argv[0], logs, metrics). opts come
// after that name: another LoadName among them overrides it.
func (m *Manifest) Load(ctx context.Context, rt *Runtime, opts ...LoadOption) (*Plugin, error) {
	wasm, err := os.ReadFile(m.Path)
	if err != nil {
		return nil, fmt.Errorf("host: manifest %s: module.path: %w", m.Name, err)
	}
	if m.SHA256 != "" {
		if got := sha256.Sum256(wasm); hex.EncodeToString(got[:]) != m.SHA256 {
			return nil, &LoadError{Problems: []string{fmt.Sprintf("module.sha256: %s has sha256 %x, the manifest expects %s", m.Path, got, m.SHA256)}}
		}
	}
	pl, err := rt.Load(ctx, wasm, m.Policy, append([]LoadOption{LoadName(m.Name)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", m.Name, err)
	}
	return pl, nil
}
