// SPDX-License-Identifier: MIT
/*
 * PNG files for qpu-detect's annotated frames: signature, IHDR, one IDAT
 * of a zlib stream made of stored deflate blocks (RFC 1950/1951, at most
 * 65535 bytes each), IEND; CRC-32 per chunk, Adler-32 over the rows.
 */
#include <string.h>

#include "png.h"

#define PNG_STORED_MAX	65535u

struct png_out {
	FILE *f;
	uint32_t crc;
	uint32_t a;
	uint32_t b;
	int err;
};

static uint32_t crc_table[256];

static void crc_init(void)
{
	uint32_t c, n, k;

	if (crc_table[1])
		return;
	for (n = 0; n < 256; n++) {
		c = n;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[n] = c;
	}
}

/* Bytes of the chunk being written: to the file and into its CRC. */
static void put(struct png_out *o, const void *data, size_t n)
{
	const uint8_t *p = data;
	size_t i;

	for (i = 0; i < n; i++)
		o->crc = crc_table[(o->crc ^ p[i]) & 0xff] ^ (o->crc >> 8);
	if (fwrite(data, 1, n, o->f) != n)
		o->err = 1;
}

/* Image bytes: into the chunk and the Adler-32 of the zlib stream. */
static void put_data(struct png_out *o, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		o->a = (o->a + p[i]) % 65521u;
		o->b = (o->b + o->a) % 65521u;
	}
	put(o, p, n);
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void chunk_start(struct png_out *o, const char *type, uint32_t len)
{
	uint8_t b[4];

	be32(b, len);
	if (fwrite(b, 1, 4, o->f) != 4)
		o->err = 1;
	o->crc = 0xffffffffu;
	put(o, type, 4);
}

static void chunk_end(struct png_out *o)
{
	uint8_t b[4];

	be32(b, o->crc ^ 0xffffffffu);
	if (fwrite(b, 1, 4, o->f) != 4)
		o->err = 1;
}

int png_write_rgb(FILE *f, const uint8_t *rgb, unsigned int w, unsigned int h)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	struct png_out o = { .f = f, .a = 1 };
	size_t row = (size_t)w * 3 + 1, raw = row * h, blocks, done = 0, y = 0, x = 0;
	uint8_t hdr[13], zlib[2] = { 0x78, 0x01 }, b[5], filter = 0;

	crc_init();
	blocks = (raw + PNG_STORED_MAX - 1) / PNG_STORED_MAX;
	if (fwrite(sig, 1, 8, f) != 8)
		return -1;
	be32(hdr, w);
	be32(hdr + 4, h);
	hdr[8] = 8;	/* bits per sample */
	hdr[9] = 2;	/* RGB */
	hdr[10] = hdr[11] = hdr[12] = 0;
	chunk_start(&o, "IHDR", 13);
	put(&o, hdr, 13);
	chunk_end(&o);

	chunk_start(&o, "IDAT", (uint32_t)(2 + blocks * 5 + raw + 4));
	put(&o, zlib, 2);
	while (done < raw) {
		size_t n = raw - done < PNG_STORED_MAX ? raw - done : PNG_STORED_MAX, left = n;

		b[0] = done + n == raw;	/* BFINAL, BTYPE 00: stored */
		b[1] = (uint8_t)n;
		b[2] = (uint8_t)(n >> 8);
		b[3] = (uint8_t)~n;
		b[4] = (uint8_t)(~n >> 8);
		put(&o, b, 5);
		/* Each row is a filter byte (0, none) and its pixels. */
		while (left) {
			size_t take;

			if (x == 0) {
				put_data(&o, &filter, 1);
				x = 1;
				left--;
				continue;
			}
			take = row - x < left ? row - x : left;

			put_data(&o, rgb + y * (row - 1) + (x - 1), take);
			x += take;
			left -= take;
			if (x == row) {
				x = 0;
				y++;
			}
		}
		done += n;
	}
	be32(b, (o.b << 16) | o.a);
	put(&o, b, 4);
	chunk_end(&o);
	chunk_start(&o, "IEND", 0);
	chunk_end(&o);
	return o.err ? -1 : 0;
}
