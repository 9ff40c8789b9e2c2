// SPDX-License-Identifier: MIT
/*
 * test-emu-runner: the emulated device's generations. A runner of this
 * test's own (not shipped: a stand-in for the V3D emulator of a later
 * issue) is registered for V3D 7.1 through the private emudev.h, and jobs
 * run on it through the public API alone, as a V3D runner's will: the
 * proof that a generation plugs in without a caller edited. Also: jobs of
 * the other generation's kind are refused with a message naming both,
 * devices report their generation, a runner's options are its own, and
 * a failed job's fence cancels the jobs waiting on it, on
 * the stand-in and on VideoCore IV's emulator.
 */

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "qpu.h"
#include "qpu_asm.h"
#include "runtime/emudev.h"
#include "testlib.h"

/* The stand-in's uniform that makes its job fail. */
#define FAKE_FAIL	0xdeadu

/* What the stand-in saw, for the cases to check. */
static struct {
	unsigned int creates, runs;
	struct qpu_v3d_dispatch dispatch;
	uint64_t limit;
} seen;

static int fake_state;

static void *fake_create(void)
{
	seen.creates++;
	return &fake_state;
}

static void fake_destroy(void *state)
{
	T_CHECK(state == &fake_state);
}

static int fake_get_param(void *state, enum qpu_dev_param param,
			  uint64_t *value)
{
	if (param != QPU_DEV_PARAM_NUM_QPUS)
		return -EINVAL;
	*value = 8;
	return 0;
}

/*
 * Reads uniform 0 (a value) and uniform 1 (where to write it) through the
 * job's view of memory; FAKE_FAIL, or an address outside the job's
 * buffers, fails the job as a fault.
 */
static void fake_run(void *state, const struct qpu_emu_job_view *view,
		     struct qpu_job_result *result)
{
	const uint32_t *unif = qpu_emudev_translate(view->job, view->unif_addr[0], 8);
	uint32_t *out;

	seen.runs++;
	seen.dispatch = view->dispatch;
	seen.limit = view->limit;
	T_EQ_U64(QPU_JOB_V3D_DISPATCH, view->kind);
	out = unif ? qpu_emudev_translate(view->job, unif[1], 4) : NULL;
	if (!out || unif[0] == FAKE_FAIL) {
		result->status = QPU_STATUS_FAULT;
		result->fault_addr = unif ? unif[1] : view->unif_addr[0];
		result->fault_access = QPU_ACCESS_OTHER;
		return;
	}
	*out = unif[0];
	result->status = QPU_STATUS_DONE;
}

static const struct qpu_emu_runner fake_runner = {
	.gen = QPU_GEN_V3D71,
	.instructions_per_ms = 1000,
	.create = fake_create,
	.destroy = fake_destroy,
	.get_param = fake_get_param,
	.run = fake_run,
};

/* A device with the stand-in, its code, uniforms and output buffers. */
struct fake {
	struct qpu_dev *dev;
	struct qpu_bo *code, *unif, *out;
	struct qpu_v3d_dispatch d;
};

static bool fake_open(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	qpu_emudev_register_runner(QPU_GEN_V3D71, &fake_runner);
	f->dev = qpu_dev_open("emu:v3d71");
	T_CHECK(f->dev);
	if (!f->dev)
		return false;
	f->code = qpu_bo_new(f->dev, 4096);
	f->unif = qpu_bo_new(f->dev, 4096);
	f->out = qpu_bo_new(f->dev, 4096);
	T_CHECK(f->code && f->unif && f->out);
	f->d = (struct qpu_v3d_dispatch){
		.code = f->code, .uniforms = f->unif, .uniforms_offset = 16,
		.wg_count = { 3, 2, 1 }, .wg_size = 24, .wgs_per_sg = 4,
		.threads = 4, .flags = QPU_V3D_DISPATCH_SINGLE_SEG,
	};
	return f->code && f->unif && f->out;
}

static void fake_close(struct fake *f)
{
	qpu_bo_free(f->code);
	qpu_bo_free(f->unif);
	qpu_bo_free(f->out);
	qpu_dev_close(f->dev);
	qpu_emudev_register_runner(QPU_GEN_V3D71, NULL);
}

