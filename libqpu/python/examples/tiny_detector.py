#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a tiny ONNX object detector with a YOLO-shaped head, for the
pipeline's tests and examples (qpu-detect, detect.py): generated here with
onnx.helper and seeded random weights, never downloaded.

image [1, 3, S, S] -> Conv 3x3/2 (8) + Relu -> Conv 3x3/2 (16) + Relu
  -> Conv 1x1 (anchors * (5 + classes)) -> Sigmoid -> head [1, A*(5+C), S/4, S/4]

Per anchor the head's channels are x and y within the cell, w and h as
fractions of the image, objectness, then the classes: what
qpu_pipeline_stage_detect() decodes. The objectness bias makes a few cells
score high, so that NMS has work.

usage: tiny_detector.py OUT.onnx [--size S] [--anchors A] [--classes C] [--seed N]
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(size=32, anchors=1, classes=3, seed=1):
    rng = np.random.RandomState(seed)
    out_ch = anchors * (5 + classes)
    grid = size // 4

    def conv_w(m, c, k):
        return (rng.standard_normal((m, c, k, k)) * np.sqrt(2.0 / (c * k * k))).astype(np.float32)

    bias3 = np.zeros(out_ch, np.float32)
    for a in range(anchors):
        base = a * (5 + classes)
        bias3[base + 2:base + 4] = -1.0    # boxes about a quarter of the image
        bias3[base + 4] = -0.5             # objectness: some cells pass 0.5
    inits = [
        numpy_helper.from_array(conv_w(8, 3, 3), "w1"),
        numpy_helper.from_array(np.zeros(8, np.float32), "b1"),
        numpy_helper.from_array(conv_w(16, 8, 3), "w2"),
        numpy_helper.from_array(np.zeros(16, np.float32), "b2"),
        numpy_helper.from_array(conv_w(out_ch, 16, 1), "w3"),
        numpy_helper.from_array(bias3, "b3"),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], name="conv1",
                         kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2",
                         kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"], name="head_conv",
                         kernel_shape=[1, 1]),
        helper.make_node("Sigmoid", ["c3"], ["head"], name="head_sigmoid"),
    ]
    graph = helper.make_graph(
        nodes, "tiny_detector",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("head", TensorProto.FLOAT, [1, out_ch, grid, grid])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="qpu tiny_detector.py")
    onnx.checker.check_model(model)
    return model


def main():
    p = argparse.ArgumentParser(description="Write a tiny ONNX detector (YOLO-shaped head).")
    p.add_argument("out", help="the .onnx file to write")
    p.add_argument("--size", type=int, default=32, help="input side, a multiple of 4 (32)")
    p.add_argument("--anchors", type=int, default=1, help="boxes per cell (1)")
    p.add_argument("--classes", type=int, default=3, help="classes (3)")
    p.add_argument("--seed", type=int, default=1, help="the weights' seed (1)")
    a = p.parse_args()
    if a.size < 4 or a.size % 4:
        p.error("--size must be a multiple of 4")
    onnx.save(build(a.size, a.anchors, a.classes, a.seed), a.out)


if __name__ == "__main__":
    main()
