// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated Raspberry Pi firmware's /dev/vcio (v3d_sim vcio=1): the
 * property tags a Pi 4/5's telemetry asks, answered in place from the
 * module's fw_* knobs, and every refusal as raspberrypi/linux's vcio
 * driver and the firmware give it: short, unaligned and oversized
 * buffers, bad pointers, unknown ioctls, a tag past the end and the
 * firmware's error code (EINVAL); an unknown tag left without its response
 * bit; an answer longer than its value buffer cut to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "qpu_fwprop.h"
#include "v3d_sim_util.h"

#define VCIO_IOCTL	_IOWR(QPU_FWPROP_IOC_MAGIC, QPU_FWPROP_IOC_NR, char *)
#define WORDS		22

/* The telemetry request: clock set, clock measured, temperature, throttled. */
static void request(uint32_t *b)
{
	static const uint32_t words[WORDS] = {
		WORDS * 4, QPU_FWPROP_REQUEST,
		QPU_FWPROP_GET_CLOCK_RATE, 8, 0, QPU_FWPROP_CLK_V3D, 0,
		QPU_FWPROP_GET_CLOCK_MEASURED, 8, 0, QPU_FWPROP_CLK_V3D, 0,
		QPU_FWPROP_GET_TEMPERATURE, 8, 0, QPU_FWPROP_SENSOR_SOC, 0,
		QPU_FWPROP_GET_THROTTLED, 4, 0, 0,
		QPU_FWPROP_END,
	};

	memcpy(b, words, sizeof(words));
}

FIXTURE(vcio) {
	int fd;
};

FIXTURE_SETUP(vcio)
{
	self->fd = open(QPU_FWPROP_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s (v3d_sim.ko loaded with vcio=1?)",
				      QPU_FWPROP_NODE, strerror(errno));
	ASSERT_EQ(0, v3d_sim_set_param("fw_clock_set_hz", "500000000"));
	ASSERT_EQ(0, v3d_sim_set_param("fw_clock_measured_hz", "499876000"));
	ASSERT_EQ(0, v3d_sim_set_param("fw_temp_mc", "51234"));
	ASSERT_EQ(0, v3d_sim_set_param("fw_throttled", "327685"));	/* 0x50005 */
}

FIXTURE_TEARDOWN(vcio)
{
	v3d_sim_set_param("fw_fail", "0");
	v3d_sim_set_param("fw_unknown", "0");
	v3d_sim_set_param("fw_clock_measured_hz", "500000000");
	v3d_sim_set_param("fw_temp_mc", "45000");
	v3d_sim_set_param("fw_throttled", "0");
	close(self->fd);
}

