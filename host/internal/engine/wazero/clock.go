package wazero

import (
	"time"
)

// sleepSlice bounds how long a guest's sleep goes without checking whether
// its call has ended: a sleep the engine cannot interrupt (wazero's
// nanosleep takes no context) ends at most this long after a timeout.
const sleepSlice = 10 * time.Millisecond

// sleep sleeps ns nanoseconds, in slices, returning early once stopped
// reports true (the guest's call ended: timeout, cancellation).
func sleep(ns int64, stopped func() bool) {
	end := time.Now().Add(time.Duration(ns))
	for !stopped() {
		left := time.Until(end)
		if left <= 0 {
			return
		}
		time.Sleep(min(left, sleepSlice))
	}
}
