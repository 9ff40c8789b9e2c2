// SPDX-License-Identifier: GPL-2.0
/*
 * qpu: the structure-aware fuzzer of /dev/qpu and the "qpu" generic-netlink
 * family. Owns random, seeded call sequences over every ioctl, mmap/munmap,
 * fence fds and netlink messages, from several processes and threads at
 * once. Each process keeps lists of its live files, BO handles, mmap
 * offsets, mappings, fence fds and job seqnos, and builds calls whose
 * fields are mostly valid and sometimes at a boundary (0, 1, max, max+1,
 * ~0), with bad pads, flags, pointers and closed fds. The kernel's checkers
 * (KASAN, lockdep, kmemleak, WARN) judge the driver, and so does the
 * fuzzer: a mapping mmap() gave stays usable until it is unmapped, whatever
 * happens to its BO, file or device, so a SIGSEGV or SIGBUS on one is a
 * driver bug; it is caught, described and fails the run. At the end the
 * device's BO accounting must return to zero.
 *
 * Usage: qpu_fuzz [-s SEED] [-n CALLS] [-t SECONDS] [-p PROCS] [-j THREADS]
 *                 [-c]   (-c: also CONFIG_SET/DEV_RESET over netlink)
 * CALLS is the total over all threads. Prints "seed S, N calls" and TAP.
 */

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>

#include "stress.h"
#include "../kmod/qpu_programs.h"

#define MAX_FDS		4
#define MAX_BOS		48
#define MAX_MAPS	32
#define MAX_FENCES	16
#define MAX_SEQNOS	32
#define BAD_PTR		((uint64_t)0xffff888000000000ull)

enum op {
	OP_GET_PARAM, OP_BO_CREATE, OP_BO_DESTROY, OP_MMAP, OP_MUNMAP, OP_TOUCH,
	OP_SUBMIT, OP_WAIT, OP_FENCE, OP_OPEN, OP_CLOSE, OP_RAW_IOCTL,
	OP_NETLINK, OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
	"get_param", "bo_create", "bo_destroy", "mmap", "munmap", "touch",
	"submit", "wait", "fence", "open", "close", "raw_ioctl", "netlink",
};

/* Relative weights of the operations. */
static const unsigned int op_weight[OP_COUNT] = {
	4, 10, 6, 8, 5, 6, 14, 8, 4, 1, 1, 4, 6,
};

/* Shared by all processes (MAP_SHARED | MAP_ANONYMOUS). */
struct shared {
	uint64_t calls;
	uint64_t per_op[OP_COUNT];
	uint64_t ok[OP_COUNT];
	uint64_t touch_faults;
	char first_fault[256];	/* the first fault's description */
};

struct bo_ent {
	int fd;
	uint32_t handle;
	uint64_t size;
	uint64_t offset;
};

struct map_ent {
	void *addr;
	size_t len;
	int prot;
	int flags;
	uint64_t offset;	/* the file offset of @addr */
};

struct seq_ent {
	int fd;
	uint64_t seqno;
};

/* One process's view; threads share it under @lock. */
struct state {
	pthread_mutex_t lock;
	int fds[MAX_FDS];
	uint32_t code_handle[MAX_FDS];	/* a BO holding qpu_prog_end, or 0 */
	int closed_fd;
	struct bo_ent bos[MAX_BOS];
	int nbos;
	struct map_ent maps[MAX_MAPS];
	int nmaps;
	int fences[MAX_FENCES];
	int nfences;
	struct seq_ent seqs[MAX_SEQNOS];
	int nseqs;
	uint64_t max_bo;
	uint32_t num_qpus;
};

static struct shared *sh;
static struct state st;
static uint64_t opt_seed = 1, opt_calls = 4000;
static unsigned int opt_secs = 30, opt_procs = 2, opt_threads = 2;
static int opt_admin;
static int64_t deadline;
static uint64_t calls_per_thread;
static __thread sigjmp_buf touch_jmp;
static __thread volatile sig_atomic_t touching;
static __thread int fault_sig, fault_code;
static __thread void *fault_addr;

