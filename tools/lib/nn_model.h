/* SPDX-License-Identifier: MIT */
/*
 * A model file for the tools that load neural networks (nn_model.c): a
 * .qnn as it is, an .onnx converted on the way by the Python package's
 * converter (python3 -m qpu.nn convert; $PYTHON names the interpreter)
 * into a temporary .qnn removed at exit.
 */
#ifndef QPU_TOOLS_NN_MODEL_H
#define QPU_TOOLS_NN_MODEL_H

/* The converter run with @count arguments: its exit status. */
int nn_model_convert(char **args, int count);

/* The .qnn path for @path; dies when the conversion fails. */
const char *nn_model_qnn(const char *path);

#endif /* QPU_TOOLS_NN_MODEL_H */
