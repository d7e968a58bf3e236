package sandbox

// Peek is the one way this package's external tests, which drive sessions
// through the embedding API (package host) as an embedder and a guest do,
// reach what that API keeps inside: package host sets it to return, for a
// *host.Instance, its session, its runtime's shared state and its guest
// memory as the engine holds it now; for a *host.Runtime, the shared state
// alone (nil for what v has not). What the tests may then look at or set
// up in a session is in export_test.go. Nothing else calls it: a Go
// package outside this module cannot import this one.
var Peek func(v any) (s *Session, sh *Shared, mem []byte)
