package gen

import (
	"fmt"
	"strings"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// Enum is a native enum: its C type name, an SDK name for languages with
// their own naming, and its members in value order.
type Enum struct {
	C       string // native C type name, such as "aclrtMemcpyKind"
	Go      string // Go/Rust/AssemblyScript type name, such as "MemcpyKind"
	Doc     string
	Members []Member
	abi     *abi.Enum
}

// Signed reports whether the enum's values are int32 natively (i32 in
// Rust); otherwise they are uint32.
func (e *Enum) Signed() bool { return e.abi.Signed }

// Member is one enum member: its native name and value.
type Member struct {
	Name  string // native name, such as "ACL_MEMCPY_HOST_TO_DEVICE"
	Value int64
}

// Short returns the member's name with the enum's common native prefix
// removed and the rest in CamelCase: "HostToDevice" for
// ACL_MEMCPY_HOST_TO_DEVICE in aclrtMemcpyKind.
func (e *Enum) Short(m Member) string {
	if s, ok := shortOverride[m.Name]; ok {
		return s
	}
	return camel(strings.TrimPrefix(m.Name, e.prefix()))
}

// shortOverride spells members whose package acl name does not follow the
// acronym table.
var shortOverride = map[string]string{
	"ACL_HOST_REGISTER_READONLY": "ReadOnly",
}

func (e *Enum) prefix() string {
	p := e.Members[0].Name
	for _, m := range e.Members[1:] {
		for !strings.HasPrefix(m.Name, p) {
			p = p[:len(p)-1]
		}
	}
	// Cut back to a word boundary.
	if i := strings.LastIndexByte(p, '_'); i >= 0 {
		p = p[:i+1]
	}
	// An enum of one member keeps two words: ACL_RT_THREAD_LEVEL is
	// ThreadLevel, not Level.
	if len(e.Members) == 1 {
		if i := strings.LastIndexByte(strings.TrimSuffix(p, "_"), '_'); i >= 0 {
			p = p[:i+1]
		}
	}
	return p
}

// Enums returns the native enums the ABI declares (abi.Enums, but for
// the macro families, which the headers write as #defines), with their
// members' names from package acl. The SDK name is the C name without its
// "aclrt" prefix.
func Enums() ([]Enum, error) {
	var out []Enum
	for _, ae := range abi.Enums {
		if ae.Macros || handWritten[ae.C] {
			continue
		}
		if !strings.HasPrefix(ae.C, "aclrt") {
			return nil, fmt.Errorf("gen: enum %s: the SDK names come from a C name that starts with aclrt", ae.C)
		}
		e := Enum{C: ae.C, Go: strings.TrimPrefix(ae.C, "aclrt"), Doc: ae.Doc, abi: ae}
		for _, v := range ae.Members {
			e.Members = append(e.Members, Member{ae.Member(v), v})
		}
		out = append(out, e)
	}
	return out, nil
}

// handWritten are the enums of the ABI that the SDKs declare themselves:
// aclDataType with their float16 helpers (aclwasm_sys.h, fp16.go, ...),
// aclFormat in the C SDK's aclnn/acl_meta.h (nn.go).
var handWritten = map[string]bool{"aclDataType": true, "aclFormat": true}

// Code is one native aclError value.
type Code struct {
	Name  string // native name, such as "ACL_ERROR_RT_PARAM_INVALID"
	Value int32
}

// Runtime reports whether the code is one of rt_error_codes.h (107xxx,
// 207xxx and 507xxx) rather than acl_base.h.
func (c Code) Runtime() bool {
	switch c.Value / 1000 {
	case 107, 207, 507:
		return true
	}
	return false
}

// GoName returns the Go constant name: "ErrRTParamInvalid" for
// ACL_ERROR_RT_PARAM_INVALID, "Success" for ACL_SUCCESS. A trailing
// "_ERROR" is dropped (ACL_ERROR_INTERNAL_ERROR is ErrInternal).
func (c Code) GoName() string {
	if c.Value == 0 {
		return "Success"
	}
	n := strings.TrimPrefix(c.Name, "ACL_")
	n = strings.TrimPrefix(n, "ERROR_")
	n = strings.TrimSuffix(n, "_ERROR")
	return "Err" + camel(n)
}

// Codes returns every native aclError value, Success first, from acl.Codes.
func Codes() ([]Code, error) {
	var out []Code
	goNames := map[string]string{}
	for _, e := range acl.Codes() {
		c := Code{Name: e.Name(), Value: int32(e)}
		g := c.GoName()
		if prev, dup := goNames[g]; dup {
			return nil, fmt.Errorf("gen: %s and %s both become the Go name %s", prev, c.Name, g)
		}
		goNames[g] = c.Name
		out = append(out, c)
	}
	if len(out) == 0 || out[0].Value != 0 || out[0].Name != "ACL_SUCCESS" {
		return nil, fmt.Errorf("gen: acl.Codes() does not start with ACL_SUCCESS")
	}
	return out, nil
}

// acronyms are words that stay upper case in CamelCase names; the values
// are the spelling for words that are not simply upper case.
var acronyms = map[string]string{
	"RT": "RT", "ID": "ID", "API": "API", "AICPU": "AICPU", "AICORE": "AICore", "AIVEC": "AIVec",
	"HBM": "HBM", "DDR": "DDR", "ECC": "ECC", "DMA": "DMA", "IPC": "IPC", "CDQ": "CDQ", "FFTS": "FFTS",
	"CCU": "CCU", "L3": "L3", "JPEG": "JPEG", "GE": "GE", "DRV": "DRV", "TS": "TS", "OPP": "OPP",
	"AIPP": "AIPP", "CB": "CB", "DEVICEID": "DeviceID", "DIEID": "DieID", "OPQUEUE": "OpQueue",
	"ACLGRAPH": "ACLGraph", "P2P": "P2P", "H2D": "H2D", "D2H": "D2H", "D2D": "D2D", "IOMEMORY": "IOMemory",
	"HUGE1G": "Huge1G", "NUMA": "NUMA", "SOC": "SOC", "HDC": "HDC",
}

// camel turns "RT_PARAM_INVALID" into "RTParamInvalid".
func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(s, "_") {
		if w == "" {
			continue
		}
		if a, ok := acronyms[w]; ok {
			b.WriteString(a)
			continue
		}
		b.WriteString(w[:1])
		b.WriteString(strings.ToLower(w[1:]))
	}
	return b.String()
}
