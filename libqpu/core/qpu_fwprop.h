/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The Raspberry Pi firmware's mailbox property interface as userspace
 * reaches it through /dev/vcio (raspberrypi/linux drivers/char/broadcom/
 * vcio.c), for libqpu's telemetry on a Pi 4/5 and v3d_sim's simulated
 * firmware: one set of numbers for the client and the simulation.
 *
 * A request is a buffer of 32-bit words: its size in bytes, a code
 * (QPU_FWPROP_REQUEST), then tags, then a 0 word. A tag is its id, the
 * bytes of its value buffer, a request/response word, then the value
 * buffer. The firmware answers in place: the code becomes
 * QPU_FWPROP_SUCCESS, and each tag it knows gets QPU_FWPROP_RESPONSE |
 * the length of its answer (which may exceed the value buffer: then the
 * answer is cut to the buffer); a tag it does not know keeps the bit
 * clear. The vcio driver refuses a buffer under 12 bytes or not a
 * multiple of 4 bytes with EINVAL, and a firmware answer other than
 * success with EINVAL too (rpi_firmware_property_list()).
 */
#ifndef QPU_FWPROP_H
#define QPU_FWPROP_H

/* The vcio ioctl: _IOWR(QPU_FWPROP_IOC_MAGIC, QPU_FWPROP_IOC_NR, char *). */
#define QPU_FWPROP_NODE		"/dev/vcio"
#define QPU_FWPROP_IOC_MAGIC	100
#define QPU_FWPROP_IOC_NR	0

/* The buffer's code, as sent and as answered. */
#define QPU_FWPROP_REQUEST	0x00000000u
#define QPU_FWPROP_SUCCESS	0x80000000u
#define QPU_FWPROP_ERROR	0x80000001u
/* A tag's request/response word: answered, and the answer's length. */
#define QPU_FWPROP_RESPONSE	0x80000000u
#define QPU_FWPROP_LEN_MASK	0x7fffffffu
/* The least buffer the driver takes: size, code and the end tag. */
#define QPU_FWPROP_MIN_SIZE	12u

/* The tags telemetry asks (enum rpi_firmware_property_tag). */
#define QPU_FWPROP_END			0x00000000u
#define QPU_FWPROP_GET_CLOCK_RATE	0x00030002u
#define QPU_FWPROP_GET_TEMPERATURE	0x00030006u
#define QPU_FWPROP_GET_THROTTLED	0x00030046u
#define QPU_FWPROP_GET_CLOCK_MEASURED	0x00030047u

/* The firmware's clock id of the V3D (Pi 1 to 5) and the SoC's sensor. */
#define QPU_FWPROP_CLK_V3D	5u
#define QPU_FWPROP_SENSOR_SOC	0u

#endif /* QPU_FWPROP_H */
