// SPDX-License-Identifier: MIT
/*
 * The public disassembler (qpu_dis.h): the core's qpu_disasm() and register
 * names, and the V3D disassembler (dis_v3d.c), behind libqpu's own types
 * and flags, so that the private headers may change without the library's
 * API doing so.
 */

#include <errno.h>

#include "qpu_dis.h"
#include "qpu_disasm.h"
#include "toolkit/dis_v3d.h"

_Static_assert(QPU_DIS_BUF_SIZE >= QPU_DISASM_BUF_SIZE,
	       "QPU_DIS_BUF_SIZE must hold the core's longest text");
_Static_assert(QPU_DIS_BUF_SIZE > QPU_V3D_DIS_LINE_MAX,
	       "QPU_DIS_BUF_SIZE must hold the longest V3D text");

int qpu_dis_word(uint64_t word, uint32_t addr, unsigned int flags, char *buf,
		 size_t size)
{
	if (flags & ~QPU_DIS_TARGET)
		return -EINVAL;
	return qpu_disasm(word, addr,
			  flags & QPU_DIS_TARGET ? QPU_DISASM_TARGET : 0, buf,
			  size);
}

const char *qpu_dis_write_reg_name(unsigned int waddr, bool file_b)
{
	if (waddr >= 64)
		return NULL;
	return qpu_isa_write_regs[file_b][waddr].name;
}

int qpu_dis_word_gen(enum qpu_gen gen, uint64_t word, uint32_t addr, unsigned int flags,
		     char *buf, size_t size)
{
	if (flags & ~QPU_DIS_TARGET)
		return -EINVAL;
	switch (gen) {
	case QPU_GEN_VC4:
		return qpu_dis_word(word, addr, flags, buf, size);
	case QPU_GEN_V3D42:
	case QPU_GEN_V3D71:
		return qpu_v3d_disasm(gen, word, addr,
				      flags & QPU_DIS_TARGET ?
				      QPU_V3D_DIS_TARGET : 0, buf, size);
	}
	return -EINVAL;
}
