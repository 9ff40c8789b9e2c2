/* SPDX-License-Identifier: MIT */
/*
 * libqpu neural networks: ONNX graphs run on the QPUs and on the CPU.
 *
 * A graph is loaded from a .qnn file (the compact form `qpu-nn convert`
 * writes from an ONNX model; libqpu/nn/FORMAT.md describes it) with
 * qpu_nn_load() or qpu_nn_load_mem(). Loading checks every node (operator,
 * attributes, input types and shapes) and refuses what it cannot run with
 * one line naming the node, its operator and what is missing; it infers
 * every tensor's shape, folds the nodes whose inputs are all constants and
 * fuses a convolution (or Gemm) with the activation that follows it.
 *
 * qpu_nn_bind() then places the graph on a device (or on the CPU alone):
 * it decides for each node where it runs and says why (qpu_nn_node()),
 * and sizes and places one arena for every tensor the graph computes, in
 * one buffer of the device, so that qpu_nn_run() allocates nothing. The
 * inputs and outputs live in that arena: write the inputs where
 * qpu_nn_input() says, run, read the outputs where qpu_nn_output() says.
 *
 * Operators follow ONNX's definitions (opsets 7 to 17) with static shapes:
 * Conv (groups, strides, pads), Gemm, MatMul, MaxPool, AveragePool,
 * GlobalAveragePool, Relu, Clip, Sigmoid, LeakyRelu, HardSwish, Add, Mul,
 * Concat, Reshape, Flatten, Transpose, Softmax, Resize (nearest, linear),
 * Identity, QuantizeLinear, DequantizeLinear, QLinearConv, QLinearMatMul
 * and com.microsoft's QLinearAdd. Integer operators round as ONNX's
 * reference does (half to even, saturating).
 *
 * A graph is not thread-safe: run it from one thread at a time.
 */
#ifndef QPU_NN_H
#define QPU_NN_H

#include <stddef.h>
#include <stdint.h>

#include "qpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum qpu_nn_dtype - element types (ONNX's TensorProto numbers)
 * @QPU_NN_FLOAT32: float
 * @QPU_NN_UINT8: uint8_t
 * @QPU_NN_INT8: int8_t
 * @QPU_NN_INT32: int32_t
 * @QPU_NN_INT64: int64_t
 */
enum qpu_nn_dtype {
	QPU_NN_FLOAT32 = 1,
	QPU_NN_UINT8 = 2,
	QPU_NN_INT8 = 3,
	QPU_NN_INT32 = 6,
	QPU_NN_INT64 = 7,
};

/**
 * enum qpu_nn_layout - how a 4-D tensor's elements are ordered in memory
 * @QPU_NN_NCHW: batch, channel, row, column (ONNX's order; the default)
 * @QPU_NN_NHWC: batch, row, column, channel (a camera's interleaved pixels)
 */
enum qpu_nn_layout {
	QPU_NN_NCHW = 0,
	QPU_NN_NHWC = 1,
};

/**
 * enum qpu_nn_where - where a node runs
 * @QPU_NN_WHERE_NONE: not bound yet
 * @QPU_NN_WHERE_CPU: the CPU backend's fast path (convolutions through
 *	XNNPACK where the machine has libXNNPACK.so.0, libqpu's own code
 *	elsewhere; @why says which)
 * @QPU_NN_WHERE_CPU_REF: the CPU backend's portable reference
 * @QPU_NN_WHERE_QPU: the device's QPUs
 * @QPU_NN_WHERE_FOLDED: computed at load (all its inputs are constants)
 * @QPU_NN_WHERE_FUSED: done by the node before it (an activation)
 * @QPU_NN_WHERE_VIEW: no work: its output is its input's bytes (Reshape,
 *	Flatten, Identity)
 */
enum qpu_nn_where {
	QPU_NN_WHERE_NONE = 0,
	QPU_NN_WHERE_CPU = 1,
	QPU_NN_WHERE_CPU_REF = 2,
	QPU_NN_WHERE_QPU = 3,
	QPU_NN_WHERE_FOLDED = 4,
	QPU_NN_WHERE_FUSED = 5,
	QPU_NN_WHERE_VIEW = 6,
};