TEST_F(vcio, answers_telemetry_tags)
{
	uint32_t b[WORDS];

	request(b);
	ASSERT_EQ(0, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(QPU_FWPROP_SUCCESS, b[1]);
	EXPECT_EQ(QPU_FWPROP_RESPONSE | 8, b[4]);
	EXPECT_EQ(QPU_FWPROP_CLK_V3D, b[5]);
	EXPECT_EQ(500000000u, b[6]);
	EXPECT_EQ(QPU_FWPROP_RESPONSE | 8, b[9]);
	EXPECT_EQ(QPU_FWPROP_CLK_V3D, b[10]);
	EXPECT_EQ(499876000u, b[11]);
	EXPECT_EQ(QPU_FWPROP_RESPONSE | 8, b[14]);
	EXPECT_EQ(QPU_FWPROP_SENSOR_SOC, b[15]);
	EXPECT_EQ(51234u, b[16]);
	EXPECT_EQ(QPU_FWPROP_RESPONSE | 4, b[19]);
	EXPECT_EQ(0x50005u, b[20]);
	EXPECT_EQ(QPU_FWPROP_END, b[21]);
	EXPECT_EQ(WORDS * 4, b[0]);
}

/* A negative temperature goes through as the firmware's signed word. */
TEST_F(vcio, temperature_below_zero)
{
	uint32_t b[WORDS];

	ASSERT_EQ(0, v3d_sim_set_param("fw_temp_mc", "-5000"));
	request(b);
	ASSERT_EQ(0, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(-5000, (int32_t)b[16]);
}

/* Only the V3D's clock is simulated: another clock id reads 0 Hz. */
TEST_F(vcio, other_clock_is_zero)
{
	uint32_t b[WORDS];

	request(b);
	b[5] = 3;	/* the ARM's */
	ASSERT_EQ(0, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(QPU_FWPROP_RESPONSE | 8, b[4]);
	EXPECT_EQ(3u, b[5]);
	EXPECT_EQ(0u, b[6]);
}

TEST_F(vcio, short_buffer_refused)
{
	uint32_t b[WORDS];

	request(b);
	b[0] = 8;
	EXPECT_EQ(-1, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(EINVAL, errno);
	b[0] = 0;
	EXPECT_EQ(-1, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(QPU_FWPROP_REQUEST, b[1]);	/* nothing answered */
}

TEST_F(vcio, unaligned_size_refused)
{
	uint32_t b[WORDS];

	request(b);
	b[0] = WORDS * 4 - 2;
	EXPECT_EQ(-1, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(vcio, oversized_refused)
{
	uint32_t b[WORDS];

	request(b);
	b[0] = 1u << 20;
	EXPECT_EQ(-1, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(vcio, bad_pointer_faults)
{
	long page = sysconf(_SC_PAGESIZE);
	uint32_t *b;
	char *p;

	EXPECT_EQ(-1, ioctl(self->fd, VCIO_IOCTL, NULL));
	EXPECT_EQ(EFAULT, errno);
	/* a size word that claims more than the mapping holds */
	p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p + page, page));
	b = (uint32_t *)(p + page - 16);
	b[0] = 64;
	b[1] = QPU_FWPROP_REQUEST;
	b[2] = QPU_FWPROP_END;
	EXPECT_EQ(-1, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(EFAULT, errno);
	munmap(p, page);
}

TEST_F(vcio, unknown_ioctl_refused)
{
	uint32_t b[WORDS];

	request(b);
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(QPU_FWPROP_IOC_MAGIC, 1, char *), b));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO(QPU_FWPROP_IOC_MAGIC, QPU_FWPROP_IOC_NR)));
	EXPECT_EQ(EINVAL, errno);
}

/* The firmware leaves a tag it does not know without its response bit. */
TEST_F(vcio, unknown_tag_unanswered)
{
	uint32_t b[WORDS];

	request(b);
	b[7] = 0x00030099;
	ASSERT_EQ(0, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(QPU_FWPROP_SUCCESS, b[1]);
	EXPECT_EQ(0u, b[9]);
	EXPECT_EQ(0u, b[11]);
	EXPECT_EQ(QPU_FWPROP_RESPONSE | 8, b[4]);
	EXPECT_EQ(QPU_FWPROP_RESPONSE | 4, b[19]);
	/* an older firmware without GET_CLOCK_MEASURED */
	ASSERT_EQ(0, v3d_sim_set_param("fw_unknown", "196679"));	/* 0x30047 */
	request(b);
	ASSERT_EQ(0, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(0u, b[9]);
	EXPECT_EQ(QPU_FWPROP_RESPONSE | 8, b[14]);
}

TEST_F(vcio, firmware_error_is_einval)
{
	uint32_t b[WORDS];

	ASSERT_EQ(0, v3d_sim_set_param("fw_fail", "1"));
	request(b);
	EXPECT_EQ(-1, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, v3d_sim_set_param("fw_fail", "0"));
	ASSERT_EQ(0, ioctl(self->fd, VCIO_IOCTL, b));
}

/* A tag whose value buffer runs past the request is the firmware's parse error. */
TEST_F(vcio, tag_past_end_is_einval)
{
	uint32_t b[WORDS];

	request(b);
	b[3] = 1000;
	EXPECT_EQ(-1, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(EINVAL, errno);
}

/* An answer longer than its buffer: cut, with the whole length reported. */
TEST_F(vcio, short_value_buffer_cut)
{
	uint32_t b[8] = {
		sizeof(b), QPU_FWPROP_REQUEST,
		QPU_FWPROP_GET_CLOCK_RATE, 4, 0, QPU_FWPROP_CLK_V3D,
		QPU_FWPROP_END, 0xdeadbeef,
	};

	ASSERT_EQ(0, ioctl(self->fd, VCIO_IOCTL, b));
	EXPECT_EQ(QPU_FWPROP_SUCCESS, b[1]);
	EXPECT_EQ(QPU_FWPROP_RESPONSE | 8, b[4]);
	EXPECT_EQ(QPU_FWPROP_CLK_V3D, b[5]);
	EXPECT_EQ(QPU_FWPROP_END, b[6]);
	EXPECT_EQ(0xdeadbeefu, b[7]);
}

TEST_HARNESS_MAIN
