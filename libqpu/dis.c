// SPDX-License-Identifier: MIT
/*
 * The public disassembler (qpu_dis.h): the core's qpu_disasm() and register
 * names behind libqpu's own types and flags, so that the core's header may
 * change without the library's API doing so.
 */

#include <errno.h>

#include "qpu_dis.h"
#include "qpu_disasm.h"

_Static_assert(QPU_DIS_BUF_SIZE >= QPU_DISASM_BUF_SIZE,
	       "QPU_DIS_BUF_SIZE must hold the core's longest text");

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
