package abi

// IOModule is the import module of the bytes-in, bytes-out convention
// (docs/EMBEDDING.md): a host that calls a reactor export with a byte
// slice (host.Instance.CallBytes) lends the guest its input through these
// functions and collects what the guest writes as the output. The guest
// needs no allocator of its own: it reads the input into memory it owns.
const IOModule = "aclwasm"

// IOFuncs are the functions of [IOModule]. Each returns an i32: a length,
// or 0 or an aclError code, whose message aclGetRecentErrMsg reports.
var IOFuncs = []Func{
	{Name: "input_len", Group: "io", Params: nil,
		Doc: "Returns the length of the call's input in bytes (0 outside a bytes call). Inputs are below 2^31 bytes."},
	{Name: "input_read", Group: "io", Params: []Param{out("buf", Bytes).len("len"), i32("len")},
		Doc: "Copies the first len bytes of the input to buf. len beyond the input, or buf outside guest memory: 100000."},
	{Name: "output_write", Group: "io", Params: []Param{in("buf", Bytes).len("len"), i32("len")},
		Doc: "Appends len bytes at buf to the call's output. Outside a bytes call or buf outside guest memory: 100000; an output beyond the policy's memory limit: 207012."},
	{Name: "config_read", Group: "io", Params: []Param{in("key", Bytes).len("keyLen"), i32("keyLen"), out("buf", Bytes).len("bufLen"), i32("bufLen")},
		Doc: "Copies at most bufLen bytes of the configuration value named by the key [key, +keyLen) to buf and returns the value's length (below 65536), or -1 if there is none. key or buf outside guest memory: 100000."},
	{Name: "error_set", Group: "io", Params: []Param{in("msg", Bytes).len("len"), i32("len")},
		Doc: "Sets the message that says why the running call fails: the host reports it with the call's nonzero status or exit code (host.StatusError, host.Result.Message, serve's plugin_failed answer). A later error_set replaces it and len 0 clears it; each call of an export starts with none. The host keeps the first 4096 bytes (cut at a UTF-8 boundary, invalid UTF-8 replaced). msg outside guest memory: 100000."},
}

// MaxErrorLen is how many bytes of an error_set message the host keeps.
const MaxErrorLen = 4096

// LookupIO returns the function of [IOModule] named name, or nil.
func LookupIO(name string) *Func {
	for i := range IOFuncs {
		if IOFuncs[i].Name == name {
			return &IOFuncs[i]
		}
	}
	return nil
}
