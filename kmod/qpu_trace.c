// SPDX-License-Identifier: GPL-2.0
/* Instantiates the tracepoints that qpu_trace.h declares. */

#define CREATE_TRACE_POINTS
#include "qpu_trace.h"
