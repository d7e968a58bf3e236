package half

import (
	"math"
	"testing"
)

// Every half converts to float32 and back to itself (NaNs stay NaNs,
// quieted), and From32 rounds to nearest even against a float64 reference.
func TestRoundTrip(t *testing.T) {
	for h := range 1 << 16 {
		f := To32(uint16(h))
		back := From32(f)
		if f != f {
			if back&0x7c00 != 0x7c00 || back&0x3ff == 0 {
				t.Fatalf("NaN %#04x came back as %#04x", h, back)
			}
			continue
		}
		if back != uint16(h) {
			t.Fatalf("%#04x -> %g -> %#04x", h, f, back)
		}
	}
}

func TestRoundsToNearestEven(t *testing.T) {
	// Between each pair of neighbouring positive halves: the midpoint (a
	// tie, to the even one) and a float32 just either side of it.
	for h := uint16(0); h < 0x7bff; h++ {
		lo, hi := float64(To32(h)), float64(To32(h+1))
		mid := float32((lo + hi) / 2)
		even := h
		if h&1 != 0 {
			even = h + 1
		}
		if got := From32(mid); got != even {
			t.Fatalf("tie %g between %#04x and %#04x gave %#04x", mid, h, h+1, got)
		}
		if got := From32(math.Nextafter32(mid, 0)); got != h {
			t.Fatalf("below the tie %#04x/%#04x gave %#04x", h, h+1, got)
		}
		if got := From32(math.Nextafter32(mid, 1e9)); got != h+1 {
			t.Fatalf("above the tie %#04x/%#04x gave %#04x", h, h+1, got)
		}
	}
}
