# SPDX-License-Identifier: GPL-2.0
# Sample kernels: each libqpu/kernels/<name>.qasm is assembled at build time
# by the tree's own qpu-as into $(BUILD)/libqpu/kernels/<name>.qasm.h (a C
# array <name>_code of little-endian 32-bit halves), which the host wrapper
# libqpu/kernels/<name>.c includes. The assembler used here is linked from
# libqpu's objects without the kernels, so the library never needs itself
# to be built. Included by libqpu.mk after LIBQPU_BASE_OBJS is set.

QPU_KERNEL_SRCS := $(addprefix libqpu/kernels/,launch.c launch_v3d.c cache.c vecadd.c \
	saxpy.c reduce.c gray.c threshold.c yuv.c sgemm.c sgemm_v3d.c window.c window_u8.c)
QPU_KERNEL_QASM := $(addprefix libqpu/kernels/,vecadd.qasm saxpy.qasm \
	reduce.qasm gray.qasm threshold.qasm yuv.qasm sgemm.qasm sgemm16x64.qasm \
	dwconv.qasm dwconv_u8.qasm pool.qasm)
QPU_KERNEL_HDRS := $(QPU_KERNEL_QASM:libqpu/kernels/%.qasm=$(BUILD)/libqpu/kernels/%.qasm.h)
# The V3D programs (libqpu/kernels/v3d/README.md): each source assembled
# for V3D 4.2 and 7.1 into <name>_v3d42_code and <name>_v3d71_code, with
# the generation's directory (gen42/, gen71/) on the include path; a
# source in that directory takes the place of the shared one.
QPU_KERNEL_V3D := vecadd saxpy threshold gray reduce yuv sgemm dwconv pool
QPU_KERNEL_V3D_HDRS := $(foreach g,42 71,$(QPU_KERNEL_V3D:%=$(BUILD)/libqpu/kernels/v3d/%_v3d$(g).qasm.h))
QPU_KERNEL_HDRS += $(QPU_KERNEL_V3D_HDRS)
QPU_V3D_INCLUDES := $(wildcard libqpu/kernels/v3d/*.qinc libqpu/kernels/v3d/gen*/*.qinc)
QPU_KERNEL_OBJS := $(QPU_KERNEL_SRCS:%.c=$(BUILD)/%.o)
# .include search path of the kernels: the helper files users include too.
QPU_QASM_INCLUDES := $(addprefix libqpu/qasm/,dma.qinc exit.qinc sync.qinc \
	unif.qinc vpm.qinc) libqpu/kernels/stream.qinc \
	libqpu/kernels/window.qinc
QPU_AS_BOOT := $(BUILD)/boot/qpu-as
# The compiler of the machine that runs the build. A cross build (CC names
# the target's compiler, as for the Debian packages of tools/debian) builds
# the bootstrap assembler from the sources with it, as an archive from
# which the link takes what qpu-as calls, since it runs here; the target's
# flags (CFLAGS, LDFLAGS) may not suit it.
CC_FOR_BUILD ?= $(CC)
CFLAGS_FOR_BUILD ?= -O2
AR_FOR_BUILD ?= ar

