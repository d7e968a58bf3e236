#!/usr/bin/env python3
"""train.py: trains the edge-classify sample's model and writes it as ONNX.

    /usr/bin/python3 train.py OUTDIR

The model classifies small grayscale images of five generated patterns
(CLASSES, in the order of its outputs): it is a convolutional network,
two 3x3 convolutions with ReLU and 2x2 max pooling, then a dense layer,
whose weights this script trains here, on images it draws, with numpy
(plain mini-batch Adam and hand-written backpropagation: no framework,
nothing downloaded). Everything comes from fixed seeds, so a run on the
same numpy writes the same model. It writes OUTDIR/shapes.onnx (input
"image" [1, 1, 16, 16] float32, output "logits" [1, 5] float32: the
sample applies the softmax on the device) and one example image per
class, OUTDIR/<class>.pgm, and prints the accuracy on held-out images; it
fails if that is below 97%.

The images are drawn at random sizes and reduced to 16x16 by area
averaging, then normalised as (v - 0.5) / 0.25 with v in [0, 1]: the
pre-processing the sample does in wasm (samples/edge-classify/classify.c)
and internal/edgeref repeats in Go for the tests.

Needs Debian's python3-numpy and python3-onnx.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CLASSES = ["hstripes", "vstripes", "disc", "cross", "checker"]
SIDE = 16  # the model's input is SIDE x SIDE
MEAN, STD = 0.5, 0.25


def draw(cls, h, w, p):
    """The pattern cls on an h x w grid, in [0, 1], from the parameters p
    (fractions of the image: see params). Pixel centres are at (i + 0.5) / n."""
    y = (np.arange(h)[:, None] + 0.5) / h
    x = (np.arange(w)[None, :] + 0.5) / w
    if cls == "hstripes":
        fg = np.mod(y / p["period"] + p["phase"], 1.0) < 0.5
    elif cls == "vstripes":
        fg = np.mod(x / p["period"] + p["phase"], 1.0) < 0.5
    elif cls == "disc":
        fg = (x - p["cx"]) ** 2 + (y - p["cy"]) ** 2 < p["r"] ** 2
    elif cls == "cross":
        fg = (np.abs(x - p["cx"]) < p["t"]) | (np.abs(y - p["cy"]) < p["t"])
    else:  # checker
        fg = (np.floor(x / p["period"] + p["phase"]) + np.floor(y / p["period"] + p["phase"])) % 2 == 0
    fg = np.broadcast_to(fg, (h, w))
    return np.where(fg, p["fg"], p["bg"])


def params(rng):
    return {
        "period": rng.uniform(0.2, 0.34), "phase": rng.uniform(0, 1),
        "cx": rng.uniform(0.35, 0.65), "cy": rng.uniform(0.35, 0.65),
        "r": rng.uniform(0.18, 0.34), "t": rng.uniform(0.07, 0.14),
        "fg": rng.uniform(0.65, 1.0), "bg": rng.uniform(0.0, 0.35),
    }


def area(n_in, n_out):
    """The n_out x n_in matrix of area averaging: output pixel o covers
    [o * s, (o + 1) * s) of the input (s = n_in / n_out), each input pixel
    weighted by its overlap with that range."""
    s = n_in / n_out
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        lo, hi = o * s, (o + 1) * s
        for i in range(int(np.floor(lo)), min(n_in, int(np.ceil(hi)))):
            m[o, i] = (min(hi, i + 1) - max(lo, i)) / s
    return m


def sample(rng, cls):
    """One training image: cls drawn at a random size, with noise,
    quantised to 8 bits as a PGM holds it, reduced to SIDE x SIDE."""
    h, w = rng.randint(16, 65), rng.randint(16, 65)
    img = draw(cls, h, w, params(rng)) + rng.normal(0, 0.03, (h, w))
    img = np.round(np.clip(img, 0, 1) * 255) / 255
    small = area(h, SIDE) @ img @ area(w, SIDE).T
    return (small - MEAN) / STD


def dataset(rng, n):
    xs, ys = [], []
    for _ in range(n):
        c = rng.randint(len(CLASSES))
        xs.append(sample(rng, CLASSES[c]))
        ys.append(c)
    return np.array(xs, dtype=np.float32)[:, None], np.array(ys)


def im2col(x):
    """(N, C, H, W) -> (N, H*W, C*9): the 3x3 patches of x padded by 1, in
    the order of a weight tensor (F, C, 3, 3) flattened."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    p = np.stack([xp[:, :, i:i + h, j:j + w] for i in range(3) for j in range(3)], axis=2)  # N C 9 H W
    return p.transpose(0, 3, 4, 1, 2).reshape(n, h * w, c * 9)


def col2im(d, shape):
    """The adjoint of im2col: (N, H*W, C*9) -> (N, C, H, W)."""
    n, c, h, w = shape
    d = d.reshape(n, h, w, c, 9).transpose(0, 3, 4, 1, 2)
    dp = np.zeros((n, c, h + 2, w + 2), dtype=d.dtype)
    for k in range(9):
        i, j = divmod(k, 3)
        dp[:, :, i:i + h, j:j + w] += d[:, :, k]
    return dp[:, :, 1:-1, 1:-1]


