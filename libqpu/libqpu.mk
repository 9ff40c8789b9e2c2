# SPDX-License-Identifier: GPL-2.0
# libqpu: static and shared library from the layers' sources listed below
# and the freestanding core (QPU_CORE_SRCS: libqpu/core/sources.mk, which
# the Makefile includes). The layers point down: toolkit -> asm -> emit ->
# core, hazard -> core, runtime -> toolkit -> core (libqpu/README.md); nn/
# (nn.mk) -> kernels -> runtime; pipeline/ (pipeline.mk) -> nn, kernels.

# The release is the newest symbol version node of libqpu.map (libqpu/README.md,
# "How the API grows"): LIBQPU_0.7 is 0.7.0. The Python package says the same
# (pyproject.toml, qpu/__init__.py); test_device.py's test_version checks it.
LIBQPU_VERSION := $(shell sed -n 's/^LIBQPU_\([0-9]*\.[0-9]*\) {.*/\1.0/p' libqpu/libqpu.map | tail -n 1)
LIBQPU_SONAME := libqpu.so.0
# The base (device API, assembler, core) and the sample kernels, which the
# base's assembler builds: see libqpu/kernels/kernels.mk.
LIBQPU_RUNTIME_SRCS := $(addprefix libqpu/runtime/,error.c device.c dev_words.c bo.c \
	job.c kdev.c kdev_ioctl.c drm.c v3ddev.c emudev.c emudev_vc4.c emudev_v3d.c \
	fwprop.c telemetry.c)
LIBQPU_ASM_SRCS := $(addprefix libqpu/asm/,asm.c asm_lex.c asm_expr.c \
	asm_directive.c asm_macro.c asm_instr.c asm_v3d.c asm_include_path.c)
LIBQPU_EMIT_SRCS := $(addprefix libqpu/emit/,instr_build.c instr_build_v3d.c \
	emit_prog.c emit.c emit_v3d.c)
LIBQPU_HAZARD_SRCS := $(addprefix libqpu/hazard/,hazard.c hazard_v3d.c)
LIBQPU_TOOLKIT_SRCS := $(addprefix libqpu/toolkit/,gen.c dis.c dis_v3d.c \
	emulator.c timing.c)
LIBQPU_BASE_SRCS := $(LIBQPU_RUNTIME_SRCS) $(LIBQPU_ASM_SRCS) \
	$(LIBQPU_EMIT_SRCS) $(LIBQPU_HAZARD_SRCS) $(LIBQPU_TOOLKIT_SRCS) \
	$(QPU_CORE_SRCS)
LIBQPU_BASE_OBJS := $(LIBQPU_BASE_SRCS:%.c=$(BUILD)/%.o)
include libqpu/kernels/kernels.mk
include libqpu/nn/nn.mk
include libqpu/pipeline/pipeline.mk
include libqpu/capture/capture.mk
LIBQPU_SRCS := $(LIBQPU_BASE_SRCS) $(QPU_KERNEL_SRCS) $(QPU_NN_SRCS) \
	$(QPU_PIPELINE_SRCS) $(QPU_CAPTURE_SRCS)
LIBQPU_OBJS := $(LIBQPU_SRCS:%.c=$(BUILD)/%.o)
LIBQPU_A := $(BUILD)/libqpu.a
# What libqpu itself links with (libqpu/nn: libm; dlopen() of XNNPACK is in
# glibc's libc since 2.34, in libdl before).
LIBQPU_LIBS := -lm -ldl
LIBQPU_SO := $(BUILD)/$(LIBQPU_SONAME)

lib: $(LIBQPU_A) $(LIBQPU_SO) $(BUILD)/libqpu-uninstalled.pc

# libdrm's headers (libdrm-dev, tools/deps.sh build), for runtime/drm.c,
# which loads the library when it runs, so that nothing links it. A cross
# build takes the build machine's: drm.c uses their types, the same on
# every target.
PKG_CONFIG ?= pkg-config
LIBQPU_DRM_CFLAGS := $(shell $(PKG_CONFIG) --cflags libdrm 2>/dev/null || echo -I/usr/include/libdrm)
# The upstream v3d driver's uapi, <drm/v3d_drm.h> (and the drm.h beside it),
# for runtime/v3ddev.c and the tests of the simulated v3d node: the
# installed kernel headers' uapi (linux-headers-amd64, tools/deps.sh
# build), copied into $(V3D_UAPI) without the kernel's __user/__force
# annotations, as headers_install does. Debian's libdrm-dev lacks it, and
# it is never committed. A cross build's sysroot has its own; without
# either, v3ddev.c leaves the backend out.
V3D_UAPI_DIR ?= $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1.*-common/include/uapi/drm)))
V3D_UAPI := $(BUILD)/v3d-uapi
V3D_UAPI_HEADERS := drm.h drm_mode.h v3d_drm.h

