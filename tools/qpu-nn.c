// SPDX-License-Identifier: MIT
/*
 * qpu-nn: neural networks (<qpu_nn.h>) from the command line: convert an
 * ONNX model to .qnn, show its plan, run it, and bench it per layer here
 * and modelled on the boards.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "qpu_nn.h"
#include "die.h"
#include "nn_model.h"
#include "parse_num.h"

const char tool_name[] = "qpu-nn";

#define MAX_BOARDS 7

static const char *device_path;
static unsigned int bind_flags;
static uint64_t runs = 3;
static const char *input_path, *output_path;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: qpu-nn convert IN.onnx OUT.qnn [--shape NAME=D,D,...]...\n"
		"       qpu-nn plan MODEL [options]\n"
		"       qpu-nn run MODEL [options] [-i INPUT.bin] [-o OUTPUT.bin]\n"
		"       qpu-nn bench MODEL [options] [-n RUNS] [-b BOARD,...]\n"
		"MODEL is a .qnn file, or an .onnx file converted on the way.\n"
		"options:\n"
		"  -d, --device PATH   run on this device (emu, /dev/qpu..., cpu); default:\n"
		"                      $QPU_DEVICE, else the CPU\n"
		"  --cpu-only          every node on the CPU\n"
		"  --qpu-all           every node with a QPU kernel on the QPUs\n"
		"  --reference         the CPU's portable reference, not its fast path\n"
		"  --no-xnnpack        the CPU's convolutions by libqpu's code, not XNNPACK's\n"
		"  --qdq-int8          QDQ patterns run as the integer operators, not in float\n"
		"  -n, --runs N        bench: runs per measurement, the fastest kept (3)\n"
		"  -b, --boards LIST   bench: boards modelled on the emulator (pi1,pi3,pi4,pi5)\n"
		"  -i, --input FILE    run: the first input's raw bytes (default zeros)\n"
		"  -o, --output FILE   run: write the first output's raw bytes\n");
}

static struct qpu_nn_graph *load_model(const char *path)
{
	struct qpu_nn_graph *g;
	char err[512];

	path = nn_model_qnn(path);
	g = qpu_nn_load(path, err, sizeof(err));
	if (!g)
		die("%s", err);
	return g;
}

static struct qpu_nn_graph *bound(const char *model, struct qpu_dev *dev, unsigned int flags)
{
	struct qpu_nn_graph *g = load_model(model);
	int ret = qpu_nn_bind(g, dev, flags);

	if (ret)
		die("bind: %s (%s)", qpu_nn_last_error(g), strerror(-ret));
	return g;
}

static void run_or_die(struct qpu_nn_graph *g)
{
	if (qpu_nn_run(g))
		die("run: %s", qpu_nn_last_error(g));
}

static struct qpu_dev *open_dev(const char *path)
{
	struct qpu_dev *dev;

	if (!path)
		path = getenv("QPU_DEVICE");
	if (!path || !*path || !strcmp(path, "cpu"))
		return NULL;
	dev = qpu_dev_open(path);
	if (!dev)
		die("%s: %s", path, strerror(errno));
	return dev;
}

static void print_plan(struct qpu_nn_graph *g)
{
	struct qpu_nn_node_info ni;
	unsigned int i;

	printf("%-24s %-18s %-8s %10s  %s\n", "node", "op", "where", "MMAC", "why");
	for (i = 0; i < qpu_nn_node_count(g); i++) {
		char op[64];

		qpu_nn_node(g, i, &ni);
		snprintf(op, sizeof(op), "%s%s%s", ni.op, ni.fused[0] ? "+" : "", ni.fused);
		printf("%-24s %-18s %-8s %10.3f  %s\n", ni.name, op, qpu_nn_where_name(ni.where),
		       ni.macs / 1e6, ni.why);
	}
	printf("arena: %zu bytes\n", qpu_nn_arena_bytes(g));
}

static int cmd_plan(const char *model)
{
	struct qpu_dev *dev = open_dev(device_path);
	struct qpu_nn_graph *g = bound(model, dev, bind_flags);

	print_plan(g);
	qpu_nn_free(g);
	qpu_dev_close(dev);
	return 0;
}

static int cmd_run(const char *model)
{
	struct qpu_dev *dev = open_dev(device_path);
	struct qpu_nn_graph *g = bound(model, dev, bind_flags);
	struct qpu_nn_tensor_info ti, to;
	unsigned int i;
	size_t k;
	FILE *f;

	for (i = 0; i < qpu_nn_input_count(g); i++) {
		qpu_nn_input(g, i, &ti);
		memset(ti.data, 0, ti.bytes);
	}
	if (input_path) {
		qpu_nn_input(g, 0, &ti);
		f = fopen(input_path, "rb");
		if (!f)
			die("%s: %s", input_path, strerror(errno));
		if (fread(ti.data, 1, ti.bytes, f) != ti.bytes)
			die("%s: shorter than input '%s' (%zu bytes)", input_path, ti.name, ti.bytes);
		fclose(f);
	}
	run_or_die(g);
	for (i = 0; i < qpu_nn_output_count(g); i++) {
		qpu_nn_output(g, i, &to);
		printf("output %s: %zu bytes", to.name, to.bytes);
		if (to.dtype == QPU_NN_FLOAT32 && to.bytes) {
			const float *v = to.data;
			size_t best = 0;

			for (k = 1; k < to.bytes / 4; k++)
				best = v[k] > v[best] ? k : best;
			printf(", largest element %zu (%g)", best, (double)v[best]);
		}
		printf("\n");
	}
	if (output_path) {
		qpu_nn_output(g, 0, &to);
		f = fopen(output_path, "wb");
		if (!f || fwrite(to.data, 1, to.bytes, f) != to.bytes || fclose(f))
			die("%s: %s", output_path, strerror(errno));
	}
	qpu_nn_free(g);
	qpu_dev_close(dev);
	return 0;
}

/* Runs @g @runs times; per node, its fastest time into @best (ns). */
static void measure(struct qpu_nn_graph *g, uint64_t *best)
{
	struct qpu_nn_node_info ni;
	unsigned int i;
	uint64_t r;

	for (i = 0; i < qpu_nn_node_count(g); i++)
		best[i] = UINT64_MAX;
	for (r = 0; r < runs; r++) {
		run_or_die(g);
		for (i = 0; i < qpu_nn_node_count(g); i++) {
			qpu_nn_node(g, i, &ni);
			best[i] = ni.last_ns < best[i] ? ni.last_ns : best[i];
		}
	}
}

