/* SPDX-License-Identifier: MIT */
/*
 * libqpu's private interfaces, shared between its files. Only ioctl.c knows
 * the kernel's structs; the rest of the library calls these wrappers.
 */
#ifndef QPU_INTERNAL_H
#define QPU_INTERNAL_H

#include <stdint.h>

/* ioctl.c */
int qpu_ioctl_get_param(int fd, uint32_t param, uint64_t *value);

#endif /* QPU_INTERNAL_H */
