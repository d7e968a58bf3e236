package testsupport

// Bomb is a module that declares a length longer than the bytes it holds,
// with the problem the host's decoding bound reports for it.
type Bomb struct {
	Name, Problem string
	Wasm          []byte
}

// DecodeBombs are modules the fuzzers found that made wazero ask for tens
// of gigabytes before reading what they declare (a fatal error of the
// host process): the module package's bound and the host's Load and
// Check are tested against the same bytes.
var DecodeBombs = []Bomb{
	// 0xc4c4c4c4 tables: 80 GiB asked of wazero.
	{"tables", "table section: entries 2559648324, more than the 18 bytes left in the module (malformed)",
		[]byte("\x00asm\x01\x00\x00\x00\x01\x06\x01`\x00\x02\x7f\x7f\x03\x02\x01\x00\x04\b\xc4\xc4\xc4\xc4\t\a\x01\x00A\x00\v\x01\x00\n\b\x01\x06\x00A\x01A\x02\x01")},
	// A count cut by its section's end, which wazero reads on (3.2 G
	// function indices: 12 GiB).
	{"count past its section", "function section: entries 3153588191, more than the 1 bytes left in the module (malformed)",
		[]byte("\x00asm\x01\x00\x00\x00\x01\x06\x01`\x01\x7f\x01\x7f\x03\x02\xdf\xdf\xdf\xdf\vi")},
	{"parameters past the module", "type section: parameters 223949412, more than the 2 bytes left in the module (malformed)",
		[]byte("\x00asm\x01\x00\x00\x00\x01\x06\x01`\xe4\xe4\xe4j\v\x00")},
}
