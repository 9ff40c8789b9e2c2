// SPDX-License-Identifier: MIT
/*
 * The Raspberry Pi firmware's clock, temperature and throttling for a Pi
 * 4/5's telemetry, through /dev/vcio's property interface (qpu_fwprop.h
 * has the protocol), as qpu.ko asks the firmware on a Pi 1-3: the V3D's
 * clock as set and as measured, the SoC's temperature, the throttled word.
 * All four tags go in one request. The throttled word is asked with 0, not
 * 0xffff (which would clear the "occurred" bits the hwmon driver reports).
 * A field the firmware does not give is left out with the reason why.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "qpu_fwprop.h"
#include "runtime/runtime.h"

#define FWPROP_IOCTL	_IOWR(QPU_FWPROP_IOC_MAGIC, QPU_FWPROP_IOC_NR, char *)

/* Where each tag's words start in the request, and their value bytes. */
enum {
	FW_CLOCK_SET = 2,
	FW_CLOCK_MEASURED = FW_CLOCK_SET + 5,
	FW_TEMP = FW_CLOCK_MEASURED + 5,
	FW_THROTTLED = FW_TEMP + 5,
	FW_END = FW_THROTTLED + 4,
};

static void fwprop_tag(uint32_t *buf, unsigned int at, uint32_t tag,
		       uint32_t bytes, uint32_t arg)
{
	buf[at] = tag;
	buf[at + 1] = bytes;
	buf[at + 2] = 0;
	buf[at + 3] = arg;
	if (bytes > 4)
		buf[at + 4] = 0;
}

void qpu_fwprop_request(uint32_t buf[QPU_FWPROP_WORDS])
{
	buf[0] = QPU_FWPROP_WORDS * 4;
	buf[1] = QPU_FWPROP_REQUEST;
	fwprop_tag(buf, FW_CLOCK_SET, QPU_FWPROP_GET_CLOCK_RATE, 8, QPU_FWPROP_CLK_V3D);
	fwprop_tag(buf, FW_CLOCK_MEASURED, QPU_FWPROP_GET_CLOCK_MEASURED, 8,
		   QPU_FWPROP_CLK_V3D);
	fwprop_tag(buf, FW_TEMP, QPU_FWPROP_GET_TEMPERATURE, 8, QPU_FWPROP_SENSOR_SOC);
	fwprop_tag(buf, FW_THROTTLED, QPU_FWPROP_GET_THROTTLED, 4, 0);
	buf[FW_END] = QPU_FWPROP_END;
}

/*
 * The tag at @at's answer: its first value word (an id the firmware echoes
 * when @echo, checked against the request's) and the word after in *@value;
 * NULL on success, else why not.
 */
static const char *fwprop_answer(const uint32_t *buf, unsigned int at, uint32_t bytes,
				 bool echo, uint32_t arg, uint32_t *value,
				 const char *unknown, const char *bad)
{
	uint32_t rr = buf[at + 2];

	if (!(rr & QPU_FWPROP_RESPONSE))
		return unknown;
	if ((rr & QPU_FWPROP_LEN_MASK) != bytes || (echo && buf[at + 3] != arg))
		return bad;
	*value = buf[at + (echo ? 4 : 3)];
	return NULL;
}

int qpu_fwprop_parse(const uint32_t buf[QPU_FWPROP_WORDS], struct qpu_telemetry *t)
{
	uint32_t v;

	if (buf[0] != QPU_FWPROP_WORDS * 4 || buf[1] != QPU_FWPROP_SUCCESS) {
		t->why_clock = t->why_temp = t->why_throttled =
			"the firmware did not answer the request (its code is not success)";
		return -EPROTO;
	}
	t->why_clock = fwprop_answer(buf, FW_CLOCK_SET, 8, true, QPU_FWPROP_CLK_V3D, &v,
				     "the firmware does not know GET_CLOCK_RATE",
				     "the firmware's answer to GET_CLOCK_RATE is malformed");
	if (!t->why_clock) {
		t->clock_set_hz = v;
		t->flags |= QPU_TELEMETRY_CLOCK_SET;
	}
	/* The measured clock is what clock_hz reports; its reason wins. */
	t->why_clock = fwprop_answer(buf, FW_CLOCK_MEASURED, 8, true, QPU_FWPROP_CLK_V3D, &v,
				     "the firmware does not know GET_CLOCK_MEASURED (older than 2017)",
				     "the firmware's answer to GET_CLOCK_MEASURED is malformed");
	if (!t->why_clock) {
		t->clock_hz = v;
		t->flags |= QPU_TELEMETRY_CLOCK;
	}
	t->why_temp = fwprop_answer(buf, FW_TEMP, 8, true, QPU_FWPROP_SENSOR_SOC, &v,
				    "the firmware does not know GET_TEMPERATURE",
				    "the firmware's answer to GET_TEMPERATURE is malformed");
	if (!t->why_temp) {
		t->temp_mc = (int32_t)v;
		t->flags |= QPU_TELEMETRY_TEMP;
	}
	t->why_throttled = fwprop_answer(buf, FW_THROTTLED, 4, false, 0, &v,
					 "the firmware does not know GET_THROTTLED",
					 "the firmware's answer to GET_THROTTLED is malformed");
	if (!t->why_throttled) {
		t->throttled = v;
		t->flags |= QPU_TELEMETRY_THROTTLED;
	}
	return 0;
}

/* Why the firmware node could not be opened or asked, from its errno. */
static const char *fwprop_why(int err, bool opened)
{
	if (!opened && err == ENOENT)
		return "no " QPU_FWPROP_NODE ": no Raspberry Pi firmware here, or its vcio driver is not loaded";
	if (!opened && (err == EACCES || err == EPERM))
		return QPU_FWPROP_NODE " is not open to this user (Raspberry Pi OS lets the video group open it)";
	if (!opened)
		return "cannot open " QPU_FWPROP_NODE;
	if (err == EINVAL)
		return "the firmware refused the request (" QPU_FWPROP_NODE " gave EINVAL)";
	if (err == ENOTTY)
		return QPU_FWPROP_NODE " is not the firmware's mailbox (ENOTTY)";
	return "the request through " QPU_FWPROP_NODE " failed";
}

int qpu_fwprop_read(const char *node, struct qpu_telemetry *t)
{
	uint32_t buf[QPU_FWPROP_WORDS];
	int fd, ret, err;

	fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		t->why_clock = t->why_temp = t->why_throttled = fwprop_why(err, false);
		return -err;
	}
	qpu_fwprop_request(buf);
	do
		ret = ioctl(fd, FWPROP_IOCTL, buf);
	while (ret < 0 && errno == EINTR);
	err = ret < 0 ? errno : 0;
	close(fd);
	if (err) {
		t->why_clock = t->why_temp = t->why_throttled = fwprop_why(err, true);
		return -err;
	}
	return qpu_fwprop_parse(buf, t);
}
