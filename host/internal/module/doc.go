// Package module reads and rewrites the binaries of the guests' wasm
// modules, before any engine sees them: the host scans each module for
// what the engines do not all show and for compile bombs, and prepares it
// so that every engine runs it under the same limits. It reads bytes
// directly (it runs on every Load) and validates nothing the engines
// validate: a module it cannot read is left to the engine's validation,
// or refused by the rewrite that needed to read it.
//
// Its exported surface is what package host calls:
//
//   - [Scan] returns a module's [Info]: its imports with their kinds
//     ([Import]; the engines list only function imports alike), the
//     minimum size of its memory, and the sizes of its code
//     ([CodeStats]) that bound its compile time. The host checks the
//     imports and the memory against the policy.
//   - [CompileLimits] checks those sizes against the policy's compile
//     limits ([Limits], the fields of the host's Policy of the same
//     names: this package cannot import the host), because no engine
//     can stop a compilation in progress.
//   - [Lengths] refuses a module that declares a length longer than its
//     bytes (a vector of 2^32 tables in 45 bytes): wazero allocates what
//     a length declares before reading it, and an allocation that large
//     is a fatal error of the whole process (a decode bomb).
//   - [BoundTables], [SanitizeNames], [BoundStack], [MemoryExport] and
//     [HoistStart] are the rewrites, in the order the host applies them:
//     tables given a maximum (table.grow stops at the policy), names made
//     safe to print in backtraces, the call stack bounded by a counter
//     the same on every engine, memory 0 exported (wasmtime shows an
//     embedder only exported memories) and the start function moved to an
//     export (the host runs it as an instance's first call). The names of
//     the exports they add are [ExportStart], [ExportStack],
//     [ExportMemory] and [ExportMemoryHidden].
//   - [FuncExports] lists the functions a module exports, which a
//     plugin reports (whether it is a command, for one).
//   - [ShortName] makes a guest's name printable and short, at most
//     [MaxNameBytes] bytes: the host shows import names in its refusals
//     and function names in trap backtraces only through it.
//
// The engines read the stack counter after a trap: its value
// [github.com/aclwasm/aclwasm/host/internal/engine.StackExhausted] means
// the trap was the stack limit's.
package module
