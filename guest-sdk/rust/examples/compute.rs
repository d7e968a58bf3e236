//! Compute through the crate's API (ABI section 13), checked by the guest
//! itself: two tensors added by the host's operator library (and a call
//! with mismatched shapes refused with the library's code), the same sum
//! by the `basic` set's AddF32 kernel, and the approved model `mlp` run
//! synchronously and on a stream. It prints what it computed and exits 0,
//! or prints the failed check and exits 1. tests/sdk_compute_test.go runs
//! it with the `basic` kernels granted and `mlp` approved.
//!
//! Build (from guest-sdk/rust):
//!   RUSTC=/usr/bin/rustc /usr/bin/cargo build --offline --release --target wasm32-wasi --example compute
//! Output: target/wasm32-wasi/release/examples/compute.wasm (a WASI command).

use aclwasm::kernels::basic::AddF32;
use aclwasm::model::{DataBuffer, Dataset, Model};
use aclwasm::{codes, nn, DataType, DeviceBuffer, Result, Stream};

fn fail(what: &str) -> ! {
    println!("check failed: {}", what);
    std::process::exit(1)
}

fn put(buf: &DeviceBuffer, v: &[f32]) -> Result<()> {
    let b: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
    buf.write(0, &b)
}

fn get(buf: &DeviceBuffer, n: usize) -> Result<Vec<f32>> {
    let mut b = vec![0u8; n * 4];
    buf.read(0, &mut b)?;
    Ok(b.chunks_exact(4).map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect())
}

fn show(v: &[f32], prec: usize) -> String {
    v.iter().map(|f| format!("{:.*}", prec, f)).collect::<Vec<_>>().join(" ")
}

fn run() -> Result<()> {
    aclwasm::set_device(0)?;
    let stream = Stream::new()?;
    let (a, b, c) = (DeviceBuffer::new(16)?, DeviceBuffer::new(16)?, DeviceBuffer::new(16)?);
    put(&a, &[1.0, 2.0, 3.0, 4.0])?;
    put(&b, &[10.0, 20.0, 30.0, 40.0])?;

    // The operator library: c = a + 1 * b.
    {
        let ta = nn::Tensor::new(&a, DataType::FLOAT, &[4])?;
        let tb = nn::Tensor::new(&b, DataType::FLOAT, &[4])?;
        let tc = nn::Tensor::new(&c, DataType::FLOAT, &[4])?;
        nn::add(&ta, &tb, &nn::Scalar::from_f32(1.0)?, &tc, &stream)?;
        stream.synchronize()?;
        let sum = get(&c, 4)?;
        if sum != [11.0, 22.0, 33.0, 44.0] {
            fail(&format!("aclnnAdd gave {:?}", sum));
        }
        println!("add: {}", show(&sum, 0));

        // Shapes that do not broadcast: refused by the first phase.
        let t3 = nn::Tensor::new(&c, DataType::FLOAT, &[3])?;
        match nn::add(&ta, &t3, &nn::Scalar::from_f32(1.0)?, &tc, &stream) {
            Err(e) if e.code() == codes::ACLNN_ERR_PARAM_INVALID && e.func() == "aclnnAddGetWorkspaceSize" && !e.message().is_empty() => {
                println!("bad shapes: {} {}", e.code(), e.name())
            }
            r => fail(&format!("add of [4] and [3] gave {:?}", r.err())),
        }
    }

    // Every kind of operator argument: Mm (an int8), ReduceSum (an int
    // array, a bool, a data type), InplaceZero, Softmax (a negative int64)
    // and Cast, over x = [[1, 2], [3, 4]].
    {
        let m = DeviceBuffer::new(16)?;
        let (r, z, sm, i) = (DeviceBuffer::new(8)?, DeviceBuffer::new(8)?, DeviceBuffer::new(8)?, DeviceBuffer::new(16)?);
        let x = nn::Tensor::new(&a, DataType::FLOAT, &[2, 2])?;
        let tm = nn::Tensor::new(&m, DataType::FLOAT, &[2, 2])?;
        let tr = nn::Tensor::new(&r, DataType::FLOAT, &[2, 1])?;
        let (tz, tsm) = (nn::Tensor::new(&z, DataType::FLOAT, &[1, 2])?, nn::Tensor::new(&sm, DataType::FLOAT, &[1, 2])?);
        let ti = nn::Tensor::new(&i, DataType::INT32, &[4])?;
        let tmv = nn::Tensor::new(&m, DataType::FLOAT, &[4])?;
        nn::mm(&x, &x, &tm, 1, &stream)?;
        nn::reduce_sum(&tm, &nn::IntArray::new(&[1])?, true, DataType::FLOAT, &tr, &stream)?;
        z.fill(0xff)?;
        nn::inplace_zero(&tz, &stream)?;
        nn::softmax(&tz, -1, &tsm, &stream)?;
        nn::cast(&tmv, DataType::INT32, &ti, &stream)?;
        stream.synchronize()?;
        let mut ib = [0u8; 16];
        i.read(0, &mut ib)?;
        let ints: Vec<String> = ib.chunks_exact(4).map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]).to_string()).collect();
        println!("ops: mm {}, sum {}, softmax {}, cast {}", show(&get(&m, 4)?, 0), show(&get(&r, 2)?, 0), show(&get(&sm, 2)?, 1), ints.join(" "));
    }

    // A kernel the host registers: the same sum by AddF32.
    c.fill(0)?;
    AddF32(1, &stream, a.addr(), b.addr(), c.addr(), 4)?;
    stream.synchronize()?;
    let sum = get(&c, 4)?;
    if sum != [11.0, 22.0, 33.0, 44.0] {
        fail(&format!("AddF32 gave {:?}", sum));
    }
    println!("kernel: {}", show(&sum, 0));

    // An approved model: logits and probabilities of x[i] = i/4 - 1.
    match Model::load("not-approved") {
        Err(e) if e.code() == codes::ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID => println!("unapproved: {}", e.code()),
        _ => fail("an unapproved model loaded"),
    }
    let m = Model::load("mlp")?;
    if m.num_inputs() != 1 || m.num_outputs() != 2 || m.input_size(0) != 32 {
        fail("mlp has one input of 8 floats and two outputs");
    }
    let x = DeviceBuffer::new(m.input_size(0))?;
    let xs: Vec<f32> = (0..8).map(|i| i as f32 / 4.0 - 1.0).collect();
    put(&x, &xs)?;
    let (logits, probs) = (DeviceBuffer::new(m.output_size(0))?, DeviceBuffer::new(m.output_size(1))?);
    let ins = [DataBuffer::of(&x)];
    let outs = [DataBuffer::of(&logits), DataBuffer::of(&probs)];
    let (input, output) = (Dataset::new(&ins)?, Dataset::new(&outs)?);
    m.execute_async(&input, &output, &stream)?;
    stream.synchronize()?;
    let (l, p) = (get(&logits, 4)?, get(&probs, 4)?);
    logits.fill(0)?;
    m.execute(&input, &output)?;
    if get(&logits, 4)? != l {
        fail("aclmdlExecute and aclmdlExecuteAsync differ");
    }
    println!("logits: {}", show(&l, 4));
    println!("probs: {}", show(&p, 4));
    drop((input, output));
    m.unload()?;
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        fail(&e.to_string());
    }
    println!("compute: ok");
}