/* Sets the uniforms the stand-in reads: @value, then where it goes. */
static void fake_uniforms(struct fake *f, uint32_t value, uint32_t addr)
{
	uint32_t *u = (uint32_t *)((char *)qpu_bo_get_map(f->unif) + 16);

	u[0] = value;
	u[1] = addr;
}

/* Submits @f's dispatch with @fence_in, its out-fence into @fence_out. */
static int fake_submit(struct fake *f, int fence_in, int *fence_out,
		       uint64_t *seqno)
{
	struct qpu_bo *bos[] = { f->out };
	struct qpu_job_desc desc = {
		.kind = QPU_JOB_V3D_DISPATCH, .dispatch = &f->d,
		.bos = bos, .bo_count = 1, .timeout_ms = 7,
		.in_fence_fd = fence_in, .out_fence_fd = fence_out,
	};

	return qpu_submit(f->dev, &desc, seqno);
}

static enum qpu_status wait_status(struct qpu_dev *dev, uint64_t seqno)
{
	struct qpu_job_result r;

	T_EQ_U64(0, qpu_wait(dev, seqno, -1, &r));
	return r.status;
}

T_TEST(runner_runs_a_dispatch)
{
	struct fake f;
	uint64_t seqno, gen = 0, n = 0;

	if (!fake_open(&f))
		goto out;
	T_EQ_U64(0, qpu_dev_get_param(f.dev, QPU_DEV_PARAM_GEN, &gen));
	T_EQ_U64(QPU_GEN_V3D71, gen);
	T_EQ_U64(0, qpu_dev_get_param(f.dev, QPU_DEV_PARAM_NUM_QPUS, &n));
	T_EQ_U64(8, n);
	T_EQ_U64(0, qpu_dev_get_param(f.dev, QPU_DEV_PARAM_INSTRUCTIONS_PER_MS, &n));
	T_EQ_U64(1000, n);
	T_EQ_U64(-EINVAL, qpu_dev_get_param(f.dev, QPU_DEV_PARAM_VPM_SIZE, &n));
	T_EQ_U64(-ENOTTY, qpu_dev_set_board(f.dev, QPU_BOARD_NONE));

	fake_uniforms(&f, 1234, qpu_bo_get_bus_addr(f.out) + 8);
	seen.runs = 0;
	T_EQ_U64(0, fake_submit(&f, -1, NULL, &seqno));
	T_EQ_U64(QPU_STATUS_DONE, wait_status(f.dev, seqno));
	T_EQ_U64(1, seen.runs);
	T_EQ_U64(1234, ((uint32_t *)qpu_bo_get_map(f.out))[2]);
	/* the dispatch as given; its batches as Mesa counts them: 6 workgroups
	 * of 24 in supergroups of 4 (6 batches), one of 2 (3 batches) */
	T_EQ_U64(3, seen.dispatch.wg_count[0]);
	T_EQ_U64(24, seen.dispatch.wg_size);
	T_EQ_U64(4, seen.dispatch.threads);
	T_EQ_U64(9, seen.dispatch.batches);
	T_EQ_U64(7000, seen.limit);

	/* a write outside the job's buffers: the runner's fault */
	fake_uniforms(&f, 1, 0x1000);
	T_EQ_U64(0, fake_submit(&f, -1, NULL, &seqno));
	T_EQ_U64(QPU_STATUS_FAULT, wait_status(f.dev, seqno));
out:
	fake_close(&f);
}

T_TEST(dispatch_checks)
{
	struct fake f;
	uint64_t seqno;

	if (!fake_open(&f))
		goto out;
	f.d.wg_count[1] = 0;
	T_EQ_U64(-EINVAL, fake_submit(&f, -1, NULL, &seqno));
	f.d.wg_count[1] = 0x10000;
	T_EQ_U64(-EINVAL, fake_submit(&f, -1, NULL, &seqno));
	f.d.wg_count[1] = 1;
	f.d.wg_size = 257;
	T_EQ_U64(-EINVAL, fake_submit(&f, -1, NULL, &seqno));
	f.d.wg_size = 16;
	f.d.wgs_per_sg = 17;
	T_EQ_U64(-EINVAL, fake_submit(&f, -1, NULL, &seqno));
	f.d.wgs_per_sg = 1;
	f.d.threads = 3;
	T_EQ_U64(-EINVAL, fake_submit(&f, -1, NULL, &seqno));
	f.d.threads = 1;
	f.d.flags = 1u << 7;
	T_EQ_U64(-EINVAL, fake_submit(&f, -1, NULL, &seqno));
	f.d.flags = 0;
	f.d.code_offset = 4096;		/* past its buffer */
	T_EQ_U64(-EINVAL, fake_submit(&f, -1, NULL, &seqno));
	f.d.code_offset = 0;
	f.d.batches = 5;		/* given: kept */
	fake_uniforms(&f, 1, qpu_bo_get_bus_addr(f.out));
	T_EQ_U64(0, fake_submit(&f, -1, NULL, &seqno));
	T_EQ_U64(QPU_STATUS_DONE, wait_status(f.dev, seqno));
	T_EQ_U64(5, seen.dispatch.batches);
out:
	fake_close(&f);
}