/* Most dimensions a tensor has. */
#define QPU_NN_MAX_RANK 6

/**
 * struct qpu_nn_tensor_info - one input or output of a graph
 * @name: its name in the model; valid while the graph lives
 * @dtype: an enum qpu_nn_dtype
 * @layout: an enum qpu_nn_layout (4-D tensors only; NCHW otherwise)
 * @rank: number of dimensions
 * @dims: the dimensions, in ONNX's (NCHW) order whatever @layout says
 * @quantized: 1 when @scale and @zero_point are known (an 8-bit tensor
 *	made by QuantizeLinear or a QLinear operator with one scale)
 * @scale: real value = (q - @zero_point) * @scale
 * @zero_point: see @scale
 * @bytes: size of its data
 * @data: where its data is after qpu_nn_bind(): in the arena's mapping;
 *	NULL before
 * @bo: the device buffer holding the arena, NULL on the CPU alone
 * @offset: bytes from @bo's start to @data
 *
 * Filled by the library; the struct only grows at its end (libqpu/README.md).
 */
struct qpu_nn_tensor_info {
	const char *name;
	enum qpu_nn_dtype dtype;
	enum qpu_nn_layout layout;
	unsigned int rank;
	int64_t dims[QPU_NN_MAX_RANK];
	int quantized;
	float scale;
	int32_t zero_point;
	size_t bytes;
	void *data;
	struct qpu_bo *bo;
	size_t offset;
};

/**
 * struct qpu_nn_node_info - one node of a graph and the plan for it
 * @name: its name in the model (the converter names unnamed nodes)
 * @op: its ONNX operator ("Conv")
 * @where: an enum qpu_nn_where (QPU_NN_WHERE_NONE before qpu_nn_bind())
 * @why: one line saying why it runs there
 * @fused: the operator fused into it ("Relu"), or ""
 * @macs: multiply-adds it does (0 for operators that do none)
 * @bytes: bytes it reads and writes at least (inputs, weights, outputs)
 * @last_ns: wall-clock time it took in the last qpu_nn_run(), 0 before
 * @model_ns: modelled time of its last run on the device's board (the
 *	emulator with a board set, or any V3D, modelled as its generation's
 *	board; none: 0): on the QPUs, the timing model's time of its jobs
 *	and their launch (0 where no model runs: a real device, a V3D
 *	emulator without its "timing" option); on the CPU, an estimate from the
 *	board CPU's assumed speed (libqpu/nn/README.md) and memory bandwidth
 * @model_flops_pct: with @model_ns on the QPUs, the share of the board's
 *	QPU peak (its QPUs, 12 or a Pi 4's 8, x 8 flops a clock) its
 *	multiply-adds reach
 * @model_bw_pct: with @model_ns, the share of the board's modelled memory
 *	bandwidth its @bytes take in that time
 *
 * Filled by the library; the struct only grows at its end.
 */
struct qpu_nn_node_info {
	const char *name;
	const char *op;
	enum qpu_nn_where where;
	const char *why;
	const char *fused;
	uint64_t macs;
	uint64_t bytes;
	uint64_t last_ns;
	uint64_t model_ns;
	double model_flops_pct;
	double model_bw_pct;
};

/**
 * struct qpu_nn_graph - a loaded graph (opaque).
 */
struct qpu_nn_graph;

/**
 * qpu_nn_load() - load a .qnn file
 * @path: the file
 * @err: where a refusal's message goes (NUL-terminated, truncated to
 *	@err_size), or NULL
 * @err_size: bytes at @err
 *
 * Return: the graph, to free with qpu_nn_free(), or NULL with errno set
 * (ENOENT and the like from opening @path; EINVAL: a malformed or
 * truncated file, or a node that cannot be run, with @err saying which
 * node, its operator and what is missing; ENOMEM).
 */
QPU_API struct qpu_nn_graph *qpu_nn_load(const char *path, char *err, size_t err_size);

/**
 * qpu_nn_load_mem() - load a .qnn image from memory
 * @data: the image (the library keeps no pointer into it)
 * @size: its bytes
 * @err: as for qpu_nn_load()
 * @err_size: as for qpu_nn_load()
 *
 * Return: as qpu_nn_load().
 */
