package acl

// Stream is a stream handle: a FIFO of asynchronous operations on the current
// device. DefaultStream (0, NULL natively) is the current device's default
// stream. Destroy it when done.
type Stream uint32

// DefaultStream is the current device's default stream.
const DefaultStream Stream = 0

// Event is an event handle. Destroy it when done.
type Event uint32
