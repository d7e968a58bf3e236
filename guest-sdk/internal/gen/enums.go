package gen

import (
	"fmt"
	"strings"

	"github.com/aclwasm/aclwasm/acl"
)

// Enum is a native enum: its C type name, an SDK name for languages with
// their own naming, and its members in value order.
type Enum struct {
	C       string // native C type name, such as "aclrtMemcpyKind"
	Go      string // Go/Rust/AssemblyScript type name, such as "MemcpyKind"
	Doc     string
	Members []Member
}

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

// Enums returns the native enums the ABI uses, with values from package acl.
func Enums() ([]Enum, error) {
	kinds := Enum{C: "aclrtMemcpyKind", Go: "MemcpyKind",
		Doc: "The direction a copy is declared to take."}
	for k := acl.MemcpyHostToHost; k <= acl.MemcpyInterDeviceToDevice; k++ {
		kinds.Members = append(kinds.Members, Member{k.String(), int64(k)})
	}
	locs := Enum{C: "aclrtMemLocationType", Go: "MemLocationType",
		Doc: "Where memory lives: in a batch attribute and in aclrtPtrAttributes."}
	for t := acl.MemLocationHost; t <= acl.MemLocationHostNUMA; t++ {
		locs.Members = append(locs.Members, Member{t.String(), int64(t)})
	}
	policy := Enum{C: "aclrtMemMallocPolicy", Go: "MemMallocPolicy",
		Doc: "The page policy of aclrtMalloc (low byte) and its flags (higher bits).",
		Members: []Member{
			{"ACL_MEM_MALLOC_HUGE_FIRST", int64(acl.MemMallocHugeFirst)},
			{"ACL_MEM_MALLOC_HUGE_ONLY", int64(acl.MemMallocHugeOnly)},
			{"ACL_MEM_MALLOC_NORMAL_ONLY", int64(acl.MemMallocNormalOnly)},
			{"ACL_MEM_MALLOC_HUGE_FIRST_P2P", int64(acl.MemMallocHugeFirstP2P)},
			{"ACL_MEM_MALLOC_HUGE_ONLY_P2P", int64(acl.MemMallocHugeOnlyP2P)},
			{"ACL_MEM_MALLOC_NORMAL_ONLY_P2P", int64(acl.MemMallocNormalOnlyP2P)},
			{"ACL_MEM_MALLOC_HUGE1G_ONLY", int64(acl.MemMallocHuge1GOnly)},
			{"ACL_MEM_MALLOC_HUGE1G_ONLY_P2P", int64(acl.MemMallocHuge1GOnlyP2P)},
			{"ACL_MEM_TYPE_LOW_BAND_WIDTH", int64(acl.MemTypeLowBandWidth)},
			{"ACL_MEM_TYPE_HIGH_BAND_WIDTH", int64(acl.MemTypeHighBandWidth)},
			{"ACL_MEM_ACCESS_USER_SPACE_READONLY", int64(acl.MemAccessUserSpaceReadonly)},
		}}
	attrNames := []string{
		"ACL_DDR_MEM", "ACL_HBM_MEM", "ACL_DDR_MEM_HUGE", "ACL_DDR_MEM_NORMAL",
		"ACL_HBM_MEM_HUGE", "ACL_HBM_MEM_NORMAL", "ACL_DDR_MEM_P2P_HUGE", "ACL_DDR_MEM_P2P_NORMAL",
		"ACL_HBM_MEM_P2P_HUGE", "ACL_HBM_MEM_P2P_NORMAL", "ACL_HBM_MEM_HUGE1G", "ACL_HBM_MEM_P2P_HUGE1G",
		"ACL_MEM_NORMAL", "ACL_MEM_HUGE", "ACL_MEM_HUGE1G", "ACL_MEM_P2P_NORMAL",
		"ACL_MEM_P2P_HUGE", "ACL_MEM_P2P_HUGE1G",
	}
	attrs := Enum{C: "aclrtMemAttr", Go: "MemAttr",
		Doc: "The memory class aclrtGetMemInfo reports on."}
	for i, n := range attrNames {
		a := acl.DDRMem + acl.MemAttr(i)
		if !a.Valid() {
			return nil, fmt.Errorf("gen: acl.MemAttr(%d) (%s) is not valid in package acl", a, n)
		}
		attrs.Members = append(attrs.Members, Member{n, int64(a)})
	}
	if end := acl.DDRMem + acl.MemAttr(len(attrNames)); end.Valid() {
		return nil, fmt.Errorf("gen: package acl knows aclrtMemAttr %d, which the generator does not name", end)
	}
	streamStatus := Enum{C: "aclrtStreamStatus", Go: "StreamStatus",
		Doc: "What aclrtStreamQuery reports.",
		Members: []Member{
			{"ACL_STREAM_STATUS_COMPLETE", int64(acl.StreamStatusComplete)},
			{"ACL_STREAM_STATUS_NOT_READY", int64(acl.StreamStatusNotReady)},
			{"ACL_STREAM_STATUS_RESERVED", int64(acl.StreamStatusReserved)},
		}}
	eventStatus := Enum{C: "aclrtEventRecordedStatus", Go: "EventRecordedStatus",
		Doc: "What aclrtQueryEventStatus reports.",
		Members: []Member{
			{"ACL_EVENT_RECORDED_STATUS_NOT_READY", int64(acl.EventRecordedStatusNotReady)},
			{"ACL_EVENT_RECORDED_STATUS_COMPLETE", int64(acl.EventRecordedStatusComplete)},
		}}
	register := Enum{C: "aclrtHostRegisterType", Go: "HostRegisterType",
		Doc: "How aclrtHostRegister pins guest memory.",
		Members: []Member{
			{"ACL_HOST_REGISTER_MAPPED", int64(acl.HostRegisterMapped)},
			{"ACL_HOST_REGISTER_IOMEMORY", int64(acl.HostRegisterIOMemory)},
			{"ACL_HOST_REGISTER_READONLY", int64(acl.HostRegisterReadOnly)},
		}}
	for _, m := range register.Members {
		if !acl.HostRegisterType(m.Value).Valid() {
			return nil, fmt.Errorf("gen: %s (%d) is not a valid register type in package acl", m.Name, m.Value)
		}
	}
	runMode := Enum{C: "aclrtRunMode", Go: "RunMode",
		Doc: "What aclrtGetRunMode reports: where the application runs.",
		Members: []Member{
			{acl.RunModeDevice.String(), int64(acl.RunModeDevice)},
			{acl.RunModeHost.String(), int64(acl.RunModeHost)},
		}}
	// ABI v1.2 section 12: error state and resource queries.
	lastErrLevel := Enum{C: "aclrtLastErrLevel", Go: "LastErrLevel",
		Doc:     "Whose last error aclrtGetLastError and aclrtPeekAtLastError read.",
		Members: []Member{{acl.ThreadLevel.String(), int64(acl.ThreadLevel)}}}
	devResLimit := Enum{C: "aclrtDevResLimitType", Go: "DevResLimitType",
		Doc: "The cores a device resource limit counts.",
		Members: []Member{
			{acl.DevResCubeCore.String(), int64(acl.DevResCubeCore)},
			{acl.DevResVectorCore.String(), int64(acl.DevResVectorCore)},
		}}
	// ABI v1.2 section 12: event wait status.
	eventWaitStatus := Enum{C: "aclrtEventWaitStatus", Go: "EventWaitStatus",
		Doc: "What aclrtQueryEventWaitStatus reports.",
		Members: []Member{
			{"ACL_EVENT_WAIT_STATUS_COMPLETE", int64(acl.EventWaitStatusComplete)},
			{"ACL_EVENT_WAIT_STATUS_NOT_READY", int64(acl.EventWaitStatusNotReady)},
			{"ACL_EVENT_WAIT_STATUS_RESERVED", int64(acl.EventWaitStatusReserved)},
		}}
	return []Enum{kinds, locs, policy, attrs, streamStatus, eventStatus, register, runMode, lastErrLevel, devResLimit, eventWaitStatus}, nil
}

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