static void on_fault(int sig, siginfo_t *info, void *uctx)
{
	if (touching) {
		fault_sig = sig;
		fault_code = info->si_code;
		fault_addr = info->si_addr;
		siglongjmp(touch_jmp, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static uint64_t pick_size(uint64_t *r)
{
	static const uint64_t edge[] = { 0, 1, 4095, 4096, 4097, 65536,
		1ull << 20, 1ull << 30, (1ull << 31) + 1, ~0ull, ~0ull - 4095 };

	switch (rng_below(r, 8)) {
	case 0:
		return edge[rng_below(r, sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return rng_one_in(r, 2) ? st.max_bo : st.max_bo + 1;
	case 2:
		return rng_next(r);
	default:
		return 1 + rng_below(r, 4 * 4096);
	}
}

static uint32_t pick_u32(uint64_t *r)
{
	static const uint32_t edge[] = { 0, 1, 2, 0x7fffffff, 0x80000000,
		0xfffffffe, 0xffffffff };

	return rng_one_in(r, 2) ? edge[rng_below(r, 7)] : (uint32_t)rng_next(r);
}

/* Mostly a live QPU fd; sometimes a closed, invalid or unrelated one. */
static int pick_fd(uint64_t *r)
{
	int i;

	if (rng_one_in(r, 40)) {
		static const int bad[] = { -1, 0, 1023, 0x7fffffff };

		return rng_one_in(r, 2) ? st.closed_fd : bad[rng_below(r, 4)];
	}
	for (i = 0; i < 8; i++) {
		int fd = st.fds[rng_below(r, MAX_FDS)];

		if (fd >= 0)
			return fd;
	}
	return st.closed_fd;
}

static int pick_bo(uint64_t *r, struct bo_ent *out)
{
	if (!st.nbos)
		return -1;
	*out = st.bos[rng_below(r, st.nbos)];
	return 0;
}

static uint32_t pick_handle(uint64_t *r, int fd)
{
	struct bo_ent b;
	int i;

	if (rng_one_in(r, 8))
		return pick_u32(r);
	for (i = 0; i < 4; i++)
		if (!pick_bo(r, &b) && (b.fd == fd || rng_one_in(r, 6)))
			return b.handle;
	return st.code_handle[rng_below(r, MAX_FDS)];
}

static uint64_t pick_ptr(uint64_t *r, void *good)
{
	switch (rng_below(r, 24)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return BAD_PTR;
	case 3:
		return (uint64_t)-4096;
	default:
		return (uintptr_t)good;
	}
}

static void do_get_param(uint64_t *r)
{
	struct qpu_get_param p = {
		.param = rng_one_in(r, 6) ? pick_u32(r) : rng_below(r, 16),
		.pad = rng_one_in(r, 10) ? pick_u32(r) : 0,
	};
	void *arg = &p;

	if (rng_one_in(r, 30))
		arg = (void *)(uintptr_t)pick_ptr(r, &p);
	if (!ioctl(pick_fd(r), QPU_IOCTL_GET_PARAM, arg))
		__atomic_fetch_add(&sh->ok[OP_GET_PARAM], 1, __ATOMIC_RELAXED);
}

static void do_bo_create(uint64_t *r)
{
	struct qpu_bo_create c = {
		.size = pick_size(r),
		.flags = rng_one_in(r, 12) ? pick_u32(r) : 0,
		.pad = rng_one_in(r, 12) ? pick_u32(r) : 0,
		.handle = rng_one_in(r, 12) ? pick_u32(r) : 0,
	};
	int fd = pick_fd(r);

	if (ioctl(fd, QPU_IOCTL_BO_CREATE, &c))
		return;
	__atomic_fetch_add(&sh->ok[OP_BO_CREATE], 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&st.lock);
	if (st.nbos < MAX_BOS) {
		st.bos[st.nbos++] = (struct bo_ent){ .fd = fd, .handle = c.handle,
			.size = c.size, .offset = c.mmap_offset };
		c.handle = 0;
	}
	pthread_mutex_unlock(&st.lock);
	if (c.handle) {	/* no room to track it: forget it at once */
		struct qpu_bo_destroy d = { .handle = c.handle };

		ioctl(fd, QPU_IOCTL_BO_DESTROY, &d);
	}
}

static void do_bo_destroy(uint64_t *r)
{
	struct qpu_bo_destroy d = { .pad = rng_one_in(r, 12) ? pick_u32(r) : 0 };
	int fd = pick_fd(r), i;

	pthread_mutex_lock(&st.lock);
	if (st.nbos && !rng_one_in(r, 8)) {
		i = rng_below(r, st.nbos);
		fd = st.bos[i].fd;
		d.handle = st.bos[i].handle;
		if (!d.pad)
			st.bos[i] = st.bos[--st.nbos];
	} else {
		d.handle = pick_u32(r);
	}
	pthread_mutex_unlock(&st.lock);
	if (!ioctl(fd, QPU_IOCTL_BO_DESTROY, &d))
		__atomic_fetch_add(&sh->ok[OP_BO_DESTROY], 1, __ATOMIC_RELAXED);
}

static void do_mmap(uint64_t *r)
{
	struct bo_ent b = { .fd = pick_fd(r) };
	uint64_t off, len;
	int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED;
	void *p;

	pthread_mutex_lock(&st.lock);
	pick_bo(r, &b);
	pthread_mutex_unlock(&st.lock);
	off = b.offset;
	len = b.size ? b.size : 4096;
	switch (rng_below(r, 10)) {
	case 0:
		off += 4096 * rng_below(r, 4);
		break;
	case 1:
		len += 4096 * (1 + rng_below(r, 3));
		break;
	case 2:
		off = (uint64_t)rng_next(r) & ~4095ull;
		break;
	case 3:
		len = rng_one_in(r, 2) ? 0 : pick_size(r);
		break;
	case 4:
		flags = MAP_PRIVATE;
		break;
	case 5:
		prot = PROT_READ | PROT_EXEC;
		break;
	default:
		break;
	}
	if (len == 0 || len > (1ull << 31))
		len = rng_one_in(r, 2) ? 0 : 1ull << 32;
	p = mmap(NULL, len, prot, flags, b.fd, (off_t)off);
	if (p == MAP_FAILED)
		return;
	__atomic_fetch_add(&sh->ok[OP_MMAP], 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&st.lock);
	if (st.nmaps < MAX_MAPS) {
		st.maps[st.nmaps++] = (struct map_ent){ p, len, prot, flags, off };
		p = NULL;
	}
	pthread_mutex_unlock(&st.lock);
	if (p)
		munmap(p, len);
}

static void do_munmap(uint64_t *r)
{
	struct map_ent m = { 0 };
	int i;

	pthread_mutex_lock(&st.lock);
	if (st.nmaps) {
		i = rng_below(r, st.nmaps);
		m = st.maps[i];
		if (m.len > 4096 && rng_one_in(r, 4)) {
			/* unmap the first page only, keep the rest */
			st.maps[i].addr = (char *)m.addr + 4096;
			st.maps[i].len -= 4096;
			st.maps[i].offset += 4096;
			m.len = 4096;
		} else {
			st.maps[i] = st.maps[--st.nmaps];
		}
	}
	pthread_mutex_unlock(&st.lock);
	if (m.addr && !munmap(m.addr, m.len))
		__atomic_fetch_add(&sh->ok[OP_MUNMAP], 1, __ATOMIC_RELAXED);
}

/*
 * Reads (and, if writable, writes) byte @at of mapping @m. Returns 0, or 1
 * after a fault, which is described in the shared report if it is the
 * first; sh->touch_faults counts them.
 */
static int touch_map(const struct map_ent *m, size_t at)
{
	volatile uint8_t *p = m->addr;
	volatile int faulted = 0;

	touching = 1;
	if (!sigsetjmp(touch_jmp, 1)) {
		if (m->prot & PROT_WRITE) {
			p[at] = p[at] + 1;
			p[0] = (uint8_t)at;
		} else {
			(void)p[at];
		}
	} else {
		faulted = 1;
		if (!__atomic_fetch_add(&sh->touch_faults, 1, __ATOMIC_RELAXED))
			snprintf(sh->first_fault, sizeof(sh->first_fault),
				 "%s (si_code %d) at %p, byte %zu of a %s %s mapping of %zu bytes at %p, file offset %#llx",
				 strsignal(fault_sig), fault_code, fault_addr, at,
				 m->flags & MAP_PRIVATE ? "private" : "shared",
				 m->prot & PROT_WRITE ? "read-write" : "read-only",
				 m->len, m->addr, (unsigned long long)m->offset);
	}
	touching = 0;
	return faulted;
}

/* Touches a live mapping: a fault there is a driver bug. */
static void do_touch(uint64_t *r)
{
	int i;

	/* Hold the lock: another thread must not unmap it meanwhile. */
	pthread_mutex_lock(&st.lock);
	if (st.nmaps) {
		i = rng_below(r, st.nmaps);
		if (!touch_map(&st.maps[i], rng_below(r, (uint32_t)st.maps[i].len)))
			__atomic_fetch_add(&sh->ok[OP_TOUCH], 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&st.lock);
}

/*
 * The fault check itself must work: a page mapped without access has to be
 * reported by touch_map(). Returns 0 when it is, and leaves no count behind.
 */
static int touch_self_check(void)
{
	struct map_ent m = { .len = 4096, .prot = PROT_READ, .flags = MAP_PRIVATE };
	int ok;

	m.addr = mmap(NULL, m.len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m.addr == MAP_FAILED)
		return -1;
	ok = touch_map(&m, 100) == 1 && sh->touch_faults == 1 &&
	     strstr(sh->first_fault, "Segmentation fault");
	munmap(m.addr, m.len);
	sh->touch_faults = 0;
	sh->first_fault[0] = 0;
	return ok ? 0 : -1;
}

static void do_submit(uint64_t *r)
{
	struct qpu_program progs[16];
	uint8_t big[16 * 64];
	uint32_t handles[12];
	struct qpu_submit s = { 0 };
	int fd = pick_fd(r), in_fd = -1, i, slot, all_good = 1;
	unsigned int nprog, psize, nh;
	/* Half the submissions are valid throughout; the rest break fields. */
	int valid = rng_one_in(r, 2);
#define MAYBE(n) (!valid && rng_one_in(r, (n)))

	for (slot = 0; slot < MAX_FDS; slot++)
		if (st.fds[slot] == fd)
			break;
	nprog = 1 + rng_below(r, st.num_qpus ? st.num_qpus : 12);
	psize = sizeof(struct qpu_program);
	if (MAYBE(8)) {
		static const uint32_t sizes[] = { 0, 8, 16, 20, 24, 32, 64 };

		psize = sizes[rng_below(r, 7)];
	}
	pthread_mutex_lock(&st.lock);
	for (i = 0; i < (int)nprog && i < 16; i++) {
		int good = slot < MAX_FDS && !MAYBE(6);

		all_good &= good;

		progs[i] = (struct qpu_program){
			.code_handle = good ? st.code_handle[slot] : pick_handle(r, fd),
			.code_offset = MAYBE(8) ? pick_u32(r) :
				8 * rng_below(r, 2),
			.unif_handle = MAYBE(2) ? pick_handle(r, fd) :
				(slot < MAX_FDS ? st.code_handle[slot] : 0),
			.unif_offset = MAYBE(8) ? pick_u32(r) :
				4 * rng_below(r, 8),
			.unif_length = MAYBE(6) ? pick_u32(r) :
				4 * rng_below(r, 4),
			.pad = MAYBE(16) ? pick_u32(r) : 0,
		};
	}
	nh = valid ? 0 : rng_below(r, 5);
	for (i = 0; i < (int)nh; i++)
		handles[i] = pick_handle(r, fd);
	if (rng_one_in(r, 3) && st.nfences)
		in_fd = st.fences[rng_below(r, st.nfences)];
	pthread_mutex_unlock(&st.lock);

	memset(big, 0, sizeof(big));
	if (psize > sizeof(struct qpu_program) && psize <= 64) {
		for (i = 0; i < (int)nprog; i++)
			memcpy(big + i * psize, &progs[i], sizeof(progs[i]));
		if (MAYBE(4))	/* a non-zero unknown tail */
			big[psize - 1] = 1;
		s.programs = (uintptr_t)big;
	} else {
		s.programs = (uintptr_t)progs;
	}
	s.programs = pick_ptr(r, (void *)(uintptr_t)s.programs);
	s.program_count = MAYBE(12) ? pick_u32(r) % 20 : nprog;
	if (s.program_count > nprog && s.programs == (uintptr_t)progs)
		s.program_count = nprog;	/* stay inside our array */
	if (MAYBE(40))
		s.program_count = pick_u32(r);
	s.program_size = psize;
	s.bo_handles = pick_ptr(r, handles);
	s.bo_count = MAYBE(20) ? pick_u32(r) : nh;
	if (s.bo_count > nh && s.bo_handles == (uintptr_t)handles &&
	    !MAYBE(4))
		s.bo_count = nh;
	s.flags = rng_below(r, 4);
	if (in_fd < 0 && (s.flags & QPU_SUBMIT_IN_FENCE) && !MAYBE(4))
		s.flags &= ~QPU_SUBMIT_IN_FENCE;
	if (MAYBE(16))
		s.flags = pick_u32(r);
	if (s.flags & QPU_SUBMIT_IN_FENCE)
		s.in_fence_fd = in_fd >= 0 ? in_fd :
			(MAYBE(2) ? pick_fd(r) : (int32_t)pick_u32(r));
	else if (MAYBE(16))
		s.in_fence_fd = (int32_t)pick_u32(r);
	s.out_fence_fd = MAYBE(8) ? (int32_t)pick_u32(r) : -1;
	/* Short timeouts: programs that never end must not jam the queue. */
	s.timeout_ms = 1 + rng_below(r, 30);
	if (all_good && rng_one_in(r, 20))	/* ends at once: cut to max */
		s.timeout_ms = pick_u32(r) | 0x40000000;
	s.pad = MAYBE(16) ? pick_u32(r) : 0;
	s.seqno = MAYBE(8) ? rng_next(r) : 0;

	if (ioctl(fd, QPU_IOCTL_SUBMIT, &s))
		return;
	__atomic_fetch_add(&sh->ok[OP_SUBMIT], 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&st.lock);
	if (st.nseqs < MAX_SEQNOS)
		st.seqs[st.nseqs++] = (struct seq_ent){ fd, s.seqno };
	else
		st.seqs[rng_below(r, MAX_SEQNOS)] = (struct seq_ent){ fd, s.seqno };
	if (s.flags & QPU_SUBMIT_OUT_FENCE) {
		if (st.nfences < MAX_FENCES) {
			st.fences[st.nfences++] = s.out_fence_fd;
			s.out_fence_fd = -1;
		}
	}
	pthread_mutex_unlock(&st.lock);
	if ((s.flags & QPU_SUBMIT_OUT_FENCE) && s.out_fence_fd >= 0)
		close(s.out_fence_fd);
}
#undef MAYBE

static void do_wait(uint64_t *r)
{
	struct qpu_wait w = { 0 };
	int fd = pick_fd(r);

	pthread_mutex_lock(&st.lock);
	if (st.nseqs && !rng_one_in(r, 6)) {
		struct seq_ent e = st.seqs[rng_below(r, st.nseqs)];

		fd = e.fd;
		w.seqno = e.seqno;
	} else {
		w.seqno = rng_one_in(r, 2) ? rng_next(r) : rng_below(r, 3);
	}
	pthread_mutex_unlock(&st.lock);
	if (rng_one_in(r, 4)) {
		w.flags = QPU_WAIT_BO;
		w.handle = pick_handle(r, fd);
	}
	if (rng_one_in(r, 16))
		w.flags = pick_u32(r);
	w.pad = rng_one_in(r, 16) ? pick_u32(r) : 0;
	switch (rng_below(r, 5)) {
	case 0:
		w.timeout_ns = 0;
		break;
	case 1:
		w.timeout_ns = rng_one_in(r, 2) ? INT64_MIN : -1;
		break;
	default:
		w.timeout_ns = qpu_test_now_ns() + (int64_t)rng_below(r, 60) * 1000000;
		break;
	}
	if (!ioctl(fd, QPU_IOCTL_WAIT, rng_one_in(r, 40) ?
		   (void *)(uintptr_t)pick_ptr(r, &w) : &w))
		__atomic_fetch_add(&sh->ok[OP_WAIT], 1, __ATOMIC_RELAXED);
}

static void do_fence(uint64_t *r)
{
	struct pollfd p = { .events = POLLIN };
	int i;

	pthread_mutex_lock(&st.lock);
	if (!st.nfences) {
		pthread_mutex_unlock(&st.lock);
		return;
	}
	i = rng_below(r, st.nfences);
	p.fd = st.fences[i];
	if (rng_one_in(r, 2)) {
		st.fences[i] = st.fences[--st.nfences];
		pthread_mutex_unlock(&st.lock);
		close(p.fd);
		__atomic_fetch_add(&sh->ok[OP_FENCE], 1, __ATOMIC_RELAXED);
		return;
	}
	/* Poll under the lock: nobody closes it meanwhile (0..10 ms). */
	if (poll(&p, 1, rng_below(r, 10)) >= 0)
		__atomic_fetch_add(&sh->ok[OP_FENCE], 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&st.lock);
}

/* Creates a BO holding qpu_prog_end on @fd; returns its handle or 0. */
static uint32_t make_code(int fd)
{
	struct qpu_test_bo b = { 0 };

	if (qpu_test_bo_new(fd, 4096, qpu_prog_end, sizeof(qpu_prog_end), &b))
		return 0;
	munmap(b.map, b.size);
	return b.handle;
}

static void do_open(uint64_t *r)
{
	int slot = rng_below(r, MAX_FDS), fd;
	uint32_t code;

	pthread_mutex_lock(&st.lock);
	if (st.fds[slot] >= 0) {
		pthread_mutex_unlock(&st.lock);
		return;
	}
	st.fds[slot] = -2;	/* reserved */
	pthread_mutex_unlock(&st.lock);
	fd = open(QPU_NODE, rng_one_in(r, 4) ? O_RDONLY : O_RDWR | O_CLOEXEC);
	code = fd >= 0 ? make_code(fd) : 0;
	pthread_mutex_lock(&st.lock);
	st.fds[slot] = fd;
	st.code_handle[slot] = code;
	pthread_mutex_unlock(&st.lock);
	if (fd >= 0)
		__atomic_fetch_add(&sh->ok[OP_OPEN], 1, __ATOMIC_RELAXED);
}

/* Closes a file with its BOs, jobs and mappings possibly still alive. */
static void do_close(uint64_t *r)
{
	int slot = rng_below(r, MAX_FDS), fd, i;

	pthread_mutex_lock(&st.lock);
	fd = st.fds[slot];
	if (fd < 0) {
		pthread_mutex_unlock(&st.lock);
		return;
	}
	for (i = 0; i < st.nbos; i++)
		if (st.bos[i].fd == fd)
			st.bos[i--] = st.bos[--st.nbos];
	for (i = 0; i < st.nseqs; i++)
		if (st.seqs[i].fd == fd)
			st.seqs[i--] = st.seqs[--st.nseqs];
	st.fds[slot] = -1;
	st.code_handle[slot] = 0;
	close(fd);
	st.closed_fd = fd;
	pthread_mutex_unlock(&st.lock);
	__atomic_fetch_add(&sh->ok[OP_CLOSE], 1, __ATOMIC_RELAXED);
}

/* Any ioctl number of our type, any size and direction, random bytes. */
static void do_raw_ioctl(uint64_t *r)
{
	uint8_t buf[256];
	unsigned long req;
	unsigned int i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = rng_one_in(r, 2) ? 0 : (uint8_t)rng_next(r);
	req = _IOC(rng_below(r, 4), QPU_IOCTL_BASE, rng_below(r, 10),
		   rng_below(r, 4) ? 8 * rng_below(r, 17) : rng_below(r, 200));
	if (!ioctl(pick_fd(r), req, rng_one_in(r, 10) ?
		   (void *)(uintptr_t)pick_ptr(r, buf) : buf))
		__atomic_fetch_add(&sh->ok[OP_RAW_IOCTL], 1, __ATOMIC_RELAXED);
}

struct nl_ctx {
	int fd;
	int family;
	uint32_t seq;
};

static void do_netlink(uint64_t *r, struct nl_ctx *nl)
{
	static const uint8_t payload_len[] = { 0, 1, 2, 4, 4, 4, 8, 8, 16, 64 };
	uint8_t cmd, data[64];
	struct req m;
	uint16_t flags = 0, type;
	int nattr, i, parts, err;

	if (nl->fd < 0)
		return;
	if (rng_one_in(r, 2)) {
		/* A well-formed query: a do or a dump of a GET command. */
		uint32_t zero = 0;

		cmd = 1 + rng_below(r, 4);
		req_start(&m, (uint16_t)nl->family,
			  cmd == QPU_CMD_CLIENT_GET || (cmd != QPU_CMD_CONFIG_GET &&
							rng_one_in(r, 2)) ? NLM_F_DUMP : 0,
			  cmd);
		if ((cmd == QPU_CMD_DEV_GET || cmd == QPU_CMD_STATS_GET) &&
		    !(m.nlh.nlmsg_flags & NLM_F_DUMP))
			req_put(&m, 1, &zero, 4);	/* the DEV_INDEX of each */
		goto send;
	}
	cmd = rng_one_in(r, 10) ? (uint8_t)rng_next(r) : rng_below(r, 11);
	if (!opt_admin && (cmd == QPU_CMD_CONFIG_SET || cmd == QPU_CMD_DEV_RESET))
		cmd = QPU_CMD_CONFIG_GET;
	if (rng_one_in(r, 3))
		flags |= NLM_F_DUMP;
	type = rng_one_in(r, 30) ? (uint16_t)rng_next(r) : (uint16_t)nl->family;
	req_start(&m, type, flags, cmd);
	if (rng_one_in(r, 10))
		((struct genlmsghdr *)NLMSG_DATA(&m.nlh))->version = (uint8_t)rng_next(r);
	if (rng_one_in(r, 12))
		((struct genlmsghdr *)NLMSG_DATA(&m.nlh))->reserved = 1;
	nattr = rng_below(r, 5);
	for (i = 0; i < nattr; i++) {
		uint16_t atype = rng_one_in(r, 10) ? (uint16_t)rng_next(r) :
			rng_below(r, 14);
		uint16_t len = payload_len[rng_below(r, sizeof(payload_len))];
		uint64_t v = rng_below(r, 3) ? rng_below(r, 4) : rng_next(r);

		if (cmd == QPU_CMD_CONFIG_SET && rng_below(r, 3)) {
			/*
			 * In range but harmless: short timeouts, sizes >= 1 MiB
			 * (the last CONFIG_SET before the end is undone).
			 */
			atype = 2 + rng_below(r, 5);
			len = atype <= 3 ? 4 : 8;
			v = atype <= 3 ? 1 + rng_below(r, 200) :
				(1ull << 20) << rng_below(r, 4);
		}
		memset(data, 0, sizeof(data));
		memcpy(data, &v, len < 8 ? len : 8);
		if (rng_one_in(r, 20))	/* lie about the length */
			req_put_raw(&m, atype, (uint16_t)rng_below(r, 80), data, len);
		else
			req_put(&m, atype | (rng_one_in(r, 20) ? NLA_F_NESTED : 0),
				data, len);
	}
	if (rng_one_in(r, 30))	/* truncated message */
		m.nlh.nlmsg_len = rng_below(r, m.nlh.nlmsg_len + 1);
send:
	err = nl_transact(nl->fd, &m, ++nl->seq, 200, NULL, &parts);
	if (!err)
		__atomic_fetch_add(&sh->ok[OP_NETLINK], 1, __ATOMIC_RELAXED);
	if (err == -ETIME || (err < 0 && err != -EINVAL && err != -EOPNOTSUPP &&
			      err != -ENOENT && err != -ERANGE && err != -EPERM &&
			      err != -ENODEV && err != -EMSGSIZE)) {
		/* desynchronised or odd: start over on a fresh socket */
		close(nl->fd);
		nl->fd = nl_socket();
	}
}

static void *thread_main(void *arg)
{
	uint64_t r = rng_seed((uintptr_t)arg), total = 0, n;
	struct nl_ctx nl = { .fd = nl_socket() };
	unsigned int i;
	enum op op;

	for (i = 0; i < OP_COUNT; i++)
		total += op_weight[i];
	if (nl.fd >= 0) {
		struct nl resolved = { .fd = nl.fd };

		nl.family = nl_resolve(&resolved) ? -1 : resolved.family;
	} else {
		nl.family = -1;
	}
	if (nl.family < 0)
		nl.family = 0x1234;	/* still fuzz the netlink core */
	for (n = 0; n < calls_per_thread && qpu_test_now_ns() < deadline; n++) {
		uint32_t pick = rng_below(&r, (uint32_t)total);

		for (op = 0; pick >= op_weight[op]; op++)
			pick -= op_weight[op];
		switch (op) {
		case OP_GET_PARAM: do_get_param(&r); break;
		case OP_BO_CREATE: do_bo_create(&r); break;
		case OP_BO_DESTROY: do_bo_destroy(&r); break;
		case OP_MMAP: do_mmap(&r); break;
		case OP_MUNMAP: do_munmap(&r); break;
		case OP_TOUCH: do_touch(&r); break;
		case OP_SUBMIT: do_submit(&r); break;
		case OP_WAIT: do_wait(&r); break;
		case OP_FENCE: do_fence(&r); break;
		case OP_OPEN: do_open(&r); break;
		case OP_CLOSE: do_close(&r); break;
		case OP_RAW_IOCTL: do_raw_ioctl(&r); break;
		default: do_netlink(&r, &nl); break;
		}
		__atomic_fetch_add(&sh->per_op[op], 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&sh->calls, 1, __ATOMIC_RELAXED);
	}
	if (nl.fd >= 0)
		close(nl.fd);
	return NULL;
}

static int proc_main(unsigned int p)
{
	pthread_t th[64];
	struct qpu_get_param gp = { .param = QPU_PARAM_MAX_BO_SIZE };
	unsigned int t;
	int i;

	pthread_mutex_init(&st.lock, NULL);
	st.closed_fd = 1000;
	for (i = 0; i < MAX_FDS; i++)
		st.fds[i] = -1;
	for (i = 0; i < 2; i++) {
		st.fds[i] = open(QPU_NODE, O_RDWR | O_CLOEXEC);
		if (st.fds[i] < 0) {
			fprintf(stderr, "open %s: %s\n", QPU_NODE, strerror(errno));
			return 1;
		}
		st.code_handle[i] = make_code(st.fds[i]);
	}
	st.max_bo = ioctl(st.fds[0], QPU_IOCTL_GET_PARAM, &gp) ? 1 << 24 : gp.value;
	gp.param = QPU_PARAM_NUM_QPUS;
	st.num_qpus = ioctl(st.fds[0], QPU_IOCTL_GET_PARAM, &gp) ? 12 : gp.value;
	for (t = 0; t < opt_threads; t++)
		if (pthread_create(&th[t], NULL, thread_main,
				   (void *)(uintptr_t)(opt_seed * 1000003 + p * 64 + t))) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	for (t = 0; t < opt_threads; t++)
		pthread_join(th[t], NULL);
	/* Leave the rest (files, BOs, mappings, fences) to exit: cleanup on close. */
	return 0;
}

static const char *const config_params[] = {
	"default_timeout_ms", "max_timeout_ms", "max_bo_size",
	"client_mem_limit", "dev_mem_limit", "max_queued_jobs",
};

#define NUM_CONFIG_PARAMS (sizeof(config_params) / sizeof(config_params[0]))
static char config_saved[NUM_CONFIG_PARAMS][64];

static void config_save(int restore)
{
	char path[128];
	unsigned int i;

	for (i = 0; i < NUM_CONFIG_PARAMS; i++) {
		snprintf(path, sizeof(path), "/sys/module/qpu/parameters/%s",
			 config_params[i]);
		if (restore) {
			if (config_saved[i][0])
				qpu_test_write(path, config_saved[i]);
		} else {
			FILE *f = fopen(path, "r");

			if (f) {
				if (!fgets(config_saved[i], sizeof(config_saved[i]), f))
					config_saved[i][0] = 0;
				fclose(f);
			}
		}
	}
}

static unsigned long arg_num(const char *s, char opt)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "qpu_fuzz: -%c needs a number\n", opt);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_fault,
				.sa_flags = SA_NODEFER | SA_SIGINFO };
	long long count, bytes;
	unsigned int p;
	int c, status, failed = 0, zero;
	pid_t pids[64];
	int64_t t0;

	while ((c = getopt(argc, argv, "s:n:t:p:j:c")) != -1) {
		switch (c) {
		case 's': opt_seed = strtoull(optarg, NULL, 0); break;
		case 'n': opt_calls = arg_num(optarg, c); break;
		case 't': opt_secs = arg_num(optarg, c); break;
		case 'p': opt_procs = arg_num(optarg, c); break;
		case 'j': opt_threads = arg_num(optarg, c); break;
		case 'c': opt_admin = 1; break;
		default:
			fprintf(stderr, "usage: qpu_fuzz [-s SEED] [-n CALLS] [-t SECONDS] [-p PROCS] [-j THREADS] [-c]\n");
			return 2;
		}
	}
	if (!opt_procs || opt_procs > 64 || !opt_threads || opt_threads > 64) {
		fprintf(stderr, "qpu_fuzz: 1 to 64 processes and threads\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..3\n");
	printf("# qpu_fuzz: seed %llu, up to %llu calls, %u s, %u processes x %u threads%s\n",
	       (unsigned long long)opt_seed, (unsigned long long)opt_calls,
	       opt_secs, opt_procs, opt_threads, opt_admin ? ", admin commands" : "");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (touch_self_check()) {
		printf("Bail out! a fault on a mapping is not caught and reported\n");
		return 1;
	}
	config_save(0);
	calls_per_thread = (opt_calls + opt_procs * opt_threads - 1) /
		(opt_procs * opt_threads);
	t0 = qpu_test_now_ns();
	deadline = t0 + (int64_t)opt_secs * 1000000000ll;
	for (p = 0; p < opt_procs; p++) {
		pids[p] = fork();
		if (pids[p] == 0)
			_exit(proc_main(p));
		if (pids[p] < 0) {
			perror("fork");
			return 1;
		}
	}
	for (p = 0; p < opt_procs; p++) {
		if (waitpid(pids[p], &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("# process %u ended badly (status 0x%x)\n", p, status);
			failed = 1;
		}
	}
	config_save(1);
	printf("# seed %llu, %llu calls in %.1f s; touch faults %llu\n",
	       (unsigned long long)opt_seed, (unsigned long long)sh->calls,
	       (double)(qpu_test_now_ns() - t0) / 1e9,
	       (unsigned long long)sh->touch_faults);
	for (c = 0; c < OP_COUNT; c++)
		printf("#   %-10s %7llu calls, %7llu succeeded\n", op_names[c],
		       (unsigned long long)sh->per_op[c],
		       (unsigned long long)sh->ok[c]);
	printf("%sok 1 fuzz: seed %llu, %llu calls\n", failed ? "not " : "",
	       (unsigned long long)opt_seed, (unsigned long long)sh->calls);
	/* Every file is closed: jobs drain, then every BO must be gone. */
	zero = qpu_test_stats_wait_bo(20000, 0, 0, &count, &bytes);
	if (zero)
		printf("# bo_count %lld, bo_bytes %lld 20 s after every client exited\n",
		       count, bytes);
	printf("%sok 2 accounting returns to zero\n", zero ? "not " : "");
	if (sh->touch_faults)
		printf("# first of %llu faults: %s\n",
		       (unsigned long long)sh->touch_faults, sh->first_fault);
	printf("%sok 3 no live mapping faults\n", sh->touch_faults ? "not " : "");
	printf("seed %llu, %llu calls\n", (unsigned long long)opt_seed,
	       (unsigned long long)sh->calls);
	return failed || zero || sh->touch_faults ? 1 : 0;
}
