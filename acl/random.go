package acl

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/aclwasm/aclwasm/acl/internal/half"
)

// RandomFunc is aclrtRandomNumFuncType: the distribution
// aclrtRandomNumAsync draws from.
type RandomFunc int32

// The native aclrtRandomNumFuncType values.
const (
	RandomDropoutBitmask RandomFunc = 0 // ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK
	RandomUniform        RandomFunc = 1 // ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS
	RandomNormal         RandomFunc = 2 // ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS
	RandomTruncNormal    RandomFunc = 3 // ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS
)

// String returns the native name.
func (f RandomFunc) String() string {
	switch f {
	case RandomDropoutBitmask:
		return "ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK"
	case RandomUniform:
		return "ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS"
	case RandomNormal:
		return "ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS"
	case RandomTruncNormal:
		return "ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS"
	}
	return "aclrtRandomNumFuncType(" + strconv.FormatInt(int64(f), 10) + ")"
}

// RandomTypes maps the data types aclrtRandomNumAsync accepts to the
// runtime's own codes, which the ACL layer writes back into the caller's
// task (kernel.cpp:26-31, 672-673); any other type gives 100000.
var RandomTypes = map[DataType]int32{
	DTInt32: 0, DTInt64: 1, DTUint32: 2, DTUint64: 3, DTBFloat16: 4, DTFloat16: 5, DTFloat: 6,
}

// RandomFuncTypes are the data types each distribution produces, as the
// runtime's table says (random_num_task.cc:52-69; the check that would use
// it is not called at the audited tree, so natively another type reaches
// the hardware).
func RandomFuncTypes(f RandomFunc, t DataType) bool {
	switch t {
	case DTBFloat16, DTFloat16, DTFloat:
		return f >= RandomDropoutBitmask && f <= RandomTruncNormal
	case DTInt32, DTInt64, DTUint32, DTUint64:
		return f == RandomUniform
	}
	return false
}

// RandomParam is aclrtRandomParaInfo, 16 bytes: a value (or, isAddr 1, a
// device address) in valueOrAddr, of which the runtime copies size bytes.
type RandomParam struct {
	IsAddr uint8
	Value  [8]byte
	Size   uint8
}

// Bits returns the size bytes of the value the runtime copies, zero
// extended (size 0: 0); the caller has checked size <= 8.
func (p RandomParam) Bits() uint64 {
	var b [8]byte
	copy(b[:], p.Value[:p.Size])
	return binary.LittleEndian.Uint64(b[:])
}

// RandomTask is aclrtRandomNumTaskInfo as the guest wrote it.
type RandomTask struct {
	DataType DataType
	Func     RandomFunc
	// P1 and P2: dropoutRation, min and max, or mean and stddev.
	P1, P2                    RandomParam
	ParaAddr, Result, Counter uint64
	Seed, Num                 RandomParam
}

// RandomTaskSize returns the size of aclrtRandomNumTaskInfo when pointers
// are ptr bytes: {int32 dataType; {int32 funcType; 32-byte union}; three
// pointers; two 16-byte aclrtRandomParaInfo; uint8_t rsv[8]}.
func RandomTaskSize(ptr int) int {
	n := 40 + 3*ptr + 32 + 8
	return (n + ptr - 1) / ptr * ptr
}

// RandomTaskOf decodes b, RandomTaskSize(ptr) bytes, little-endian.
func RandomTaskOf(b []byte, ptr int) RandomTask {
	le := binary.LittleEndian
	param := func(o int) RandomParam {
		var p RandomParam
		p.IsAddr, p.Size = b[o], b[o+9]
		copy(p.Value[:], b[o+1:o+9])
		return p
	}
	word := func(o int) uint64 {
		if ptr == 4 {
			return uint64(le.Uint32(b[o:]))
		}
		return le.Uint64(b[o:])
	}
	return RandomTask{
		DataType: DataType(int32(le.Uint32(b[0:]))),
		Func:     RandomFunc(int32(le.Uint32(b[4:]))),
		P1:       param(8), P2: param(24),
		ParaAddr: word(40), Result: word(40 + ptr), Counter: word(40 + 2*ptr),
		Seed: param(40 + 3*ptr), Num: param(56 + 3*ptr),
	}
}

// RandomResultSize returns the bytes n numbers take: n elements of the
// type, or for a dropout bitmask n bits (rounded up to bytes). ok is false
// when the size overflows.
func RandomResultSize(f RandomFunc, t DataType, n uint64) (uint64, bool) {
	if f == RandomDropoutBitmask {
		return (n + 7) / 8, true
	}
	w := t.Size()
	if n > math.MaxUint64/w {
		return 0, false
	}
	return n * w, true
}

