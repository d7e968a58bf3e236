package acl

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestDeviceTasksStopWhenCancelled checks that the simulator's reduce and
// random tasks watch their context, so that a stream's cancellation, the
// session's end and the run's time limit stop them as they stop kernels:
// a task that is cancelled before it starts touches nothing past its
// first step, and one that is not runs to the end.
func TestDeviceTasksStopWhenCancelled(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	n := 1 << 20
	dst, src := make([]byte, n), make([]byte, n)
	for i := range src {
		src[i] = 1
	}
	if err := Reduce(done, ReduceSum, DTUint8, dst, src); err != context.Canceled {
		t.Fatalf("Reduce on a cancelled context: %v, want context.Canceled", err)
	}
	if dst[n-1] != 0 {
		t.Fatal("a cancelled Reduce ran to the end")
	}
	if err := Reduce(context.Background(), ReduceSum, DTUint8, dst, src); err != nil || dst[n-1] != 1 {
		t.Fatalf("Reduce: %v, last byte %d", err, dst[n-1])
	}
	for _, f := range []RandomFunc{RandomDropoutBitmask, RandomUniform, RandomNormal} {
		num := RandomParam{Size: 8}
		num.Value[2] = 0x80 // n*8 bits: the whole buffer
		task := RandomTask{DataType: DTFloat, Func: f, Num: num}
		out := make([]byte, n)
		rng := rand.New(rand.NewChaCha8([32]byte{}))
		if err := RandomFill(done, task, rng, out); err != context.Canceled {
			t.Errorf("RandomFill(%s) on a cancelled context: %v, want context.Canceled", f, err)
		}
		if err := RandomFill(context.Background(), task, rng, out); err != nil {
			t.Errorf("RandomFill(%s): %v", f, err)
		}
	}
}
