// SPDX-License-Identifier: MIT
/*
 * qpu_last_error(): the calling thread's message of the last runtime call
 * that failed with one (qpu_dev_open(), qpu_submit()).
 */

#include <stdarg.h>
#include <stdio.h>

#include "runtime/runtime.h"

static __thread char last_error[256];

QPU_API const char *qpu_last_error(void)
{
	return last_error;
}

int qpu_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return err;
}
