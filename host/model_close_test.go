package host_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/acl/sim/model"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestModelCacheCloses: the runtime closes the models it compiled once
// nothing holds them: one that a changed file replaced when the last
// session that loaded it ends (its executions may still be queued until
// then), the others when the runtime closes. Models run on the
// simulator, whatever the test backend.
func TestModelCacheCloses(t *testing.T) {
	ctx := context.Background()
	mlp := filepath.Join(testsupport.Models(t), "mlp.onnx")
	b := sim.New()
	defer b.Close()
	rt, err := host.NewRuntime(ctx, host.WithBackend(b), host.WithEngine(testsupport.Engine()))
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.Proxy(abi.Wide, 4), host.Policy{Models: map[string]string{"mlp": mlp}})
	require.NoError(t, err)
	start := func() *host.Instance {
		inst, err := pl.Instantiate(ctx, host.Config{})
		require.NoError(t, err)
		call := func(name string, args ...uint64) {
			res, err := inst.Call(ctx, name, args...)
			require.NoError(t, err)
			require.Zero(t, int32(res[0]), "%s: %s", name, inst.Session().LastError())
		}
		call("aclrtSetDevice", 0)
		copy(proxytest.Mem(inst)[mdlName:], "mlp\x00")
		call("aclmdlLoadFromFile", mdlName, testsupport.OutA)
		return inst
	}

	base := model.Live()
	a := start()
	require.Equal(t, base+1, model.Live())
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(mlp, later, later))
	b2 := start()
	require.Equal(t, base+2, model.Live(), "the changed file is compiled again; the old model is still held")
	require.NoError(t, a.Close(ctx))
	require.Equal(t, base+1, model.Live(), "the replaced model is closed with the last session holding it")
	_, err = rt.RefreshModels()
	require.NoError(t, err)
	require.Equal(t, base+1, model.Live())
	require.NoError(t, rt.Close(ctx))
	require.Equal(t, base, model.Live(), "the cached models are closed with the runtime")
	_ = b2
}
