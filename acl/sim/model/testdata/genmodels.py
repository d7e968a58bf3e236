#!/usr/bin/env python3
"""genmodels.py: writes the ONNX models the tests run, with their inputs and
the outputs numpy computes for them independently of any ONNX runtime.

    python3 genmodels.py OUTDIR

Needs Debian's python3-onnx (and python3-numpy); nothing is downloaded.
Weights and inputs come from fixed seeds, so every run writes the same
files. For each model NAME it writes NAME.onnx, NAME.in<i>.bin (input i)
and NAME.want<i>.bin (output i), raw little-endian in the model's types.
Every model uses opset 13 and static shapes.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


def conv2d(x, w, b=None, stride=1, pad=0):
    """NCHW convolution in float64, by the definition."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, m, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            out += np.einsum("nchw,mc->nmhw", patch, w[:, :, i, j].astype(np.float64))
    if b is not None:
        out += b.astype(np.float64).reshape(1, m, 1, 1)
    return out


def maxpool2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def relu(x):
    return np.maximum(x, 0)


def init(name, a):
    return numpy_helper.from_array(a, name)


def vinfo(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, list(shape))


def save(out, name, nodes, inputs, outputs, inits, feeds, wants):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, producer_name="aclwasm-genmodels",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    for i, a in enumerate(feeds):
        np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tofile(os.path.join(out, "%s.in%d.bin" % (name, i)))
    for i, a in enumerate(wants):
        np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tofile(os.path.join(out, "%s.want%d.bin" % (name, i)))


def f32(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def mlp(out):
    """A two-layer perceptron with two outputs: logits and their softmax."""
    rng = np.random.RandomState(1)
    w1, b1 = f32(rng, 8, 16, scale=0.5), f32(rng, 16, scale=0.1)
    w2, b2 = f32(rng, 16, 4, scale=0.5), f32(rng, 4, scale=0.1)
    x = f32(rng, 1, 8)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h0"]),
        helper.make_node("Add", ["h0", "b1"], ["h1"]),
        helper.make_node("Relu", ["h1"], ["h2"]),
        helper.make_node("MatMul", ["h2", "w2"], ["h3"]),
        helper.make_node("Add", ["h3", "b2"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=-1),
    ]
    h = relu(x.astype(np.float64) @ w1 + b1)
    logits = h @ w2 + b2
    save(out, "mlp", nodes, [vinfo("x", TensorProto.FLOAT, x.shape)],
         [vinfo("logits", TensorProto.FLOAT, (1, 4)), vinfo("probs", TensorProto.FLOAT, (1, 4))],
         [init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2)],
         [x], [logits.astype(np.float32), softmax(logits).astype(np.float32)])


def cnn(out):
    """A small all-convolutional classifier: two 3x3 convolutions (the
    second with stride 2 in place of pooling), a dense layer, softmax."""
    rng = np.random.RandomState(2)
    w1, b1 = f32(rng, 16, 3, 3, 3, scale=0.3), f32(rng, 16, scale=0.1)
    w2, b2 = f32(rng, 32, 16, 3, 3, scale=0.1), f32(rng, 32, scale=0.1)
    wd, bd = f32(rng, 10, 32 * 16 * 16, scale=0.02), f32(rng, 10, scale=0.1)
    x = f32(rng, 1, 3, 32, 32)
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("Flatten", ["r2"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "wd", "bd"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=-1),
    ]
    r2 = relu(conv2d(relu(conv2d(x, w1, b1, pad=1)), w2, b2, stride=2, pad=1))
    logits = r2.reshape(1, -1) @ wd.astype(np.float64).T + bd
    save(out, "cnn", nodes, [vinfo("image", TensorProto.FLOAT, x.shape)],
         [vinfo("probs", TensorProto.FLOAT, (1, 10))],
         [init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2), init("wd", wd), init("bd", bd)],
         [x], [softmax(logits).astype(np.float32)])