/* A VideoCore IV job of one program: @code's words, no uniforms. */
static int vc4_submit(struct qpu_dev *dev, struct qpu_bo *code,
		      unsigned int timeout_ms, int fence_in, int *fence_out,
		      uint64_t *seqno)
{
	struct qpu_program_ref p = { .code = code, .uniforms = code };
	struct qpu_job_desc desc = {
		.programs = &p, .program_count = 1, .timeout_ms = timeout_ms,
		.in_fence_fd = fence_in, .out_fence_fd = fence_out,
	};

	return qpu_submit(dev, &desc, seqno);
}

T_TEST(other_generation_refused)
{
	struct qpu_dev *vc4 = qpu_dev_open("emu");
	struct fake f;
	struct qpu_bo *code = vc4 ? qpu_bo_new(vc4, 4096) : NULL;
	struct qpu_job_desc desc;
	uint64_t seqno, gen = 0;

	T_CHECK(vc4 && code);
	if (!fake_open(&f) || !code)
		goto out;
	T_EQ_U64(0, qpu_dev_get_param(vc4, QPU_DEV_PARAM_GEN, &gen));
	T_EQ_U64(QPU_GEN_VC4, gen);

	/* VideoCore IV programs on the V3D 7.1 stand-in */
	T_EQ_U64(-EINVAL, vc4_submit(f.dev, f.code, 0, -1, NULL, &seqno));
	T_CHECK(strstr(qpu_last_error(), "VideoCore IV programs"));
	T_CHECK(strstr(qpu_last_error(), "v3d71"));

	/* a V3D dispatch on VideoCore IV's emulator */
	f.d.code = f.d.uniforms = code;
	desc = (struct qpu_job_desc){
		.kind = QPU_JOB_V3D_DISPATCH, .dispatch = &f.d, .in_fence_fd = -1,
	};
	T_EQ_U64(-EINVAL, qpu_submit(vc4, &desc, &seqno));
	T_CHECK(strstr(qpu_last_error(), "V3D compute dispatch"));
	T_CHECK(strstr(qpu_last_error(), "vc4"));

	/* descriptions that mix the kinds, and an unknown kind */
	desc.program_count = 1;
	T_EQ_U64(-EINVAL, qpu_submit(vc4, &desc, &seqno));
	desc = (struct qpu_job_desc){ .kind = 2, .in_fence_fd = -1 };
	T_EQ_U64(-EINVAL, qpu_submit(vc4, &desc, &seqno));
out:
	qpu_bo_free(code);
	qpu_dev_close(vc4);
	fake_close(&f);
}

T_TEST(generation_options)
{
	struct qpu_dev *dev = qpu_dev_open("emu:v3d42");

	/* the built-in V3D runners (emudev_v3d.c; test-v3d-dev runs them) */
	T_CHECK(dev);
	qpu_dev_close(dev);
	/* the runner's options are its own: VideoCore IV's are none of the stand-in's */
	qpu_emudev_register_runner(QPU_GEN_V3D71, &fake_runner);
	T_CHECK(!qpu_dev_open("emu:v3d71,strict-vpm"));
	T_EQ_U64(EINVAL, errno);
	qpu_emudev_register_runner(QPU_GEN_V3D71, NULL);
}