$(V3D_UAPI)/drm/.stamp:
	$(Q)mkdir -p $(@D)
	$(Q)if [ -n "$(V3D_UAPI_DIR)" ] && [ -r "$(V3D_UAPI_DIR)/v3d_drm.h" ]; then \
		for h in $(V3D_UAPI_HEADERS); do \
			sed -e 's/\b__user\b//g' -e 's/\b__force\b//g' $(V3D_UAPI_DIR)/$$h > $(@D)/$$h || exit 1; \
		done; \
	else echo "no kernel uapi v3d_drm.h: libqpu without its v3d backend (install linux-headers-amd64: 'make deps')" >&2; fi
	$(Q)touch $@

# What every libqpu object is compiled with (also for the Pi's cross-built
# tests, selftests/pi/pi.mk), besides ALL_CFLAGS. Private headers are
# included by their folder ("emit/instr_build.h").
LIBQPU_OBJ_CFLAGS := -fPIC -fvisibility=hidden -DLIBQPU_VERSION='"$(LIBQPU_VERSION)"' \
	-I$(CURDIR)/libqpu $(LIBQPU_DRM_CFLAGS) -I$(V3D_UAPI)

$(BUILD)/libqpu/%.o: libqpu/%.c $(BUILD)/vars/ALL_CFLAGS $(BUILD)/vars/LIBQPU_OBJ_CFLAGS
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LIBQPU_OBJ_CFLAGS) $(LIBQPU_FILE_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/libqpu/runtime/v3ddev.o $(BUILD)/libqpu/runtime/v3ddev.static.o: | $(V3D_UAPI)/drm/.stamp

# The assembler's last include directory is where install-user puts
# libqpu/qasm (QASMDIR, the Makefile's install section).
$(BUILD)/libqpu/asm/asm_include_path.o: $(BUILD)/vars/QASMDIR
$(BUILD)/libqpu/asm/asm_include_path.o: LIBQPU_FILE_CFLAGS = -DQPU_QASMDIR='"$(QASMDIR)"'

# Files with versioned entry points (QPU_SYMVER_*, runtime/runtime.h) are built
# again for the static archive, without the versions, which only the shared
# library's map defines: libqpu.a then links into shared objects too.
LIBQPU_SYMVER_SRCS := $(shell grep -l 'QPU_SYMVER_[DO]' $(LIBQPU_SRCS))
LIBQPU_STATIC_OBJS := $(foreach o,$(LIBQPU_OBJS),$(if $(filter \
	$(LIBQPU_SYMVER_SRCS:%.c=$(BUILD)/%.o),$(o)),$(o:.o=.static.o),$(o)))

$(BUILD)/libqpu/%.static.o: libqpu/%.c $(BUILD)/vars/ALL_CFLAGS $(BUILD)/vars/LIBQPU_OBJ_CFLAGS
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LIBQPU_OBJ_CFLAGS) -DQPU_STATIC_ARCHIVE -MMD -MP -c -o $@ $<

$(LIBQPU_A): $(LIBQPU_STATIC_OBJS)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(LIBQPU_SO): $(LIBQPU_OBJS) libqpu/libqpu.map
	$(Q)$(CC) -shared -Wl,-soname,$(LIBQPU_SONAME) \
		-Wl,--version-script=libqpu/libqpu.map $(LDFLAGS) -o $@ $(LIBQPU_OBJS) $(LIBQPU_LIBS)
	$(Q)ln -sf $(LIBQPU_SONAME) $(BUILD)/libqpu.so
	$(Q)mkdir -p $(BUILD)/lib && ln -sf ../$(LIBQPU_SONAME) $(BUILD)/lib/$(LIBQPU_SONAME)

-include $(LIBQPU_OBJS:.o=.d) $(LIBQPU_SYMVER_SRCS:%.c=$(BUILD)/%.static.d)

# libdir is written relative to ${prefix} when LIBDIR is under PREFIX
# (Debian's /usr/lib/<triplet> is: ${prefix}/lib/x86_64-linux-gnu).
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
$(BUILD)/libqpu.pc: libqpu/libqpu.pc.in $(BUILD)/vars/PREFIX $(BUILD)/vars/LIBDIR $(BUILD)/vars/LIBQPU_VERSION
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' \
		-e 's|@VERSION@|$(LIBQPU_VERSION)|' $< > $@

# The build tree's own: PKG_CONFIG_PATH=$(BUILD) finds it before any installed libqpu.pc.
$(BUILD)/libqpu-uninstalled.pc: libqpu/libqpu-uninstalled.pc.in $(BUILD)/vars/LIBQPU_VERSION $(BUILD)/vars/BUILD
	$(Q)sed -e 's|@SRCDIR@|$(CURDIR)|' -e 's|@BUILDDIR@|$(BUILD)|' \
		-e 's|@VERSION@|$(LIBQPU_VERSION)|' $< > $@
