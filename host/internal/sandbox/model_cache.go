package sandbox

import (
	"os"
	"sync"
	"time"

	"github.com/aclwasm/aclwasm/acl/sim/model"
)

// modelCache holds the approved models a runtime's sessions loaded, so
// that a model is compiled once and shared read-only between sessions
// granted it (a Model runs from several goroutines at once). A model is
// known by its file's path, size and modification time: a file changed
// since is loaded again, and the old model stays with the sessions that
// hold it.
type modelCache struct {
	mu sync.Mutex // held across a load: one compilation per file at a time
	m  map[modelKey]*model.Model
}

type modelKey struct {
	path  string
	size  int64
	mtime time.Time
}

// loadModel returns the model in the file at path, from the cache when
// the file has not changed since it was loaded.
func (sh *Shared) loadModel(path string) (*model.Model, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	k := modelKey{path, st.Size(), st.ModTime()}
	c := &sh.models
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.m[k]; ok {
		return m, nil
	}
	m, err := model.Load(path)
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[modelKey]*model.Model{}
	}
	for old := range c.m {
		if old.path == path { // the file changed: its old model goes with its last session
			delete(c.m, old)
		}
	}
	c.m[k] = m
	return m, nil
}

// CachedModels is the number of models the cache holds.
func (sh *Shared) CachedModels() int {
	sh.models.mu.Lock()
	defer sh.models.mu.Unlock()
	return len(sh.models.m)
}