// RandomFill writes the task's numbers into out (RandomResultSize bytes),
// drawn from rng: a dropout bitmask keeps each bit (1) with probability
// 1 - ratio, bit i in byte i/8 from the low bit up; uniform numbers lie in
// [min, max) (integers: min..max-1, or min when max <= min); normal ones
// are mean + stddev * N(0, 1), truncated ones redrawn until within two
// standard deviations of the mean. The 16-bit floats round to nearest
// even. The caller has checked the type against the function. It stops
// with ctx's error once ctx is done (the stream cancelled, the run's time
// up), leaving out partly written.
func RandomFill(ctx context.Context, task RandomTask, rng *rand.Rand, out []byte) error {
	t := task.DataType
	p1, p2 := task.P1.Bits(), task.P2.Bits()
	switch task.Func {
	case RandomDropoutBitmask:
		ratio := randomFloat(t, p1)
		clear(out)
		n := task.Num.Bits()
		for i := uint64(0); i < n; i++ {
			if err := poll(ctx, int(i)); err != nil {
				return err
			}
			if rng.Float64() >= ratio {
				out[i/8] |= 1 << (i % 8)
			}
		}
		return nil
	case RandomUniform:
		switch t {
		case DTInt32, DTInt64:
			lo, hi := int64(p1), int64(p2)
			if t == DTInt32 {
				lo, hi = int64(int32(p1)), int64(int32(p2))
			}
			for i := 0; i < len(out); i += int(t.Size()) {
				if err := poll(ctx, i); err != nil {
					return err
				}
				v := lo
				if hi > lo {
					v = lo + int64(rng.Uint64N(uint64(hi-lo)))
				}
				putInt(out[i:], t, uint64(v))
			}
		case DTUint32, DTUint64:
			lo, hi := p1, p2
			if t == DTUint32 {
				lo, hi = uint64(uint32(p1)), uint64(uint32(p2))
			}
			for i := 0; i < len(out); i += int(t.Size()) {
				if err := poll(ctx, i); err != nil {
					return err
				}
				v := lo
				if hi > lo {
					v = lo + rng.Uint64N(hi-lo)
				}
				putInt(out[i:], t, v)
			}
		default:
			lo, hi := randomFloat(t, p1), randomFloat(t, p2)
			for i := 0; i < len(out); i += int(t.Size()) {
				if err := poll(ctx, i); err != nil {
					return err
				}
				putFloat(out[i:], t, lo+(hi-lo)*rng.Float64())
			}
		}
	case RandomNormal, RandomTruncNormal:
		mean, sd := randomFloat(t, p1), randomFloat(t, p2)
		for i := 0; i < len(out); i += int(t.Size()) {
			if err := poll(ctx, i); err != nil {
				return err
			}
			z := rng.NormFloat64()
			for task.Func == RandomTruncNormal && math.Abs(z) > 2 {
				z = rng.NormFloat64()
			}
			putFloat(out[i:], t, mean+sd*z)
		}
	}
	return nil
}

// poll returns ctx's error at every 64 Ki-th step i of a device task's
// loop: often enough that a cancelled task stops at once, rarely enough
// to cost nothing.
func poll(ctx context.Context, i int) error {
	if i&(1<<16-1) != 0 {
		return nil
	}
	return ctx.Err()
}

// randomFloat reads a parameter's bits as a value of float type t.
func randomFloat(t DataType, v uint64) float64 {
	switch t {
	case DTFloat16:
		return float64(half.F16(uint16(v)))
	case DTBFloat16:
		return float64(half.BF16(uint16(v)))
	}
	return float64(math.Float32frombits(uint32(v)))
}

func putFloat(b []byte, t DataType, v float64) {
	switch t {
	case DTFloat16:
		binary.LittleEndian.PutUint16(b, half.ToF16(float32(v)))
	case DTBFloat16:
		binary.LittleEndian.PutUint16(b, half.ToBF16(float32(v)))
	default:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	}
}

func putInt(b []byte, t DataType, v uint64) {
	if t.Size() == 4 {
		binary.LittleEndian.PutUint32(b, uint32(v))
		return
	}
	binary.LittleEndian.PutUint64(b, v)
}

// Bytes encodes the task as aclrtRandomNumTaskInfo with pointers of ptr
// bytes (RandomTaskSize(ptr) bytes, little-endian, reserved bytes zero):
// the inverse of RandomTaskOf, for a backend that hands the task to a
// native library.
func (t RandomTask) Bytes(ptr int) []byte {
	le := binary.LittleEndian
	b := make([]byte, RandomTaskSize(ptr))
	param := func(o int, p RandomParam) {
		b[o], b[o+9] = p.IsAddr, p.Size
		copy(b[o+1:o+9], p.Value[:])
	}
	word := func(o int, v uint64) {
		if ptr == 4 {
			le.PutUint32(b[o:], uint32(v))
			return
		}
		le.PutUint64(b[o:], v)
	}
	le.PutUint32(b[0:], uint32(t.DataType))
	le.PutUint32(b[4:], uint32(t.Func))
	param(8, t.P1)
	param(24, t.P2)
	word(40, t.ParaAddr)
	word(40+ptr, t.Result)
	word(40+2*ptr, t.Counter)
	param(40+3*ptr, t.Seed)
	param(56+3*ptr, t.Num)
	return b
}

// RandomGenerator is the optional role ([Traits.RandomGenerator]) of a
// backend that generates random numbers natively (the native backend,
// with the node's aclrtRandomNumAsync); the simulator generates them as a
// [Launch] on a [Computer]. RandomNumAsync queues task on s; its
// ParaAddr (0 or 16 bytes), Result (RandomResultSize bytes) and Counter
// (16 bytes) are the backend's addresses, which the caller has validated
// with the native checks.
type RandomGenerator interface {
	RandomNumAsync(task RandomTask, s Stream) error
}