QPU_API struct qpu_nn_graph *qpu_nn_load_mem(const void *data, size_t size, char *err,
					     size_t err_size);

/**
 * qpu_nn_free() - free a graph, its arena and its device buffers
 * @graph: the graph, or NULL
 *
 * Free graphs before closing their device.
 */
QPU_API void qpu_nn_free(struct qpu_nn_graph *graph);

/* qpu_nn_bind() flags */
/* Every node on the CPU, even with a device. */
#define QPU_NN_BIND_CPU_ONLY (1u << 0)
/* The CPU nodes through the portable reference, not the fast path. */
#define QPU_NN_BIND_REFERENCE (1u << 1)
/* Every node that has a QPU kernel on the QPUs, whatever the model says. */
#define QPU_NN_BIND_QPU_ALL (1u << 2)
/* The CPU's convolutions by libqpu's own code even where XNNPACK is. */
#define QPU_NN_BIND_NO_XNNPACK (1u << 3)
/*
 * A QDQ model's DequantizeLinear -> Conv/Gemm/MatMul/Add -> QuantizeLinear
 * run as the integer operator of the same integers, as ONNX Runtime fuses
 * them, not literally in float (the default: faster on every board today);
 * $QPU_NN_QDQ=int8 does the same.
 */
#define QPU_NN_BIND_QDQ_INT8 (1u << 4)

/**
 * qpu_nn_bind() - plan a graph on a device and place its arena
 * @graph: the graph, not bound yet
 * @dev: the device, or NULL for the CPU alone; it must outlive @graph
 * @flags: QPU_NN_BIND_* bits
 *
 * Places each node (qpu_nn_node() says where and why): on the QPUs when
 * the device's QPUs have a kernel for it and the timing model says they
 * are faster there than the CPU, otherwise on the CPU. Allocates the
 * arena (one device buffer, or host memory without a device) and a
 * buffer for the constants the QPUs read; a later qpu_nn_run() allocates
 * nothing. A graph is bound once.
 *
 * Return: 0; -EINVAL (already bound, or bad flags), -ENOMEM, or the
 * device's error (qpu_nn_last_error() says which).
 */
QPU_API int qpu_nn_bind(struct qpu_nn_graph *graph, struct qpu_dev *dev, unsigned int flags);

/**
 * qpu_nn_run() - run a bound graph once on the inputs in its arena
 * @graph: the graph
 *
 * Return: 0, -EINVAL when not bound, -EIO when a QPU job failed
 * (qpu_nn_last_error() says which node and why).
 */
QPU_API int qpu_nn_run(struct qpu_nn_graph *graph);

/**
 * qpu_nn_last_error() - why the last call on @graph failed
 * @graph: the graph
 *
 * Return: a message, or "" when the last call succeeded; owned by @graph.
 */
QPU_API const char *qpu_nn_last_error(const struct qpu_nn_graph *graph);

/* The graph's inputs, outputs and nodes, counted from 0. */
QPU_API unsigned int qpu_nn_input_count(const struct qpu_nn_graph *graph);
QPU_API unsigned int qpu_nn_output_count(const struct qpu_nn_graph *graph);
QPU_API unsigned int qpu_nn_node_count(const struct qpu_nn_graph *graph);

/**
 * qpu_nn_input() - describe input @index
 * @graph: the graph
 * @index: which input
 * @info: filled on success
 *
 * Return: 0, or -EINVAL for an index out of range.
 */
QPU_API int qpu_nn_input(const struct qpu_nn_graph *graph, unsigned int index,
			 struct qpu_nn_tensor_info *info);

/* qpu_nn_output() - describe output @index, as qpu_nn_input(). */
QPU_API int qpu_nn_output(const struct qpu_nn_graph *graph, unsigned int index,
			  struct qpu_nn_tensor_info *info);

/**
 * qpu_nn_set_input_layout() - choose the memory order of a 4-D input
 * @graph: the graph, not bound yet
 * @index: which input
 * @layout: an enum qpu_nn_layout
 *
 * An NHWC input is reordered to NCHW at the start of each run.
 *
 * Return: 0, or -EINVAL (bound already, index out of range, not 4-D).
 */
