package sandbox

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclwasm/aclwasm/acl/sim/model"
)

// modelCache holds the approved models a runtime's sessions loaded, so
// that a model is compiled once and shared read-only between sessions
// granted it (a Model runs from several goroutines at once). A model is
// known by its file's path, size and modification time: a file changed
// since is loaded again, and the old model stays with the sessions that
// hold it. Each session that loaded a model holds a reference to it
// until the session ends (its queued executions may still run the model
// after aclmdlUnload); a model the cache no longer holds (its file
// changed, or the runtime closed) is closed once the last reference goes.
type modelCache struct {
	mu     sync.Mutex // held across a load: one compilation per file at a time
	m      map[modelKey]*cachedModel
	closed bool // the runtime closed: nothing is cached any more

	// native are the offline models the node's runtime holds loaded for
	// the sessions (one native load per guest load, never shared), by
	// file version, while at least one is loaded: listed beside the
	// compiled ones, so that an embedder sees what models cost on either
	// backend.
	native map[modelKey]*cachedModel
}

type modelKey struct {
	path  string
	size  int64
	mtime time.Time
}

// cachedModel is a model of the cache and what it cost and did.
type cachedModel struct {
	m        *model.Model
	load     time.Duration // the compilation
	loads    atomic.Uint64 // aclmdlLoadFromFile calls that got it
	runs     atomic.Uint64 // executions, those that failed, their time
	failed   atomic.Uint64
	runNs    atomic.Int64
	loadedAt time.Time

	// Guarded by the cache's mu.
	refs    int  // sessions holding it; natively, its loads not yet unloaded
	evicted bool // no longer in the cache: closed at the last release

	// An offline model of the native backend (m is nil): the device
	// memory each load of it holds (aclmdlQuerySize).
	native       bool
	work, weight uint64
}

// ran counts an execution of the model that took d.
func (cm *cachedModel) ran(d time.Duration, failed bool) {
	cm.runs.Add(1)
	cm.runNs.Add(int64(d))
	if failed {
		cm.failed.Add(1)
	}
}

// loadModel returns the model in the file at path, from the cache when
// the file has not changed since it was loaded, and whether the cache had
// it.
func (sh *Shared) loadModel(path string) (*cachedModel, bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	k := modelKey{path, st.Size(), st.ModTime()}
	c := &sh.models
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, false, errors.New("the runtime is closed")
	}
	if cm, ok := c.m[k]; ok {
		cm.loads.Add(1)
		cm.refs++
		return cm, true, nil
	}
	t0 := time.Now()
	m, err := model.Load(path)
	if err != nil {
		return nil, false, err
	}
	cm := &cachedModel{m: m, load: time.Since(t0), loadedAt: t0, refs: 1}
	cm.loads.Add(1)
	if c.m == nil {
		c.m = map[modelKey]*cachedModel{}
	}
	for k, old := range c.m {
		if k.path == path { // the file changed: its old model goes with its last session
			delete(c.m, k)
			c.evict(old)
		}
	}
	c.m[k] = cm
	return cm, false, nil
}

// nativeLoaded records a native load of the offline model at path that
// took d from t0 and holds work and weight bytes of device memory, and
// returns its entry, which nativeUnloaded releases.
func (sh *Shared) nativeLoaded(path string, t0 time.Time, d time.Duration, work, weight uint64) *cachedModel {
	k := modelKey{path: path}
	if st, err := os.Stat(path); err == nil {
		k.size, k.mtime = st.Size(), st.ModTime()
	}
	c := &sh.models
	c.mu.Lock()
	defer c.mu.Unlock()
	cm := c.native[k]
	if cm == nil {
		cm = &cachedModel{native: true, load: d, loadedAt: t0, work: work, weight: weight}
		if c.native == nil {
			c.native = map[modelKey]*cachedModel{}
		}
		c.native[k] = cm
	}
	cm.refs++
	cm.loads.Add(1)
	return cm
}

// nativeUnloaded releases a native load nativeLoaded recorded: the entry
// goes with the last.
func (sh *Shared) nativeUnloaded(cm *cachedModel) {
	c := &sh.models
	c.mu.Lock()
	defer c.mu.Unlock()
	if cm.refs--; cm.refs > 0 {
		return
	}
	for k, v := range c.native {
		if v == cm {
			delete(c.native, k)
		}
	}
}

