/* SPDX-License-Identifier: MIT */
/*
 * A minimal PNG writer for the tools (png.c): 8-bit RGB, no filter, the
 * image data in stored (uncompressed) deflate blocks, so that no zlib is
 * needed; files are about 3 bytes a pixel.
 */
#ifndef QPU_TOOLS_PNG_H
#define QPU_TOOLS_PNG_H

#include <stdint.h>
#include <stdio.h>

/* Writes @w x @h packed RGB pixels to @f: 0, or -1 on a write error. */
int png_write_rgb(FILE *f, const uint8_t *rgb, unsigned int w, unsigned int h);

#endif /* QPU_TOOLS_PNG_H */