QPU_API int qpu_nn_set_input_layout(struct qpu_nn_graph *graph, unsigned int index,
				    enum qpu_nn_layout layout);

/* qpu_nn_set_output_layout() - the same for output @index. */
QPU_API int qpu_nn_set_output_layout(struct qpu_nn_graph *graph, unsigned int index,
				     enum qpu_nn_layout layout);

/**
 * qpu_nn_node() - describe node @index and the plan for it
 * @graph: the graph
 * @index: which node, in the model's order
 * @info: filled on success; its strings live as long as @graph
 *
 * Return: 0, or -EINVAL for an index out of range.
 */
QPU_API int qpu_nn_node(const struct qpu_nn_graph *graph, unsigned int index,
			struct qpu_nn_node_info *info);

/**
 * qpu_nn_arena_bytes() - bytes of the arena qpu_nn_bind() placed
 * @graph: the graph
 *
 * Return: the arena's size (every tensor the graph computes, laid out so
 * that tensors alive at the same time do not overlap, and the largest
 * node's scratch), 0 before qpu_nn_bind().
 */
QPU_API size_t qpu_nn_arena_bytes(const struct qpu_nn_graph *graph);

/**
 * qpu_nn_where_name() - "cpu", "cpu-ref", "qpu", "folded", "fused", "view"
 * @where: an enum qpu_nn_where
 *
 * Return: the name, or "none" for another value.
 */
QPU_API const char *qpu_nn_where_name(enum qpu_nn_where where);

/**
 * qpu_nn_set_timeout() - the timeout of a bound graph's QPU jobs
 * @graph: the graph, bound
 * @timeout_ms: each job's timeout from now on (qpu_kernels_set_timeout());
 *	0, the default, for the device's longest
 *
 * A pipeline's inference stage gives its budget here, so that a hung job
 * costs that budget, not the device's longest timeout.
 *
 * Return: 0 (also for a graph bound to the CPU alone, which runs no job),
 * -EINVAL when not bound.
 *
 * New in libqpu 0.7.
 */
QPU_API int qpu_nn_set_timeout(struct qpu_nn_graph *graph, unsigned int timeout_ms);

/**
 * qpu_nn_run_input() - run a bound graph on an input in a buffer, after a fence
 * @graph: a bound graph of one input
 * @bo: the buffer holding input 0 at @offset (its bytes, in the order
 *	qpu_nn_input() describes), or NULL for the input in the arena; of
 *	the graph's device when it is bound to one
 * @offset: where the input starts in @bo (a multiple of 4)
 * @in_fence_fd: a job fence (qpu_preprocess_submit()'s out-fence) after
 *	which the input is there, or -1
 *
 * The nodes read the input where @bo holds it, with no copy into the arena
 * (but for an NHWC input, a view of the input that is an output, or an
 * XNNPACK node reading it at an address taken at bind: those copy it once
 * the fence signalled). When the first node that works is on the QPUs and
 * its job reads the input itself (a 1x1 convolution, a product, a
 * depthwise convolution or a pooling), the fence goes to that job as its
 * in-fence and the CPU does not wait for it: qpu.ko and a v3d node queue
 * the job behind it, the emulator's worker runs it once it signalled. A
 * kernel that packs the input on the host before its job (sgemm packs its
 * A operand, a product's input, and on VideoCore IV the B of some shapes)
 * waits for the fence on the CPU there. Otherwise the call waits for the
 * fence on the CPU first. The outputs
 * are where qpu_nn_output() says, as after qpu_nn_run(). New in 0.8.
 *
 * Return: 0; -EINVAL (not bound, not one input, @bo too small or of
 * another device, a misaligned @offset, an in-fence that is no job
 * fence); -ECANCELED when the fence's job did not end well (the input is
 * not there: nothing of the graph ran, or its first job was canceled);
 * -EIO as qpu_nn_run(). qpu_nn_last_error() says which.
 */
QPU_API int qpu_nn_run_input(struct qpu_nn_graph *graph, struct qpu_bo *bo, size_t offset,
			     int in_fence_fd);

#ifdef __cplusplus
}
#endif

#endif /* QPU_NN_H */
