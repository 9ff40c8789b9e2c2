/* SPDX-License-Identifier: MIT */
/*
 * libqpu/nn: the operators' checks at load (check.c) and the names of the
 * modes they decode, which the reference (ops_ref.c) runs by.
 */
#ifndef QPU_NN_CHECK_H
#define QPU_NN_CHECK_H

#include <math.h>

#include "nn_internal.h"

/* Resize's coordinate_transformation_mode. */
enum nn_coord {
	NN_COORD_HALF_PIXEL,
	NN_COORD_ASYMMETRIC,
	NN_COORD_ALIGN_CORNERS,
	NN_COORD_PYTORCH_HALF_PIXEL,
	NN_COORD_COUNT
};

/* Resize's nearest_mode. */
enum nn_nearest {
	NN_NEAREST_ROUND_PREFER_FLOOR,
	NN_NEAREST_ROUND_PREFER_CEIL,
	NN_NEAREST_FLOOR,
	NN_NEAREST_CEIL,
	NN_NEAREST_COUNT
};

/* Checks node @n (its inputs shaped), sets n->kind and its outputs' shapes. */
int nn_check_node(struct qpu_nn_graph *g, struct nn_node *n);
const char *nn_op_name(int kind);

#endif /* QPU_NN_CHECK_H */
