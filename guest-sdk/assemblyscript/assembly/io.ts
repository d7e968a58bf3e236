// The raw imports of module "aclwasm", the host's bytes-in, bytes-out
// convention (docs/EMBEDDING.md), with their exact wire types. Each returns a
// length, or 0 or an aclError code whose message aclGetRecentErrMsg reports.
// index.ts wraps them: input(), output(), config().

/**
 * The length of the call's input in bytes (0 outside a bytes call).
 *
 * Wire: input_len() -> i32
 */
// @ts-ignore: decorator
@external("aclwasm", "input_len")
export declare function aclwasm_input_len(): i32;

/**
 * Copies the first len bytes of the input to buf: 100000 if len exceeds the
 * input or buf is outside guest memory.
 *
 * Wire: input_read(buf gptr, len i32) -> i32
 */
// @ts-ignore: decorator
@external("aclwasm", "input_read")
export declare function aclwasm_input_read(buf: usize, len: i32): i32;

/**
 * Appends len bytes at buf to the output: 100000 outside a bytes call or with
 * buf outside guest memory, 207012 beyond the host's output limit.
 *
 * Wire: output_write(buf gptr, len i32) -> i32
 */
// @ts-ignore: decorator
@external("aclwasm", "output_write")
export declare function aclwasm_output_write(buf: usize, len: i32): i32;

/**
 * Copies at most bufLen bytes of the value of the key [key, +keyLen) to buf
 * and returns the value's full length (at most 65536), or -1 if the key is
 * not set.
 *
 * Wire: config_read(key gptr, keyLen i32, buf gptr, bufLen i32) -> i32
 */
// @ts-ignore: decorator
@external("aclwasm", "config_read")
export declare function aclwasm_config_read(key: usize, keyLen: i32, buf: usize, bufLen: i32): i32;

/**
 * Sets the message that says why the running call fails: the host reports
 * it with the call's nonzero status (len 0 clears it). 100000 with msg
 * outside guest memory.
 *
 * Wire: error_set(msg gptr, len i32) -> i32
 */
// @ts-ignore: decorator
@external("aclwasm", "error_set")
export declare function aclwasm_error_set(msg: usize, len: i32): i32;
