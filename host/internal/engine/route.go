package engine

import "io"

// InRoute is an io.Reader that reads R, bound after the reader was handed
// out (to an engine's instance, before its run's stdin is known); while R
// is nil it reads as the end of input, as a guest without stdin does.
type InRoute struct{ R io.Reader }

func (r *InRoute) Read(p []byte) (int, error) {
	if r.R == nil {
		return 0, io.EOF
	}
	return r.R.Read(p)
}

// OutRoute is an io.Writer that writes to W, bound after the writer was
// handed out; while W is nil it drops what it is given, as a guest
// without stdout does.
type OutRoute struct{ W io.Writer }

func (w *OutRoute) Write(p []byte) (int, error) {
	if w.W == nil {
		return len(p), nil
	}
	return w.W.Write(p)
}