def cnnpool(out):
    """The classifier in its pooled form (MaxPool, GlobalAveragePool): what
    the operator-coverage comparison asks of a library."""
    rng = np.random.RandomState(3)
    w1, b1 = f32(rng, 16, 3, 3, 3, scale=0.3), f32(rng, 16, scale=0.1)
    w2, b2 = f32(rng, 32, 16, 3, 3, scale=0.1), f32(rng, 32, scale=0.1)
    wd, bd = f32(rng, 10, 32, scale=0.3), f32(rng, 10, scale=0.1)
    x = f32(rng, 1, 3, 32, 32)
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "wd", "bd"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=-1),
    ]
    r2 = relu(conv2d(maxpool2(relu(conv2d(x, w1, b1, pad=1))), w2, b2, pad=1))
    logits = r2.mean(axis=(2, 3)) @ wd.astype(np.float64).T + bd
    save(out, "cnnpool", nodes, [vinfo("image", TensorProto.FLOAT, x.shape)],
         [vinfo("probs", TensorProto.FLOAT, (1, 10))],
         [init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2), init("wd", wd), init("bd", bd)],
         [x], [softmax(logits).astype(np.float32)])


def edge(out):
    """A fixed edge detector: Sobel gradients, |gx| + |gy|."""
    sobel = np.array([[[[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]],
                      [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]]]], dtype=np.float32)
    ones = np.ones((1, 2, 1, 1), dtype=np.float32)
    x = np.zeros((1, 1, 32, 32), dtype=np.float32)
    x[:, :, 8:24, 8:24] = 1.0  # a bright square: edges on its border only
    nodes = [
        helper.make_node("Conv", ["image", "sobel"], ["g"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Abs", ["g"], ["a"]),
        helper.make_node("Conv", ["a", "ones"], ["edges"], kernel_shape=[1, 1]),
    ]
    want = np.abs(conv2d(x, sobel, pad=1)).sum(axis=1, keepdims=True)
    save(out, "edge", nodes, [vinfo("image", TensorProto.FLOAT, x.shape)],
         [vinfo("edges", TensorProto.FLOAT, want.shape)],
         [init("sobel", sobel), init("ones", ones)], [x], [want.astype(np.float32)])


def scale(out):
    """An int32 input scaled into float32: a model whose input and output
    types differ."""
    s = np.array([0.5, 2.0, -1.0], dtype=np.float32)
    x = np.array([[1, 2, 3], [-4, 5, 600]], dtype=np.int32)
    nodes = [
        helper.make_node("Cast", ["counts"], ["c"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["c", "s"], ["scaled"]),
    ]
    save(out, "scale", nodes, [vinfo("counts", TensorProto.INT32, x.shape)],
         [vinfo("scaled", TensorProto.FLOAT, x.shape)], [init("s", s)],
         [x], [(x.astype(np.float64) * s).astype(np.float32)])


def divide(out):
    """Integer division: a model that fails as it runs when a divisor is
    0 (the runtime's error, never the host's). Its generated input has
    no zero divisor."""
    a = np.array([[7, -9, 100, 3]], dtype=np.int32)
    b = np.array([[2, 4, -7, 3]], dtype=np.int32)
    nodes = [helper.make_node("Div", ["a", "b"], ["q"])]
    q = np.trunc(a.astype(np.float64) / b).astype(np.int32)  # ONNX integer Div truncates
    save(out, "divide", nodes, [vinfo("a", TensorProto.INT32, a.shape), vinfo("b", TensorProto.INT32, b.shape)],
         [vinfo("q", TensorProto.INT32, q.shape)], [], [a, b], [q])


def refused(out):
    """Models a runner must refuse at load, each with one flaw: a dynamic
    batch dimension, an operator (HardSigmoid) the runtime lacks, and an
    input of 129 dims (aclmdlIODims holds 128)."""
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    graph = helper.make_graph(nodes, "dynamic", [vinfo("x", TensorProto.FLOAT, ("N", 4))],
                              [vinfo("y", TensorProto.FLOAT, ("N", 4))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "dynamic.onnx"))
    nodes = [helper.make_node("HardSigmoid", ["x"], ["y"])]
    graph = helper.make_graph(nodes, "unsupported", [vinfo("x", TensorProto.FLOAT, (1, 4))],
                              [vinfo("y", TensorProto.FLOAT, (1, 4))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "unsupported.onnx"))
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    graph = helper.make_graph(nodes, "deep", [vinfo("x", TensorProto.FLOAT, (1,) * 129)],
                              [vinfo("y", TensorProto.FLOAT, (1,) * 129)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "deep.onnx"))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: genmodels.py OUTDIR")
    out = sys.argv[1]
    for make in (mlp, cnn, cnnpool, edge, scale, divide, refused):
        make(out)


if __name__ == "__main__":
    main()
