// SPDX-License-Identifier: GPL-2.0
/*
 * The raspi0 guest's timers survive a storm of short ones: nanosleep(1 us)
 * again and again for SECONDS (default 15) of CLOCK_MONOTONIC, each sleep
 * arming the clockevent with its shortest delta. Under QEMU's raspi0 with
 * the host's clock, a compare written late (selftests/vm/raspi0.sh) loses
 * the timer and the guest freezes: this program then never ends and the
 * run fails at its host time limit. It also fails when one sleep takes
 * more than a second. The sim boot of check-pi runs it first.
 */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

int main(int argc, char **argv)
{
	const struct timespec us = { .tv_nsec = 1000 };
	long long seconds = argc > 1 ? atoll(argv[1]) : 15;
	long long start = now_ns(), end = start + seconds * 1000000000ll;
	long long t = start, prev, longest = 0;
	long sleeps = 0;

	if (seconds <= 0) {
		fprintf(stderr, "usage: %s [SECONDS > 0]\n", argv[0]);
		return 2;
	}
	while (t < end) {
		prev = t;
		nanosleep(&us, NULL);
		t = now_ns();
		if (t - prev > longest)
			longest = t - prev;
		sleeps++;
	}
	printf("%ld sleeps of 1 us in %lld s, the longest %lld us\n", sleeps,
	       seconds, longest / 1000);
	if (longest > 1000000000ll) {
		printf("FAIL: a sleep of 1 us took over a second\n");
		return 1;
	}
	return 0;
}