ifeq ($(CC_FOR_BUILD),$(CC))
$(QPU_AS_BOOT): tools/qpu-as.c $(LIBQPU_BASE_OBJS) $(QPU_TOOLS_A)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(TOOL_CFLAGS) -o $@ $^ $(LDFLAGS)
else
QPU_AS_BOOT_SRCS := $(LIBQPU_BASE_SRCS) $(wildcard tools/lib/*.c)
$(QPU_AS_BOOT): tools/qpu-as.c $(QPU_AS_BOOT_SRCS)
	$(Q)rm -rf $(BUILD)/boot/obj && mkdir -p $(BUILD)/boot/obj
	$(Q)cd $(BUILD)/boot/obj && $(CC_FOR_BUILD) $(QPU_CFLAGS) $(LIBQPU_OBJ_CFLAGS) \
		-I$(CURDIR)/tools/lib $(CFLAGS_FOR_BUILD) -c $(addprefix $(CURDIR)/,$(QPU_AS_BOOT_SRCS))
	$(Q)$(AR_FOR_BUILD) rcs $(BUILD)/boot/obj/boot.a $(BUILD)/boot/obj/*.o
	$(Q)$(CC_FOR_BUILD) $(QPU_CFLAGS) -I$(CURDIR)/tools/lib $(CFLAGS_FOR_BUILD) -o $@ $< \
		$(BUILD)/boot/obj/boot.a
endif

$(BUILD)/libqpu/kernels/%.qasm.h: libqpu/kernels/%.qasm $(QPU_AS_BOOT) $(QPU_QASM_INCLUDES)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(QPU_AS_BOOT) -Werror -I libqpu/qasm -I libqpu/kernels -f c \
		-n $(subst -,_,$*)_code -o $@ $<

# $(1): the generation (42, 71); $(2): the source's directory.
define QPU_KERNEL_V3D_RULE
$(BUILD)/libqpu/kernels/v3d/%_v3d$(1).qasm.h: libqpu/kernels/v3d/$(2)%.qasm $(QPU_AS_BOOT) $(QPU_V3D_INCLUDES)
	$$(Q)mkdir -p $$(dir $$@)
	$$(Q)$(QPU_AS_BOOT) -Werror -m v3d$(1) -I libqpu/kernels/v3d/gen$(1) -I libqpu/kernels/v3d \
		-f c -n $$*_v3d$(1)_code -o $$@ $$<
endef
$(foreach g,42 71,$(eval $(call QPU_KERNEL_V3D_RULE,$(g),gen$(g)/)))
$(foreach g,42 71,$(eval $(call QPU_KERNEL_V3D_RULE,$(g),)))

$(QPU_KERNEL_OBJS): QPU_CFLAGS += -I$(BUILD)/libqpu/kernels -Ilibqpu/kernels
$(QPU_KERNEL_OBJS): | $(QPU_KERNEL_HDRS)

# Post-processing (boxes.c, nms.c, ccl.c; <qpu_kernels.h>'s "DOC:
# post-processing"): the NMS matrix's program on both generations.
QPU_POSTPROC_SRCS := $(addprefix libqpu/kernels/,postproc.c boxes.c nms.c ccl.c)
QPU_POSTPROC_OBJS := $(QPU_POSTPROC_SRCS:%.c=$(BUILD)/%.o)
QPU_KERNEL_SRCS += $(QPU_POSTPROC_SRCS)
QPU_KERNEL_OBJS += $(QPU_POSTPROC_OBJS)
QPU_KERNEL_QASM += libqpu/kernels/nms.qasm
QPU_KERNEL_V3D += nms
QPU_KERNEL_HDRS += $(BUILD)/libqpu/kernels/nms.qasm.h \
	$(foreach g,42 71,$(BUILD)/libqpu/kernels/v3d/nms_v3d$(g).qasm.h)
$(QPU_POSTPROC_OBJS): QPU_CFLAGS += -I$(BUILD)/libqpu/kernels -Ilibqpu/kernels
$(QPU_POSTPROC_OBJS): | $(QPU_KERNEL_HDRS)
# Fused pre-processing (qpu_preprocess()): the wrapper, the checks and plan
# it shares with the CPU reference, which must not fuse a multiply and an
# add the QPUs round apart; one program a generation (preproc.qasm,
# v3d/preproc.qasm).
PREPROC_OBJS := $(addprefix $(BUILD)/libqpu/kernels/,preproc.o preproc_plan.o preproc_cpu.o)
PREPROC_HDRS := $(BUILD)/libqpu/kernels/preproc.qasm.h \
	$(foreach g,42 71,$(BUILD)/libqpu/kernels/v3d/preproc_v3d$(g).qasm.h)
QPU_KERNEL_SRCS += $(PREPROC_OBJS:$(BUILD)/%.o=%.c)
QPU_KERNEL_OBJS += $(PREPROC_OBJS)
QPU_KERNEL_HDRS += $(PREPROC_HDRS)
$(PREPROC_OBJS): QPU_CFLAGS += -I$(BUILD)/libqpu/kernels -Ilibqpu/kernels
$(PREPROC_OBJS): | $(PREPROC_HDRS)
$(BUILD)/libqpu/kernels/preproc_cpu.o: QPU_CFLAGS += -ffp-contract=off

# libqpu/nn's integer product (igemm.c, nn_kernels.h) on both generations.
QPU_IGEMM_OBJS := $(BUILD)/libqpu/kernels/igemm.o
QPU_KERNEL_SRCS += libqpu/kernels/igemm.c
QPU_KERNEL_OBJS += $(QPU_IGEMM_OBJS)
QPU_KERNEL_QASM += libqpu/kernels/igemm.qasm
QPU_KERNEL_V3D += igemm
QPU_KERNEL_HDRS += $(BUILD)/libqpu/kernels/igemm.qasm.h \
	$(foreach g,42 71,$(BUILD)/libqpu/kernels/v3d/igemm_v3d$(g).qasm.h)
$(QPU_IGEMM_OBJS): QPU_CFLAGS += -I$(BUILD)/libqpu/kernels -Ilibqpu/kernels
$(QPU_IGEMM_OBJS): | $(QPU_KERNEL_HDRS)

# libqpu/nn's INT8 depthwise convolution on V3D 4.2 and 7.1
# (dwconv_u8_v3d.c, v3d/dwconv_u8.qasm; nn_kernels.h).
QPU_DWU8_V3D_OBJS := $(BUILD)/libqpu/kernels/dwconv_u8_v3d.o
QPU_KERNEL_SRCS += libqpu/kernels/dwconv_u8_v3d.c
QPU_KERNEL_OBJS += $(QPU_DWU8_V3D_OBJS)
QPU_KERNEL_V3D += dwconv_u8
QPU_KERNEL_HDRS += $(foreach g,42 71,$(BUILD)/libqpu/kernels/v3d/dwconv_u8_v3d$(g).qasm.h)
$(QPU_DWU8_V3D_OBJS): QPU_CFLAGS += -I$(BUILD)/libqpu/kernels -Ilibqpu/kernels
$(QPU_DWU8_V3D_OBJS): | $(QPU_KERNEL_HDRS)