static bool fence_signalled(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

T_TEST(failed_in_fence_cancels)
{
	struct fake f;
	uint64_t failed, after, later, good, fine;
	int fence1 = -1, fence2 = -1, fence3 = -1;
	unsigned int runs;

	if (!fake_open(&f))
		goto out;
	fake_uniforms(&f, FAKE_FAIL, qpu_bo_get_bus_addr(f.out));
	T_EQ_U64(0, fake_submit(&f, -1, &fence1, &failed));
	fake_uniforms(&f, 5, qpu_bo_get_bus_addr(f.out));
	runs = seen.runs;
	T_EQ_U64(0, fake_submit(&f, fence1, &fence2, &after));
	/* and a job after the canceled one: the error travels on */
	T_EQ_U64(0, fake_submit(&f, fence2, NULL, &later));
	T_EQ_U64(QPU_STATUS_FAULT, wait_status(f.dev, failed));
	T_EQ_U64(QPU_STATUS_CANCELED, wait_status(f.dev, after));
	T_EQ_U64(QPU_STATUS_CANCELED, wait_status(f.dev, later));
	T_EQ_U64(runs, seen.runs);
	T_CHECK(fence_signalled(fence2));
	T_EQ_U64(0, ((uint32_t *)qpu_bo_get_map(f.out))[0]);

	/* a job that ended well lets the next one run */
	T_EQ_U64(0, fake_submit(&f, -1, &fence3, &good));
	T_EQ_U64(0, fake_submit(&f, fence3, NULL, &fine));
	T_EQ_U64(QPU_STATUS_DONE, wait_status(f.dev, fine));
	T_EQ_U64(5, ((uint32_t *)qpu_bo_get_map(f.out))[0]);
out:
	if (fence1 >= 0)
		close(fence1);
	if (fence2 >= 0)
		close(fence2);
	if (fence3 >= 0)
		close(fence3);
	fake_close(&f);
}

/* The same on VideoCore IV's emulator, across two devices: a job that spins past its timeout. */
T_TEST(failed_in_fence_cancels_vc4)
{
	static const char spin[] = "loop:\n brr -, loop\n nop\n nop\n nop\n";
	static const char done[] = "thrend\nnop\nnop\n";
	struct qpu_dev *a = qpu_dev_open("emu"), *b = qpu_dev_open("emu");
	struct qpu_asm *as = qpu_asm_new();
	struct qpu_bo *spin_bo = NULL, *done_bo = NULL;
	const uint64_t *words;
	uint64_t s1, s2;
	size_t n;
	int fence = -1;

	T_CHECK(a && b && as);
	if (!a || !b || !as)
		goto out;
	spin_bo = qpu_bo_new(a, 4096);
	done_bo = qpu_bo_new(b, 4096);
	T_EQ_U64(0, qpu_asm_string(as, "spin", spin));
	n = qpu_asm_words(as, &words);
	memcpy(qpu_bo_get_map(spin_bo), words, n * 8);
	T_EQ_U64(0, qpu_asm_string(as, "done", done));
	n = qpu_asm_words(as, &words);
	memcpy(qpu_bo_get_map(done_bo), words, n * 8);

	T_EQ_U64(0, vc4_submit(a, spin_bo, 1, -1, &fence, &s1));
	T_EQ_U64(0, vc4_submit(b, done_bo, 0, fence, NULL, &s2));
	T_EQ_U64(QPU_STATUS_TIMEOUT, wait_status(a, s1));
	T_EQ_U64(QPU_STATUS_CANCELED, wait_status(b, s2));
	/* without the in-fence it runs */
	T_EQ_U64(0, vc4_submit(b, done_bo, 0, -1, NULL, &s2));
	T_EQ_U64(QPU_STATUS_DONE, wait_status(b, s2));
out:
	if (fence >= 0)
		close(fence);
	qpu_bo_free(spin_bo);
	qpu_bo_free(done_bo);
	qpu_asm_free(as);
	qpu_dev_close(a);
	qpu_dev_close(b);
}

T_TEST(open_probes)
{
	T_CHECK(!qpu_dev_open("/dev/null"));
	T_EQ_U64(ENODEV, errno);
	T_CHECK(strstr(qpu_last_error(), "/dev/null"));
	T_CHECK(!qpu_dev_open("/nonexistent/qpu"));
	T_EQ_U64(ENOENT, errno);
	T_CHECK(strstr(qpu_last_error(), "/nonexistent/qpu"));
	T_CHECK(!qpu_dev_open("emu:no-such-option"));
	T_EQ_U64(EINVAL, errno);
	T_CHECK(strstr(qpu_last_error(), "emu:no-such-option"));
}

T_MAIN()
