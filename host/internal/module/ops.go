package module

// skipImmediates reads the immediates of instruction op (its opcode byte
// already read) and reports whether it knows op: the instructions of
// WebAssembly 2.0 (sign extension, saturating truncation, bulk memory,
// reference types, multi-value, fixed-width SIMD) and tail calls, which is
// what either engine accepts as the host configures them. An instruction
// it does not know makes the stack rewrite refuse the module rather than
// guess.
func skipImmediates(r *byteReader, op byte) bool {
	switch {
	case op <= 0x01, op == 0x05, op == 0x0b, op == 0x0f, op == 0x1a, op == 0x1b, op == 0xd1,
		op >= 0x45 && op <= 0xc4: // unreachable, nop, else, end, return, drop, select, ref.is_null, numeric
	case op >= 0x02 && op <= 0x04: // block, loop, if: a block type (0x40, a value type, or an s33 type index)
		r.uleb()
	case op == 0x0c, op == 0x0d, op == 0x10, op == 0x12, op == 0xd2, // br, br_if, call, return_call, ref.func
		op >= 0x20 && op <= 0x26,           // local.get/set/tee, global.get/set, table.get/set
		op == 0x3f, op == 0x40, op == 0xd0: // memory.size/grow (memory index), ref.null (heap type)
		r.uleb()
	case op == 0x0e: // br_table: labels, default
		for n := r.uleb(); n > 0 && !r.bad; n-- {
			r.uleb()
		}
		r.uleb()
	case op == 0x11, op == 0x13: // call_indirect, return_call_indirect: type, table
		r.uleb()
		r.uleb()
	case op == 0x1c: // select t*
		for n := r.uleb(); n > 0 && !r.bad; n-- {
			skipValType(r)
		}
	case op >= 0x28 && op <= 0x3e: // loads and stores
		skipMemarg(r)
	case op == 0x41, op == 0x42: // i32.const, i64.const
		r.uleb()
	case op == 0x43:
		r.take(4)
	case op == 0x44:
		r.take(8)
	case op == 0xfc:
		return skipPrefixFC(r, r.uleb())
	case op == 0xfd:
		return skipPrefixFD(r, r.uleb())
	default: // try_table, throw, call_ref, GC, threads...: not enabled
		return false
	}
	return !r.bad
}

// skipPrefixFC reads the immediates of 0xfc instruction sub.
func skipPrefixFC(r *byteReader, sub uint64) bool {
	switch {
	case sub <= 7: // saturating truncations
	case sub == 9, sub == 11, sub == 13, sub >= 15 && sub <= 17: // data.drop, memory.fill, elem.drop, table.grow/size/fill
		r.uleb()
	case sub == 8, sub == 10, sub == 12, sub == 14: // memory.init, memory.copy, table.init, table.copy
		r.uleb()
		r.uleb()
	default:
		return false
	}
	return !r.bad
}

// skipPrefixFD reads the immediates of SIMD instruction sub.
func skipPrefixFD(r *byteReader, sub uint64) bool {
	switch {
	case sub <= 11, sub == 92, sub == 93: // loads, store, load32/64_zero
		skipMemarg(r)
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		r.take(16)
	case sub >= 21 && sub <= 34: // extract_lane, replace_lane
		r.byte()
	case sub >= 84 && sub <= 91: // load_lane, store_lane
		skipMemarg(r)
		r.byte()
	case sub <= 255: // the rest take no immediates (the engine rejects the gaps)
	default: // relaxed SIMD: off
		return false
	}
	return !r.bad
}

// skipMemarg reads a memory argument: alignment (bit 6: a memory index
// follows, multi-memory) and offset.
func skipMemarg(r *byteReader) {
	if r.uleb()&0x40 != 0 {
		r.uleb()
	}
	r.uleb()
}

// skipValType reads a value type: one byte, or (ref null? ht) with its heap
// type.
func skipValType(r *byteReader) {
	if b := r.byte(); b == 0x63 || b == 0x64 {
		r.uleb()
	}
}
