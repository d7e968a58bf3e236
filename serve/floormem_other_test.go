//go:build !linux

package serve

func floorReserve(n uint64) []byte { return make([]byte, n) }

func floorUnreserve([]byte) {}

func floorClear(b []byte) { clear(b) }
