/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpu: helpers of the reliability programs of selftests/stress (qpu_fuzz,
 * qpu_stress, qpu_failinj) that the kselftests do not need: the seeded
 * PRNG. Buffers, clocks and the debugfs counters and knobs come from the
 * kselftests' selftests/kmod/qpu_util.h, raw generic netlink from their
 * selftests/kmod/qpu_nl.h, both linked in too.
 */
#ifndef QPU_STRESS_H
#define QPU_STRESS_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/qpu.h>

#include "../kmod/qpu_nl.h"
#include "../kmod/qpu_util.h"

/* --- PRNG: splitmix64 seeding a xorshift64* stream ---------------------- */

static inline uint64_t rng_seed(uint64_t s)
{
	s += 0x9e3779b97f4a7c15ull;
	s = (s ^ (s >> 30)) * 0xbf58476d1ce4e5b9ull;
	s = (s ^ (s >> 27)) * 0x94d049bb133111ebull;
	s ^= s >> 31;
	return s ? s : 1;
}

static inline uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, n) (n > 0; the bias is irrelevant here). */
static inline uint32_t rng_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)((rng_next(s) >> 32) % n);
}

/* True with probability 1/n. */
static inline int rng_one_in(uint64_t *s, uint32_t n)
{
	return rng_below(s, n) == 0;
}

#endif /* QPU_STRESS_H */
