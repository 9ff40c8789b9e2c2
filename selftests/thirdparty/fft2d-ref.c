// SPDX-License-Identifier: MIT
/*
 * fft2d-ref BMP: checks the bitmap GPU_FFT's hello_fft_2d writes against a
 * CPU 2-D FFT of the same input. That input, as hello_fft_2d sets it: a
 * 512x512 complex array, zero but for a real 60 at (2, 2) and at
 * (510, 510), given an inverse (positive exponent), unscaled transform;
 * each pixel is 128 plus the real part, converted to a byte as C's fputc()
 * converts it, in B, G and R. Exit 0 when every byte is within one of the
 * reference's (rounding of the single-precision GPU result), 1 otherwise.
 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define LOG2_N	9
#define N	(1 << LOG2_N)
#define HEADER	54	/* BITMAPFILEHEADER and BITMAPINFOHEADER */

/* In-place radix-2 FFT of @n points @stride apart, exponent sign +1. */
static void fft(double complex *a, int n, int stride)
{
	int i, j, len;

	for (i = 1, j = 0; i < n; i++) {
		int bit = n >> 1;

		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			double complex t = a[i * stride];

			a[i * stride] = a[j * stride];
			a[j * stride] = t;
		}
	}
	for (len = 2; len <= n; len <<= 1) {
		double complex w = cexp(2 * M_PI * I / len);

		for (i = 0; i < n; i += len) {
			double complex wk = 1;

			for (j = 0; j < len / 2; j++) {
				double complex u = a[(i + j) * stride];
				double complex v = a[(i + j + len / 2) * stride] * wk;

				a[(i + j) * stride] = u + v;
				a[(i + j + len / 2) * stride] = u - v;
				wk *= w;
			}
		}
	}
}

int main(int argc, char **argv)
{
	static double complex a[N * N];
	static unsigned char bmp[HEADER + 3 * N * N];
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
	int i, worst = 0, off = 0;

	if (!f || fread(bmp, 1, sizeof(bmp), f) != sizeof(bmp)) {
		fprintf(stderr, "fft2d-ref: cannot read a %d-byte bitmap from %s\n",
			(int)sizeof(bmp), argc > 1 ? argv[1] : "(none)");
		return 1;
	}
	fclose(f);
	a[2 * N + 2] = 60;
	a[(N - 2) * N + N - 2] = 60;
	for (i = 0; i < N; i++)
		fft(a + i * N, N, 1);
	for (i = 0; i < N; i++)
		fft(a + i, N, N);
	for (i = 0; i < N * N; i++) {
		unsigned char want = (unsigned char)(int)(128 + (float)creal(a[i]));
		int c;

		for (c = 0; c < 3; c++) {
			int d = abs(bmp[HEADER + 3 * i + c] - want);

			worst = d > worst ? d : worst;
			off += d != 0;
		}
	}
	printf("fft2d-ref: %d of %d bytes differ, by at most %d\n", off, 3 * N * N, worst);
	return worst <= 1 ? 0 : 1;
}