// evict takes cm out of the cache: closed now when no session holds it,
// else at the last release. Called with c.mu held.
func (c *modelCache) evict(cm *cachedModel) {
	cm.evicted = true
	if cm.refs == 0 {
		_ = cm.m.Close() // never fails; waits for executions still running
	}
}

// releaseModel drops a session's reference to cm, closing it when the
// cache no longer holds it and this was the last.
func (sh *Shared) releaseModel(cm *cachedModel) {
	c := &sh.models
	c.mu.Lock()
	defer c.mu.Unlock()
	if cm.refs--; cm.refs == 0 && cm.evicted {
		_ = cm.m.Close()
	}
}

// CloseModels empties the cache when the runtime closes: each model is
// closed now, or when the last session holding it ends. Loads fail after.
func (sh *Shared) CloseModels() {
	c := &sh.models
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for k, cm := range c.m {
		delete(c.m, k)
		c.evict(cm)
	}
}

// CachedModels is the number of models the cache holds.
func (sh *Shared) CachedModels() int {
	sh.models.mu.Lock()
	defer sh.models.mu.Unlock()
	return len(sh.models.m)
}

// CachedModel describes a model of the runtime's cache.
type CachedModel struct {
	Path string
	// Size and ModTime are the file's when it was loaded.
	Size    int64
	ModTime time.Time
	// WeightBytes is what the model holds in host memory beyond the
	// library's working buffers: its weights. Natively (Native) it is the
	// device memory of its weights and WorkBytes that of its work, for
	// each of the Held loads the node's runtime holds now.
	WeightBytes uint64
	WorkBytes   uint64
	Native      bool
	Held        int
	// LoadTime is what compiling it took; LoadedAt when that began.
	LoadTime time.Duration
	LoadedAt time.Time
	// Loads counts the aclmdlLoadFromFile calls that got the model;
	// Executions, Failures and ExecTime its executions over every session.
	Loads, Executions, Failures uint64
	ExecTime                    time.Duration
}

// ModelCache describes the models the cache holds, by path.
func (sh *Shared) ModelCache() []CachedModel {
	sh.models.mu.Lock()
	defer sh.models.mu.Unlock()
	out := make([]CachedModel, 0, len(sh.models.m)+len(sh.models.native))
	for _, ms := range []map[modelKey]*cachedModel{sh.models.m, sh.models.native} {
		for k, cm := range ms {
			c := CachedModel{Path: k.path, Size: k.size, ModTime: k.mtime,
				LoadTime: cm.load, LoadedAt: cm.loadedAt, Loads: cm.loads.Load(),
				Executions: cm.runs.Load(), Failures: cm.failed.Load(), ExecTime: time.Duration(cm.runNs.Load())}
			if cm.native {
				c.WeightBytes, c.WorkBytes, c.Native, c.Held = cm.weight, cm.work, true, cm.refs
			} else {
				c.WeightBytes = cm.m.WeightBytes()
			}
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].LoadedAt.Before(out[j].LoadedAt)
	})
	return out
}

// RefreshModels compiles again each model whose file changed since it
// was compiled, so that the next load finds it ready, and returns the
// paths it compiled and, joined, the failures (a file gone or no longer a
// model keeps its old version for the sessions that hold it; a load then
// fails as it would have).
func (sh *Shared) RefreshModels() ([]string, error) {
	sh.models.mu.Lock()
	var stale []string
	for k := range sh.models.m {
		if st, err := os.Stat(k.path); err == nil && (st.Size() != k.size || !st.ModTime().Equal(k.mtime)) {
			stale = append(stale, k.path)
		}
	}
	sh.models.mu.Unlock()
	sort.Strings(stale)
	var done []string
	var errs []error
	for _, p := range stale {
		cm, cached, err := sh.loadModel(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("model %s: %w", p, err))
			continue
		}
		cm.loads.Add(^uint64(0)) // loaded by no guest: loadModel counted one
		sh.releaseModel(cm)
		if !cached {
			done = append(done, p)
		}
	}
	return done, errors.Join(errs...)
}
