package wazero

import (
	"io"
	"os"

	"github.com/tetratelabs/wazero"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// stdio is a module configuration whose stdin, stdout, stderr and sleep
// are routed to those of the instance it is lent to: a command run per
// request has streams of its own every time, and setting them (and the
// sleep, the instance's own) copied the configuration four times, two
// allocations each. Configurations are made once per argsConfig and
// kept there (argsConfig.stdio) between instances: an instance takes one
// when it is made and gives it back when its module is closed, when no
// guest of it runs any more to read, write or sleep through it.
type stdio struct {
	home *argsConfig
	has  int                 // the streams routed: 1 stdin, 2 stdout, 4 stderr
	mc   wazero.ModuleConfig // home's, routed to the fields below
	in   engine.InRoute
	out  engine.OutRoute
	err  engine.OutRoute
	mk   *making // the instance's, for its sleeps
}

// routable reports whether an instance with these streams can take a
// stdio: wazero gives an *os.File its own file type (a terminal, an fd)
// and polls a reader that can be polled, which a route would hide.
func routable(in io.Reader, out, errw io.Writer) bool {
	switch in.(type) {
	case *os.File, experimentalsys.Pollable:
		return false
	}
	_, o := out.(*os.File)
	_, e := errw.(*os.File)
	return !o && !e
}

// take lends a stdio of c's configuration to the instance whose making
// is mk, routed to the streams it has: those it has not are wazero's
// defaults (no input, output discarded), which cost wazero an
// allocation less each than a route.
func (c *argsConfig) take(in io.Reader, out, errw io.Writer, mk *making) *stdio {
	var has int
	if in != nil {
		has |= 1
	}
	if out != nil {
		has |= 2
	}
	if errw != nil {
		has |= 4
	}
	s, _ := c.stdio[has].Get().(*stdio)
	if s == nil {
		s = &stdio{home: c, has: has}
		mc := c.mc
		if in != nil {
			mc = mc.WithStdin(&s.in)
		}
		if out != nil {
			mc = mc.WithStdout(&s.out)
		}
		if errw != nil {
			mc = mc.WithStderr(&s.err)
		}
		if !c.det {
			mc = mc.WithNanosleep(s.sleep)
		}
		s.mc = mc
	}
	s.in.R, s.out.W, s.err.W, s.mk = in, out, errw, mk
	return s
}

// release gives s back to its configuration, routed nowhere; the
// instance's module is closed.
func (s *stdio) release() {
	s.in.R, s.out.W, s.err.W, s.mk = nil, nil, nil, nil
	s.home.stdio[s.has].Put(s)
}

func (s *stdio) sleep(ns int64) { s.mk.sleep(ns) }
