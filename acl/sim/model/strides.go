package model

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// strided lists the operators whose strides attribute defaults to 1 on
// every spatial axis.
var strided = map[string]bool{"Conv": true, "MaxPool": true, "AveragePool": true, "LpPool": true}

// attrINTS is AttributeProto.INTS in onnx.proto.
const attrINTS = 7

// defaultStrides writes that default into every such node that omits the
// attribute: onnx-gomlx v0.3.4 passes an absent strides on as empty and
// GoMLX v0.26 then reads stride 0 and rejects the convolution, though
// ONNX (and every exporter that omits it) means 1. The model's proto type
// is internal to the library, so this works on it by reflection.
func defaultStrides(mp proto.Message) {
	m := mp.ProtoReflect()
	g := m.Mutable(fd(m, "graph")).Message()
	ranks := map[string]int{} // initializer name -> rank
	inits := g.Get(fd(g, "initializer")).List()
	for i := range inits.Len() {
		t := inits.Get(i).Message()
		ranks[t.Get(fd(t, "name")).String()] = t.Get(fd(t, "dims")).List().Len()
	}
	nodes := g.Mutable(fd(g, "node")).List()
	for i := range nodes.Len() {
		n := nodes.Get(i).Message()
		if !strided[n.Get(fd(n, "op_type")).String()] {
			continue
		}
		attrs := n.Mutable(fd(n, "attribute")).List()
		spatial := -1
		has := false
		for j := range attrs.Len() {
			a := attrs.Get(j).Message()
			switch a.Get(fd(a, "name")).String() {
			case "strides":
				has = true
			case "kernel_shape":
				spatial = a.Get(fd(a, "ints")).List().Len()
			}
		}
		if ins := n.Get(fd(n, "input")).List(); spatial < 0 && ins.Len() > 1 {
			if r, ok := ranks[ins.Get(1).String()]; ok && r > 2 {
				spatial = r - 2 // a Conv's weight: [M, C, spatial...]
			}
		}
		if has || spatial < 0 {
			continue // a kernel of unknown rank: the library reports what it finds
		}
		e := attrs.NewElement()
		a := e.Message()
		a.Set(fd(a, "name"), protoreflect.ValueOfString("strides"))
		a.Set(fd(a, "type"), protoreflect.ValueOfEnum(attrINTS))
		ints := a.Mutable(fd(a, "ints")).List()
		for range spatial {
			ints.Append(protoreflect.ValueOfInt64(1))
		}
		attrs.Append(e)
	}
}

// fd returns m's field name, which onnx.proto defines.
func fd(m protoreflect.Message, name protoreflect.Name) protoreflect.FieldDescriptor {
	return m.Descriptor().Fields().ByName(name)
}