struct board_run {
	const char *tok;	/* as -b names it */
	const char *name;
	struct qpu_nn_graph *g;
};

/*
 * The emulated device that models board @name: VideoCore IV's with the
 * board named, a V3D's of the board's generation (and QPUs) with its
 * timing model on.
 */
static struct qpu_dev *board_dev(const char *name)
{
	enum qpu_board b = qpu_board_from_name(name);
	char path[64];

	if (b == QPU_BOARD_NONE)
		die("unknown board %s (pi1, pi2, pi3, pi3plus, pi4, pi5, pi5-16)", name);
	if (b == QPU_BOARD_PI4)
		return open_dev("emu:v3d42,timing");
	if (b == QPU_BOARD_PI5 || b == QPU_BOARD_PI5_16) {
		snprintf(path, sizeof(path), "emu:v3d71%s,timing",
			 b == QPU_BOARD_PI5_16 ? ",board=pi5-16" : "");
		return open_dev(path);
	}
	snprintf(path, sizeof(path), "emu:board=%s", name);
	return open_dev(path);
}

static int cmd_bench(const char *model, const char *boards)
{
	struct qpu_dev *dev = open_dev(device_path), *bdev[MAX_BOARDS] = { NULL };
	struct qpu_nn_graph *cpu = bound(model, NULL, bind_flags & (QPU_NN_BIND_REFERENCE |
								    QPU_NN_BIND_NO_XNNPACK |
								    QPU_NN_BIND_QDQ_INT8));
	struct qpu_nn_graph *devg = dev ? bound(model, dev, bind_flags) : NULL;
	unsigned int i, b, nb = 0, count = qpu_nn_node_count(cpu);
	uint64_t *tc = calloc(count, sizeof(*tc)), *td = calloc(count, sizeof(*td));
	double sum_c = 0, sum_d = 0, sum_b[MAX_BOARDS] = { 0 }, macs = 0, bytes = 0;
	struct board_run br[MAX_BOARDS];
	char list[128], *save = NULL, *tok;

	if (!tc || !td)
		die("out of memory");
	snprintf(list, sizeof(list), "%s", boards);
	for (tok = strtok_r(list, ",", &save); tok && nb < MAX_BOARDS;
	     tok = strtok_r(NULL, ",", &save)) {
		bdev[nb] = board_dev(tok);
		br[nb].tok = tok;
		br[nb].name = qpu_board_name(qpu_board_from_name(tok));
		br[nb].g = bound(model, bdev[nb], bind_flags & ~QPU_NN_BIND_CPU_ONLY);
		run_or_die(br[nb].g);	/* modelled times are deterministic: one run */
		nb++;
	}
	measure(cpu, tc);
	if (devg)
		measure(devg, td);
	printf("qpu-nn bench: %s, %u nodes; measured here: the CPU (1 thread)%s%s, fastest of %llu "
	       "runs; modelled on the emulator's boards (QPU jobs by the timing model, CPU nodes "
	       "by the board's assumed CPU speed)\n", model, count, devg ? " and " : "",
	       devg ? qpu_dev_describe(dev) : "", (unsigned long long)runs);
	for (b = 0; b < nb; b++)
		printf("%s %s: %s", b ? ";" : "boards:", br[b].tok, br[b].name);
	printf(nb ? "\n" : "");
	printf("%-14s %-14s %8s %8s %9s", "node", "op", "MMAC", "MB", "cpu ms");
	if (devg)
		printf(" %9s %-5s", "dev ms", "where");
	for (b = 0; b < nb; b++)
		printf(" | %-7.7s %9s %-5s %6s %6s", br[b].tok, "ms", "where", "%peak", "%bw");
	printf("\n");
	for (i = 0; i < count; i++) {
		struct qpu_nn_node_info ni, nd;

		qpu_nn_node(cpu, i, &ni);
		if (ni.where == QPU_NN_WHERE_FOLDED || ni.where == QPU_NN_WHERE_FUSED ||
		    ni.where == QPU_NN_WHERE_VIEW)
			continue;
		macs += (double)ni.macs;
		bytes += (double)ni.bytes;
		sum_c += (double)tc[i];
		printf("%-14.14s %-14.14s %8.2f %8.3f %9.3f", ni.name, ni.op, ni.macs / 1e6,
		       ni.bytes / 1e6, tc[i] / 1e6);
		if (devg) {
			qpu_nn_node(devg, i, &nd);
			sum_d += (double)td[i];
			printf(" %9.3f %-5s", td[i] / 1e6, qpu_nn_where_name(nd.where));
		}
		for (b = 0; b < nb; b++) {
			qpu_nn_node(br[b].g, i, &nd);
			sum_b[b] += (double)nd.model_ns;
			printf(" | %-7s %9.3f %-5s %6.1f %6.1f", "", nd.model_ns / 1e6,
			       qpu_nn_where_name(nd.where), nd.model_flops_pct, nd.model_bw_pct);
		}
		printf("\n");
	}
	printf("%-14s %-14s %8.2f %8.3f %9.3f", "total", "", macs / 1e6, bytes / 1e6, sum_c / 1e6);
	if (devg)
		printf(" %9.3f %-5s", sum_d / 1e6, "");
	for (b = 0; b < nb; b++)
		printf(" | %-7s %9.3f", "", sum_b[b] / 1e6);
	printf("\n");
	for (b = 0; b < nb; b++) {
		qpu_nn_free(br[b].g);
		qpu_dev_close(bdev[b]);
	}
	qpu_nn_free(devg);
	qpu_nn_free(cpu);
	qpu_dev_close(dev);
	free(tc);
	free(td);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "cpu-only", no_argument, NULL, 'C' },
		{ "qpu-all", no_argument, NULL, 'Q' },
		{ "reference", no_argument, NULL, 'R' },
		{ "no-xnnpack", no_argument, NULL, 'X' },
		{ "qdq-int8", no_argument, NULL, 'F' },
		{ "runs", required_argument, NULL, 'n' },
		{ "boards", required_argument, NULL, 'b' },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *boards = "pi1,pi3,pi4,pi5";
	int c;

	if (argc >= 2 && !strcmp(argv[1], "convert"))
		return nn_model_convert(argv + 1, argc - 1);
	while ((c = getopt_long(argc, argv, "d:n:b:i:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			device_path = optarg;
			break;
		case 'C':
			bind_flags |= QPU_NN_BIND_CPU_ONLY;
			break;
		case 'Q':
			bind_flags |= QPU_NN_BIND_QPU_ALL;
			break;
		case 'R':
			bind_flags |= QPU_NN_BIND_REFERENCE;
			break;
		case 'X':
			bind_flags |= QPU_NN_BIND_NO_XNNPACK;
			break;
		case 'F':
			bind_flags |= QPU_NN_BIND_QDQ_INT8;
			break;
		case 'n':
			if (!parse_u64(optarg, 1, 1000, &runs)) {
				fprintf(stderr, "qpu-nn: --runs takes 1 to 1000, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'b':
			boards = optarg;
			break;
		case 'i':
			input_path = optarg;
			break;
		case 'o':
			output_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[optind], "plan"))
		return cmd_plan(argv[optind + 1]);
	if (!strcmp(argv[optind], "run"))
		return cmd_run(argv[optind + 1]);
	if (!strcmp(argv[optind], "bench"))
		return cmd_bench(argv[optind + 1], boards);
	fprintf(stderr, "qpu-nn: unknown command '%s'\n", argv[optind]);
	usage(stderr);
	return 2;
}
