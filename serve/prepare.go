package serve

// Prepared runs: a command's next run is made ahead (host.Plugin.Prepare)
// by the request that just ended, once its answer is on its way, so that
// the next request of the command waits for the guest's code alone, not
// for the session and instance it runs in. A request takes a prepared run
// when one is ready and makes its own otherwise; either way each request
// costs one instantiation, made before or after its answer.

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/host"
)

// ahead is a command version's prepared run, when there is one ready;
// n counts it, and the one being made, so that one at most is.
type ahead struct {
	ready chan *host.Prepared // of capacity 1
	n     atomic.Int32
}

// newAhead is the prepared run of a command version, or nil where the
// server prepares none (Config.NoPrepare).
func (s *Server) newAhead() *ahead {
	if s.cfg.NoPrepare {
		return nil
	}
	return &ahead{ready: make(chan *host.Prepared, 1)}
}

// take returns a prepared run of the version, or nil if none is ready.
func (a *ahead) take() *host.Prepared {
	if a == nil {
		return nil
	}
	select {
	case r := <-a.ready:
		a.n.Add(-1)
		return r
	default:
		return nil
	}
}

// reserve makes room for a prepared run of command version v, which the
// request r holds, as r ends, if none is ready or being made and no
// other request of v is in flight (Config.NoPrepare says why): it
// reports whether r's goroutine is to make it (prepareAfter), once r is
// answered, its record logged and v released. A run that cannot be made
// (the plugin closed meanwhile, which Plugin.Prepare reports) is left to
// the request that would have taken it, which makes its own and reports
// why it fails, if it does.
//
// Over HTTP/1 the answer, its length said, is whole once flushed, and the
// run is made on r's goroutine before it reads the connection's next
// request. Over HTTP/2 a stream ends as its handler returns: the run is
// made on a goroutine of its own, started here, which holds v meanwhile.
func (a *ahead) reserve(r *http.Request, v *version) bool {
	if v.inFlight() > 1 {
		return false
	}
	if a.n.Add(1) > 1 {
		a.n.Add(-1)
		return false
	}
	if !v.mem.reserveAhead() { // no room in the memory budget at once
		a.n.Add(-1)
		return false
	}
	if r.ProtoMajor == 1 {
		return true
	}
	v.acquire()
	go func() {
		defer v.release()
		a.prepare(v)
	}()
	return false
}

// prepareAfter flushes the answer written to w, then makes the run
// reserve made room for.
func (a *ahead) prepareAfter(w http.ResponseWriter, v *version) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	} else {
		_ = http.NewResponseController(w).Flush()
	}
	a.prepare(v)
}

// prepare makes a prepared run of v, counted in a.n. Not with a
// request's context: the run is a later request's, and its making, which
// runs no guest code, is bounded by the policy's timeout.
func (a *ahead) prepare(v *version) {
	p, err := v.pl.Prepare(context.Background(), host.Config{Args: v.argv(), Env: v.env, Vars: v.vars, Name: v.name, NoStats: true})
	if err != nil {
		a.n.Add(-1)
		v.mem.dropAhead()
		return
	}
	a.ready <- p // never blocks: n counted it in
}