def conv(x, wt, b):
    n, _, h, w = x.shape
    cols = im2col(x)
    out = cols @ wt.reshape(wt.shape[0], -1).T + b
    return out.transpose(0, 2, 1).reshape(n, wt.shape[0], h, w), cols


def conv_back(d, cols, wt, xshape):
    n, f, h, w = d.shape
    d = d.reshape(n, f, h * w).transpose(0, 2, 1)  # N HW F
    dw = (d.reshape(-1, f).T @ cols.reshape(-1, cols.shape[2])).reshape(wt.shape)
    return col2im(d @ wt.reshape(f, -1), xshape), dw, d.sum(axis=(0, 1))


def pool(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def pool_back(d, x, y):
    n, c, h, w = x.shape
    up = lambda a: a.repeat(2, axis=2).repeat(2, axis=3)
    return (x == up(y)) * up(d)


def forward(p, x):
    c1, cols1 = conv(x, p["w1"], p["b1"])
    r1 = np.maximum(c1, 0)
    p1 = pool(r1)
    c2, cols2 = conv(p1, p["w2"], p["b2"])
    r2 = np.maximum(c2, 0)
    p2 = pool(r2)
    f = p2.reshape(len(x), -1)
    logits = f @ p["wd"].T + p["bd"]
    return logits, (x, c1, cols1, r1, p1, c2, cols2, r2, p2, f)


def grads(p, x, y):
    logits, (x, c1, cols1, r1, p1, c2, cols2, r2, p2, f) = forward(p, x)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    prob = e / e.sum(axis=1, keepdims=True)
    d = prob.copy()
    d[np.arange(len(y)), y] -= 1
    d /= len(y)
    g = {"wd": d.T @ f, "bd": d.sum(axis=0)}
    d = (d @ p["wd"]).reshape(p2.shape)
    d = pool_back(d, r2, p2) * (c2 > 0)
    d, g["w2"], g["b2"] = conv_back(d, cols2, p["w2"], p1.shape)
    d = pool_back(d, r1, p1) * (c1 > 0)
    _, g["w1"], g["b1"] = conv_back(d, cols1, p["w1"], x.shape)
    return g


def train(rng):
    he = lambda *s: (rng.standard_normal(s) * np.sqrt(2.0 / np.prod(s[1:]))).astype(np.float32)
    p = {"w1": he(8, 1, 3, 3), "b1": np.zeros(8, np.float32),
         "w2": he(16, 8, 3, 3), "b2": np.zeros(16, np.float32),
         "wd": he(len(CLASSES), 16 * 4 * 4), "bd": np.zeros(len(CLASSES), np.float32)}
    x, y = dataset(rng, 2000)
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(a) for k, a in p.items()}
    lr, b1, b2, step = 0.01, 0.9, 0.999, 0
    for epoch in range(4):
        order = rng.permutation(len(x))
        for s in range(0, len(x), 50):
            idx = order[s:s + 50]
            g = grads(p, x[idx], y[idx])
            step += 1
            for k in p:
                m[k] = b1 * m[k] + (1 - b1) * g[k]
                v[k] = b2 * v[k] + (1 - b2) * g[k] ** 2
                mh, vh = m[k] / (1 - b1 ** step), v[k] / (1 - b2 ** step)
                p[k] = (p[k] - lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
    return p


def export(p, path):
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("MaxPool", ["r2"], ["p2"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p2"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "wd", "bd"], ["logits"], transB=1),
    ]
    inits = [numpy_helper.from_array(np.ascontiguousarray(a, dtype=np.float32), k) for k, a in p.items()]
    graph = helper.make_graph(
        nodes, "shapes",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 1, SIDE, SIDE])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, len(CLASSES)])], inits)
    model = helper.make_model(graph, producer_name="aclwasm-edge-classify",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.doc_string = "classes: " + ",".join(CLASSES)
    onnx.checker.check_model(model)
    onnx.save(model, path)


def pgm(path, img):
    h, w = img.shape
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h))
        f.write(np.round(np.clip(img, 0, 1) * 255).astype(np.uint8).tobytes())


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: train.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.RandomState(7)
    p = train(rng)
    x, y = dataset(np.random.RandomState(8), 500)
    acc = (forward(p, x)[0].argmax(axis=1) == y).mean()
    print("held-out accuracy: %.3f" % acc)
    if acc < 0.97:
        sys.exit("train.py: accuracy %.3f is below 0.97" % acc)
    export(p, os.path.join(out, "shapes.onnx"))
    ex = np.random.RandomState(9)
    for cls in CLASSES:
        pgm(os.path.join(out, cls + ".pgm"), draw(cls, 48, 40, params(ex)))


if __name__ == "__main__":
    main()
