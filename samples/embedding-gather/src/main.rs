//! embedding-gather: the input stage of a recommendation or language model.
//! An embedding table lives in pinned host memory (too big for the device,
//! as offloaded tables are); a batch of token ids selects scattered rows,
//! and one `aclrtMemcpyBatch` call gathers them into a contiguous device
//! buffer, one entry per row.
//!
//! Before the real batch it sends a batch with one deliberately bad entry (a
//! destination one row past the end of the device buffer, an off-by-one
//! bug): the call fails with ACL_ERROR_RT_PARAM_INVALID, failIndex names that
//! entry, and the device buffer shows that no entry was copied, not even
//! the good ones before it.
//!
//! Usage: embedding-gather [ROWS DIM BATCH SEED BAD]   (default 4096 64 32 7 5)
//! Exits 0 when every gathered row is right, 1 when not, 2 when a call fails
//! unexpectedly.

use std::process::exit;

use aclwasm::{
    codes, memcpy_batch, set_device, Addr, Batch, DeviceBuffer, MemLocation, MemcpyBatchAttr, PinnedBuffer, Result,
};

/// Every byte of the device batch before the gather.
const FILL: u8 = 0xab;

/// Element (row, col) of the table: small integers and halves, exact in f32.
fn element(row: u32, col: u32) -> f32 {
    ((row.wrapping_mul(131).wrapping_add(col.wrapping_mul(7))) % 1000) as f32 * 0.5
}

/// The token ids of the batch: xorshift32 from the seed, modulo the rows.
fn token_ids(seed: u32, n: usize, rows: u32) -> Vec<u32> {
    let mut x = if seed == 0 { 0x9e37_79b9 } else { seed };
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % rows
        })
        .collect()
}

fn fnv1a64(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &c| (h ^ c as u64).wrapping_mul(0x0100_0000_01b3))
}

fn arg(args: &[String], i: usize, def: u64) -> u64 {
    match args.get(i) {
        None => def,
        Some(s) => {
            let parsed = match s.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => s.parse(),
            };
            parsed.unwrap_or_else(|_| {
                println!("embedding-gather: argument {} ({:?}) is not a number", i, s);
                exit(2)
            })
        }
    }
}

fn run() -> Result<bool> {
    let args: Vec<String> = std::env::args().collect();
    let rows = arg(&args, 1, 4096) as u32;
    let dim = arg(&args, 2, 64) as usize;
    let batch = arg(&args, 3, 32) as usize;
    let seed = arg(&args, 4, 7) as u32;
    let bad = arg(&args, 5, 5) as usize;
    if rows == 0 || dim == 0 || batch == 0 || batch > 4096 || bad >= batch {
        println!("embedding-gather: need ROWS, DIM >= 1, 1 <= BATCH <= 4096 and BAD < BATCH");
        exit(2);
    }
    let row_bytes = dim * 4;

    set_device(0)?;

    // The table, in pinned (registered) guest memory, little-endian f32.
    let mut table = PinnedBuffer::new(rows as usize * row_bytes)?;
    for r in 0..rows {
        for c in 0..dim {
            let at = r as usize * row_bytes + c * 4;
            table[at..at + 4].copy_from_slice(&element(r, c as u32).to_le_bytes());
        }
    }
    println!(
        "embedding-gather: {} rows of {} f32 ({} bytes each) from a {}-row table ({} bytes, pinned)\n",
        batch,
        dim,
        row_bytes,
        rows,
        table.len()
    );

    let ids = token_ids(seed, batch, rows);
    let shown: Vec<String> = ids.iter().take(8).map(|i| i.to_string()).collect();
    println!("  ids        {}{}", shown.join(" "), if batch > 8 { " ..." } else { "" });

    let device = DeviceBuffer::new((batch * row_bytes) as u64)?;
    device.fill(FILL)?;

    // One entry per row: table row ids[k] -> batch row k. Every entry is H2D:
    // destinations on device 0, sources in registered host memory.
    let mut dsts: Vec<Addr> = (0..batch).map(|k| device.addr().add((k * row_bytes) as u64)).collect();
    let srcs: Vec<Addr> = ids.iter().map(|&id| table.addr().add(id as u64 * row_bytes as u64)).collect();
    let sizes = vec![row_bytes as u64; batch];
    let dest_maxs = sizes.clone();
    let attrs = [MemcpyBatchAttr::new(MemLocation::device(0), MemLocation::host())];
    let attrs_indexes = [0u64];

    // The bad batch: entry `bad` writes one row past the end of the buffer.
    let good_dst = dsts[bad];
    dsts[bad] = device.addr().add((batch * row_bytes) as u64);
    let b = Batch { dsts: &dsts, dest_maxs: &dest_maxs, srcs: &srcs, sizes: &sizes, attrs: &attrs, attrs_indexes: &attrs_indexes };
    match unsafe { memcpy_batch(&b) } {
        Ok(()) => {
            println!("  bad batch  entry {} points past the batch buffer, and the batch succeeded", bad);
            return Ok(false);
        }
        Err(e) => {
            println!("  bad batch  entry {} writes one row past the batch buffer", bad);
            println!("             -> {} ({}), failIndex {}", e.name(), e.code(), e.fail_index().map_or("none".to_string(), |i| i.to_string()));
            println!("             message: {}", e.message());
            if e.code() != codes::ACL_ERROR_RT_PARAM_INVALID || e.fail_index() != Some(bad as u64) {
                return Ok(false);
            }
        }
    }
    let mut back = vec![0u8; batch * row_bytes];
    device.read(0, &mut back)?;
    let untouched = back.iter().filter(|&&c| c == FILL).count();
    println!("             device batch untouched: {} of {} bytes still 0x{:02x}", untouched, back.len(), FILL);
    if untouched != back.len() {
        return Ok(false);
    }

    // The good batch.
    dsts[bad] = good_dst;
    let b = Batch { dsts: &dsts, dest_maxs: &dest_maxs, srcs: &srcs, sizes: &sizes, attrs: &attrs, attrs_indexes: &attrs_indexes };
    unsafe { memcpy_batch(&b)? };
    println!("  batch      aclrtMemcpyBatch: {} entries H2D, {} bytes", batch, batch * row_bytes);

    device.read(0, &mut back)?;
    let mut good = 0;
    for (k, &id) in ids.iter().enumerate() {
        let want = &table[id as usize * row_bytes..(id as usize + 1) * row_bytes];
        if &back[k * row_bytes..(k + 1) * row_bytes] == want {
            good += 1;
        }
    }
    println!("  gathered   fnv1a64 0x{:016x}", fnv1a64(&back));
    println!("  check      {} of {} rows match the table", good, batch);
    Ok(good == batch)
}

fn main() {
    match run() {
        Ok(true) => println!("\nembedding-gather: OK"),
        Ok(false) => {
            println!("\nembedding-gather: FAIL");
            exit(1)
        }
        Err(e) => {
            println!("\nembedding-gather: FAIL: {}", e);
            exit(2)
        }
    }
}
