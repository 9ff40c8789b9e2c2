/* SPDX-License-Identifier: MIT */
/*
 * What V3D test and bench programs share: the thread end every program
 * written for a Pi 4 or 5 closes with (py-videocore's: the last switch as
 * two thrsw in a row, two slots, the ending thrsw and its two slots).
 */
#ifndef QPU_TEST_V3D_H
#define QPU_TEST_V3D_H

#define V3D_THREAD_END			\
	"nop ; nop ; thrsw\n"		\
	"nop ; nop ; thrsw\n"		\
	"nop ; nop\n"			\
	"nop ; nop\n"			\
	"nop ; nop ; thrsw\n"		\
	"nop ; nop\n"			\
	"nop ; nop\n"

#endif /* QPU_TEST_V3D_H */
