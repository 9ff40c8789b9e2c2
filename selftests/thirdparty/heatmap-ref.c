// SPDX-License-Identifier: MIT
/*
 * heatmap-ref PGM: checks the map QPULib's HeatMap example prints (its
 * QPU build, on a libqpu device) against the same simulation on the CPU.
 * The example's setup: two 506-row maps of 512 floats a row, zero but for
 * ten hot spots of 1000 * (rand() % 256) at column rand() % 496 and row
 * 1 + rand() % 504 (srand(0), the three draws in that order); 1500 steps
 * of one QPU, alternately from the first map to the second and back, each
 * writing rows 1 to 504, columns 0 to 495, of its output as
 *	c - 0.25 * (c - s * 0.125)
 * with c the input's cell and s its eight neighbours added left to right
 * and row by row (columns outside 0..511 count as 0). It then prints the
 * second map's rows 1 to 504, columns 0 to 495, as a plain PGM of values
 * truncated to 0..255, and a "# <seconds>" line. Exit 0 when every pixel
 * is within one of the reference's (the QPU's float rounding and flushed
 * denormals), 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>

#define NCOLS	512
#define WIDTH	(NCOLS - 16)
#define HEIGHT	504
#define NROWS	(HEIGHT + 2)
#define NSPOTS	10
#define NSTEPS	1500

static float map_a[NROWS][NCOLS], map_b[NROWS][NCOLS];

static float cell(float (*in)[NCOLS], int y, int x)
{
	return x < 0 || x >= NCOLS ? 0.0f : in[y][x];
}

static void step(float (*in)[NCOLS], float (*out)[NCOLS])
{
	int x, y;

	for (y = 0; y < HEIGHT; y++)
		for (x = 0; x < WIDTH; x++) {
			float c = in[y + 1][x];
			float s = cell(in, y, x - 1) + in[y][x] + cell(in, y, x + 1) +
				  cell(in, y + 1, x - 1) + cell(in, y + 1, x + 1) +
				  cell(in, y + 2, x - 1) + in[y + 2][x] + cell(in, y + 2, x + 1);

			out[y + 1][x] = c - 0.25f * (c - s * 0.125f);
		}
}

int main(int argc, char **argv)
{
	int i, x, y, w, h, max, differ = 0, worst = 0;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: heatmap-ref PGM (HeatMap's output)\n");
		return 2;
	}
	if (fscanf(f, "P2 %d %d %d", &w, &h, &max) != 3 || w != WIDTH || h != HEIGHT ||
	    max != 255) {
		fprintf(stderr, "heatmap-ref: %s is no %dx%d PGM of maximum 255\n", argv[1],
			WIDTH, HEIGHT);
		return 1;
	}
	srand(0);
	for (i = 0; i < NSPOTS; i++) {
		int t = rand() % 256;

		x = rand() % WIDTH;
		y = 1 + rand() % HEIGHT;
		map_a[y][x] = (float)(1000 * t);
	}
	for (i = 0; i < NSTEPS; i++) {
		if (i & 1)
			step(map_b, map_a);
		else
			step(map_a, map_b);
	}
	for (y = 0; y < HEIGHT; y++)
		for (x = 0; x < WIDTH; x++) {
			int want = (int)map_b[y + 1][x], got, d;

			want = want < 0 ? 0 : want > 255 ? 255 : want;
			if (fscanf(f, "%d", &got) != 1) {
				fprintf(stderr, "heatmap-ref: %s ends at pixel (%d, %d)\n", argv[1],
					x, y);
				return 1;
			}
			d = abs(got - want);
			differ += d != 0;
			worst = d > worst ? d : worst;
		}
	printf("heatmap-ref: %d of %d pixels differ, by at most %d\n", differ, WIDTH * HEIGHT,
	       worst);
	return worst > 1;
}
