package host

import (
	"context"
	"errors"
	"sort"
	"strings"
)

// The engine adapters are thin: they compile, instantiate and call, and
// route every import of module "acl" to Session.invoke with the guest's
// memory and a stack of parameters. No import logic lives in them.
type engine interface {
	compile(ctx context.Context, wasm []byte) (compiled, error)
	close(ctx context.Context) error
}

type compiled interface {
	imports() []importDesc
	// startExport names the export the module's start function was moved
	// to (hoistStart), "" if it has none: the host calls it first.
	startExport() string
	instantiate(ctx context.Context, s *Session, cfg Config) (instance, error)
	close(ctx context.Context) error
}

type instance interface {
	has(export string) bool
	memory() []byte // the guest's linear memory now, for tests and tools
	call(ctx context.Context, name string, args ...uint64) ([]uint64, error)
	close(ctx context.Context) error
}

// importDesc is one function import of a module.
type importDesc struct {
	module, name string
	signature    string // as abi.Func.Signature writes it
}

// errNoExport and errArgs report a call the instance refused before any
// guest code ran: the instance stays usable.
var (
	errNoExport = errors.New("no such export")
	errArgs     = errors.New("wrong number of arguments")
)

// errStartType refuses a module whose start function takes parameters or
// returns results, as the engines' validation does.
var errStartType = errors.New("start function must have type [] -> []")

// engines are the engine constructors this build has, by name.
var engines = map[string]func(context.Context, engineOptions) (engine, error){}

// engineOptions are the Runtime options an engine applies itself.
type engineOptions struct {
	fuel     uint64 // WithFuel; 0: no fuel metering
	cacheDir string // WithCacheDir; "": in memory only
	// funcs are the host functions outside module "acl", each routed to
	// Session.invokeHost.
	funcs []*hostFunc
}

func engineNames() string {
	var names []string
	for n := range engines {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// memoryBytes returns the bytes of a linear memory limit of pages pages.
func memoryBytes(pages uint32) uint64 { return uint64(pages) << 16 }
