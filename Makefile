# SPDX-License-Identifier: GPL-2.0
#
# qpu: the one entry point. `make help` lists the targets.
#
# Userspace objects go to $(BUILD); the kernel module is built per kernel
# ("flavour") in $(BUILD)/mod/<flavour>, a tree of symlinks to the sources, so
# builds for the host, the VM and the Pi kernels never overwrite each other and
# the source tree stays clean.

BUILD ?= $(CURDIR)/build

# Build on every CPU unless the caller chose a job count (make -j1, -j4):
# `make check` and `make demo` are what a newcomer types, without -j, and
# compiling the library five ways (host, ASan, reference, 32-bit, fuzzing)
# one file at a time was most of check's wall time on two cores. Only the
# top-level make decides: sub-makes share its jobserver (they see no -j at
# parse time, and forcing one would reset it); test runners keep their own
# TEST_JOBS.
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
endif
# What is made once per machine and kept across clean builds and clones
# (the kselftest headers, the Pi's kernels and images, the debug kernel).
QPU_CACHE ?= $(if $(HOME),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/qpu,$(BUILD)/cache)
PREFIX ?= /usr/local
DESTDIR ?=
V ?= 0
# The tools' shared code (tools/tools.mk), which the bootstrap assembler of
# libqpu/kernels/kernels.mk links too.
QPU_TOOLS_A := $(BUILD)/tools/libqpu-tools.a

# The kernel to build qpu.ko against: the running kernel's build directory
# when it exists, else Debian's newest installed 6.1 amd64 headers.
KVER ?= $(shell uname -r)
DEBIAN_KDIR := $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1.*-amd64)))
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER)/build) $(DEBIAN_KDIR))

CC ?= cc
AR ?= ar
CFLAGS ?= -O2 -g
# 64-bit file offsets everywhere: a 32-bit userspace (Raspberry Pi OS
# armhf) maps qpu.ko's buffers at offsets past 4 GiB (check-m32).
QPU_WARN_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64
# $(call qpu_cc_flag,COMPILER,FLAG): FLAG if COMPILER takes it.
qpu_cc_flag = $(shell $(1) -Werror $(2) -E -x c /dev/null >/dev/null 2>&1 && echo $(2))
# C's float rounding on 32-bit x86 too: a float assignment or cast drops
# the x87's excess precision, so nn's scales compare and multiply as on
# every other target (GCC's gnu11 default keeps it; clang has no x87 excess
# precision to drop and refuses the flag: a build with another compiler
# than $(CC) asks again, as check-fuzz's clang does).
QPU_EXCESS_PRECISION := $(call qpu_cc_flag,$(CC),-fexcess-precision=standard)
QPU_WARN_CFLAGS += $(QPU_EXCESS_PRECISION)
ifeq ($(SANITIZE),1)
QPU_WARN_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif
# check-reference: every emulator starts with predecoding (and the fast
# paths it enables) off.
ifeq ($(EMU_REFERENCE),1)
QPU_WARN_CFLAGS += -DQPU_EMU_REFERENCE_PATH
endif
# The library and its tests see the core's private headers; the tools see
# only what `make install` installs (TOOL_CFLAGS, tools/tools.mk).
include libqpu/core/sources.mk
QPU_CORE_CFLAGS := $(QPU_CORE_INCLUDES:%=-I$(CURDIR)/%)
QPU_CFLAGS := $(QPU_WARN_CFLAGS) \
	-I$(CURDIR)/uapi -I$(CURDIR)/libqpu/include $(QPU_CORE_CFLAGS)
ALL_CFLAGS = $(QPU_CFLAGS) $(CFLAGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: all module lib tools selftests check check-host check-asan check-reference check-m32 check-vm \
	check-pi check-install check-python check-stress check-debug check-fuzz check-thirdparty calibrate-timing \
	lint demo demo-here demo-vm bench cross install install-user clean deps help
.DEFAULT_GOAL := all

help:
	@echo 'Targets:'
	@echo '  all        qpu.ko (host kernel), libqpu, tools, selftests'
	@echo '  check      everything below: lint, host tests, ASan tests, VM, Pi'
	@echo '  check-host library and tool tests on this machine'
	@echo '  check-python the Python package tests on the emulator (and in check-vm)'
	@echo '  check-asan the same under AddressSanitizer and UBSan'
	@echo '  check-reference the same with the emulator'"'"'s fast paths off'
	@echo '  check-fuzz the assembler, disassembler and emulator fuzzers (FUZZ_TIME=20 s each)'
	@echo '  check-fuzz-long  the same fuzzers for 10 minutes each (opt-in)'
	@echo '  check-vm   qpu.ko selftests in a QEMU VM (simulated V3D)'
	@echo '  check-stress the fuzzer and the stress test in the VM (seeded, bounded)'
	@echo '  check-debug  every kselftest, fuzz, stress and fault injection on a'
	@echo '             KASAN/lockdep/kmemleak kernel (built once, ~35 min, cached)'
	@echo '  check-pi   cross builds, raspi0 boots, the kselftests on the 32-bit rpi kernel'
	@echo '  lint       checkpatch --strict, sparse, kernel-doc'
	@echo '  demo       the demo in the VM (or on a Pi with qpu.ko loaded)'
	@echo '  bench      benchmarks'
	@echo '  cross      qpu.ko for the Raspberry Pi (armel rpi) and arm64 kernels'
	@echo '  install    module, library, headers, pkg-config file, tools, man pages'
	@echo '  install-user  the same without the module and the udev rule'
	@echo '  deb        Debian packages for amd64, arm64 and armhf (build/deb/<arch>)'
	@echo '  check-deb  builds them, lintian, installs and removes the amd64 ones (opt-in)'
	@echo '  check-thirdparty GPU_FFT_SRC=DIR QPULIB_SRC=DIR  GPU_FFT 3.0, QPULib against libqpu-mailbox (opt-in)'
	@echo '  check-thirdparty PYVIDEOCORE_SRC=DIR  PyVideoCore through qpu.pyvideocore (opt-in)'
	@echo '  calibrate-timing GPU_FFT_SRC=DIR  the timing model against GPU_FFT'"'"'s Pi 1 times'
	@echo '  dtbo       the qpu-v3d device-tree overlay (build/dts/qpu-v3d.dtbo)'
	@echo '  install-pi overlay, modules-load.d and modprobe.d files (after install)'
	@echo '  dkms-src   module sources and dkms.conf in /usr/src/qpu-<version>'
	@echo '  deps       install the Debian packages the targets need'
	@echo 'Variables: KDIR=<kernel build dir> BUILD=<dir> PREFIX DESTDIR V=1'

deps:
	$(Q)$(CURDIR)/tools/deps.sh all

# --- the kernel module ------------------------------------------------------

# $(call kmod_build,flavour,kernel dir,extra make arguments[,Kbuild file])
# The Kbuild file (default the top one, qpu.ko's) becomes the tree's top
# Kbuild: kmod/v3d_sim/Kbuild builds v3d_sim.ko from the same sources.
define kmod_build
	$(Q)test -n "$(2)" -a -d "$(2)" || \
		{ echo "no kernel build directory for '$(1)' (KDIR='$(2)'): run 'make deps'" >&2; exit 1; }
	$(Q)mkdir -p $(BUILD)/mod/$(1)
	$(Q)cd $(BUILD)/mod/$(1) && cp -rsf $(CURDIR)/$(or $(4),Kbuild) $(CURDIR)/kmod \
		$(CURDIR)/libqpu $(CURDIR)/uapi .
	+$(Q)$(MAKE) -C $(2) M=$(BUILD)/mod/$(1) W=1 $(3) modules
endef

module:
	$(call kmod_build,host,$(KDIR))
	$(Q)cp $(BUILD)/mod/host/qpu.ko $(BUILD)/qpu.ko

# --- static checks of the kernel side ---------------------------------------

# checkpatch.pl and its data files come from Debian's linux-source-6.1 (the
# headers package lacks them); extracted once, never committed.
LINUX_SOURCE_TAR ?= $(lastword $(sort $(wildcard /usr/src/linux-source-6.1*.tar.xz)))
LINUX_SCRIPTS := $(BUILD)/linux-scripts
# The core includes the freestanding public headers qpu_gen.h and
# qpu_v3d_fields.h, so they are kernel style too.
KERNEL_STYLE_FILES := $(sort $(wildcard kmod/*.[ch] kmod/v3d_sim/*.[ch] libqpu/core/*.[ch] \
	libqpu/core/*/*.[ch])) uapi/linux/qpu.h libqpu/include/qpu_gen.h \
	libqpu/include/qpu_v3d_fields.h

$(LINUX_SCRIPTS)/.stamp:
	$(Q)test -f "$(LINUX_SOURCE_TAR)" || \
		{ echo "linux-source-6.1 is missing: run 'make deps'" >&2; exit 1; }
	$(Q)mkdir -p $(LINUX_SCRIPTS)
	$(Q)tar -xJf $(LINUX_SOURCE_TAR) -C $(LINUX_SCRIPTS) --strip-components=2 \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' '*/scripts/kernel-doc'
	$(Q)touch $@

LINT_CHECKS := lint-checkpatch lint-kernel-doc lint-sparse lint-layers lint-module-core
.PHONY: $(LINT_CHECKS)

lint:
	$(Q)MAKE="$(MAKE)" $(CURDIR)/selftests/lint.sh $(LINT_CHECKS)

# checkpatch is one single-threaded Perl process per call and most of lint's
# time: a few files per process, one process per CPU.
lint-checkpatch: $(LINUX_SCRIPTS)/.stamp
	$(Q)printf '%s\n' $(KERNEL_STYLE_FILES) | \
		xargs -P "$$(getconf _NPROCESSORS_ONLN)" -n 8 \
		$(LINUX_SCRIPTS)/checkpatch.pl --strict --no-tree --quiet -f

lint-kernel-doc: $(LINUX_SCRIPTS)/.stamp
	$(Q)$(LINUX_SCRIPTS)/kernel-doc -none -Werror uapi/linux/qpu.h kmod/*.h kmod/*.c \
		kmod/v3d_sim/*.h kmod/v3d_sim/*.c

# The layers of kmod/ that a compiler cannot see: the generic files (all but
# the backends, qpu_hw.c, qpu_sim*.c and qpu_cma.c, and the glue that makes
# a device of a kind and names it, qpu_drv.c and qpu_dev.c) reach the V3D
# through the backend's ops and never ask which backend they drive;
# netlink reads the scheduler through qpu_sched.c's accessors only.
KMOD_GENERIC_FILES := $(filter-out kmod/qpu_hw.c kmod/qpu_sim%.c kmod/qpu_cma.c \
	kmod/qpu_drv.c kmod/qpu_dev.c,$(wildcard kmod/*.c))
lint-layers:
	$(Q)! grep -nE 'qdev->(sim|regs|hw)\b|QPU_BACKEND_|qpu_sim_|qpu_hw_' $(KMOD_GENERIC_FILES) || \
		{ echo 'backend-specific code in a generic file; use struct qpu_backend_ops' >&2; exit 1; }
	$(Q)! grep -nE '(->|\.)sched\b|struct qpu_sched\b' kmod/qpu_nl.c || \
		{ echo 'kmod/qpu_nl.c: reaches into the scheduler; use qpu_sched.c accessors' >&2; exit 1; }

# qpu.ko links only the core it runs (selftests/check-module-core.sh).
lint-module-core: module $(QPU_CORE_TOOL_SRCS:%.c=$(BUILD)/%.o)
	$(Q)sh selftests/check-module-core.sh $(BUILD)/mod/host $(BUILD) -- \
		$(QPU_CORE_RUN_SRCS) -- $(QPU_CORE_TOOL_SRCS)

lint-sparse:
	$(call kmod_build,sparse,$(KDIR),C=2 CF=-Wsparse-error) > $(BUILD)/sparse.log 2>&1 || \
		{ cat $(BUILD)/sparse.log; exit 1; }
	$(call kmod_build,v3dsim-sparse,$(KDIR),C=2 CF=-Wsparse-error,kmod/v3d_sim/Kbuild) \
		>> $(BUILD)/sparse.log 2>&1 || { cat $(BUILD)/sparse.log; exit 1; }
	$(Q)! grep -E 'warning:|error:' $(BUILD)/sparse.log || \
		{ echo 'sparse is not clean' >&2; exit 1; }

# $(BUILD)/vars/NAME holds the value of the variable NAME and is rewritten
# only when that value changes. A file made from a variable lists its file
# among its prerequisites, so it follows the variable: `make install
# PREFIX=/usr` and then `make check` (PREFIX=/usr/local) regenerate
# libqpu.pc, and objects are rebuilt when their flags change.
.PHONY: FORCE
.PRECIOUS: $(BUILD)/vars/%
$(BUILD)/vars/%: FORCE
	$(Q)mkdir -p $(@D); v='$(subst ','\'',$($*))'; \
	[ -f $@ ] && [ "$$(cat $@)" = "$$v" ] || printf '%s\n' "$$v" > $@

include libqpu/libqpu.mk
include libqpu/compat/compat.mk
include libqpu/python/python.mk
include libqpu/examples/examples.mk
include tools/tools.mk
include selftests/selftests.mk
include tools/debian/deb.mk

# Without a kernel build directory, or without the kernel source tarball
# the kselftests take their harness from, `make` builds the userspace parts
# and says what it left out (the targets themselves, `make module` and
# `make selftests`, still fail and say why).
ALL_PARTS := lib tools
ALL_SKIPPED :=
ifneq ($(wildcard $(KDIR)/Makefile),)
ALL_PARTS += module
else
ALL_SKIPPED += 'qpu.ko: no kernel build directory for $(KVER) (install its headers, or set KDIR)'
endif
ifneq ($(KSFT_TARBALL),)
ALL_PARTS += selftests
else
ALL_SKIPPED += 'the kselftests: no /usr/src/linux-source-6.1.tar.xz (package linux-source-6.1)'
endif

all: $(ALL_PARTS)
	$(Q)for s in $(ALL_SKIPPED); do echo "make: skipped $$s; make deps installs what is missing" >&2; done

# Each suite prints its own closing line; check.sh adds them up at the end.
# check-vm and check-pi each wait on one emulated CPU most of the time:
# check.sh runs them side by side ("a+b"), their builds first.
CHECK_SUITES := lint check-host check-python check-asan check-reference check-m32 check-fuzz \
	check-install check-vm+check-pi check-stress

# check-debug is not among them: its kernel takes ~35 minutes to build cold.
check:
	$(Q)$(CURDIR)/tools/deps.sh build lint vm pi python netlink man m32 xnnpack fleet
	$(Q)BUILD=$(BUILD) MAKE="$(MAKE)" $(CURDIR)/selftests/check.sh $(CHECK_SUITES)

# --- the demo ---------------------------------------------------------------

# Where qpu.ko is loaded (a Pi, or a machine where someone loaded it), the
# demo runs on that device; anywhere else it boots the VM with the simulated
# V3D and runs there: what the device reports, then qpu-demo, which runs
# every sample kernel of libqpu through /dev/qpu, checks each result against
# the CPU and prints one table (kernel, size, result, QPU instructions,
# time); it fails if any kernel does.
DEMO_TOOLS := qpu-info qpu-demo
# The V3D generation (Pi 4 and 5) runs on the simulated v3d node (kmod/
# v3d_sim, loaded beside qpu.ko with a Pi 4's V3D 4.2 and a Pi 5's 7.1)
# through libqpu's v3d backend, each node's table modelled on a Pi 4 and a
# Pi 5. Where qpu.ko is loaded, a v3d node of the machine's own if it has
# one, else the in-process emulator of a Pi 4.
DEMO_STEPS := --run qpu-info --run "qpu-demo --device /dev/qpu" \
	$(foreach g,v3d42 v3d71,--run "qpu-info --device v3d:$(g)" --run "qpu-demo --device v3d:$(g)")

demo:
	$(Q)$(CURDIR)/tools/deps.sh build vm
	$(Q)if [ -d /sys/module/qpu ] && [ -c /dev/qpu ]; then \
		$(MAKE) --no-print-directory demo-here; \
	else \
		$(MAKE) --no-print-directory demo-vm; \
	fi

demo-here: $(BUILD)/tools/qpu-info $(BUILD)/tools/qpu-demo
	$(Q)echo '=== demo on this machine: /dev/qpu'
	$(Q)$(BUILD)/tools/qpu-info
	$(Q)$(BUILD)/tools/qpu-demo --device /dev/qpu
	$(Q)if $(BUILD)/tools/qpu-info --device v3d >/dev/null 2>&1; then \
		echo '=== V3D (Pi 4 and 5): the first v3d node'; \
		$(BUILD)/tools/qpu-demo --device v3d; \
	else \
		echo '=== V3D (Pi 4 and 5) on the in-process emulator'; \
		$(BUILD)/tools/qpu-demo --device emu:v3d42; \
	fi

demo-vm: vm-module v3dsim-vm-module $(DEMO_TOOLS:%=$(BUILD)/static/%)
	$(Q)echo '=== demo in a VM: qpu.ko with one simulated V3D (VideoCore IV), v3d_sim with a Pi 4 and a Pi 5 node'
	$(call vm_run,demo,--module $(V3DSIM_VM_MODULE) --module-args "$(V3DSIM_MODULE_ARGS)" \
		$(DEMO_TOOLS:%=--copy $(BUILD)/static/%) $(DEMO_STEPS))

# --- install ----------------------------------------------------------------

LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
# The QPU assembler's include files (qpu-as -I $(QASMDIR)).
QASMDIR ?= $(PREFIX)/share/qpu/qasm
UDEVRULESDIR ?= /etc/udev/rules.d
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
KRELEASE = $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
MODDIR = /lib/modules/$(KRELEASE)/updates

# install-user is everything but the module: what the Debian packages of
# tools/debian take (libqpu0, libqpu-mailbox0, libqpu-dev, qpu-tools).
install: all install-user
	$(Q)test -n "$(KRELEASE)" || { echo "cannot tell the kernel release of KDIR='$(KDIR)'" >&2; exit 1; }
	install -D -m 644 $(BUILD)/qpu.ko $(DESTDIR)$(MODDIR)/qpu.ko
	install -D -m 644 kmod/60-qpu.rules $(DESTDIR)$(UDEVRULESDIR)/60-qpu.rules
	$(Q)if [ -z "$(DESTDIR)" ]; then depmod -a $(KRELEASE); fi

# The man pages: tools/man (section 1; 7, the tools' command-line
# convention), tools/qpuctl (8), libqpu/man (3, one page per function or
# family, .so links for the family's members; 7, the overview). selftests/lib/test-man.sh checks them.
MAN1_PAGES := $(wildcard tools/man/*.1)
MAN3_PAGES := $(wildcard libqpu/man/*.3)
MAN7_PAGES := $(wildcard libqpu/man/*.7 tools/man/*.7)

install-user: lib tools $(BUILD)/libqpu.pc $(BUILD)/qpu-mailbox.pc
	install -D -m 644 uapi/linux/qpu.h $(DESTDIR)$(INCLUDEDIR)/linux/qpu.h
	install -D -m 644 libqpu/include/qpu.h $(DESTDIR)$(INCLUDEDIR)/qpu.h
	install -D -m 644 libqpu/include/qpu_gen.h $(DESTDIR)$(INCLUDEDIR)/qpu_gen.h
	install -D -m 644 libqpu/include/qpu_kernels.h $(DESTDIR)$(INCLUDEDIR)/qpu_kernels.h
	install -D -m 644 libqpu/include/qpu_capture.h $(DESTDIR)$(INCLUDEDIR)/qpu_capture.h
	install -D -m 644 -t $(DESTDIR)$(QASMDIR) libqpu/qasm/*.qinc
	install -D -m 644 libqpu/include/qpu_emit.h $(DESTDIR)$(INCLUDEDIR)/qpu_emit.h
	install -D -m 644 libqpu/include/qpu_v3d_fields.h $(DESTDIR)$(INCLUDEDIR)/qpu_v3d_fields.h
	install -D -m 644 libqpu/include/qpu_emit_v3d.h $(DESTDIR)$(INCLUDEDIR)/qpu_emit_v3d.h
	install -D -m 644 libqpu/include/qpu_hazard.h $(DESTDIR)$(INCLUDEDIR)/qpu_hazard.h
	install -D -m 644 libqpu/include/qpu_hazard_v3d.h $(DESTDIR)$(INCLUDEDIR)/qpu_hazard_v3d.h
	install -D -m 644 libqpu/include/qpu_asm.h $(DESTDIR)$(INCLUDEDIR)/qpu_asm.h
	install -D -m 644 libqpu/include/qpu_dis.h $(DESTDIR)$(INCLUDEDIR)/qpu_dis.h
	install -D -m 644 libqpu/include/qpu_emulator.h $(DESTDIR)$(INCLUDEDIR)/qpu_emulator.h
	install -D -m 644 libqpu/include/qpu_nn.h $(DESTDIR)$(INCLUDEDIR)/qpu_nn.h
	install -D -m 644 libqpu/include/qpu_pipeline.h $(DESTDIR)$(INCLUDEDIR)/qpu_pipeline.h
	install -D -m 644 $(LIBQPU_A) $(DESTDIR)$(LIBDIR)/libqpu.a
	install -D -m 755 $(LIBQPU_SO) $(DESTDIR)$(LIBDIR)/$(LIBQPU_SONAME)
	ln -sf $(LIBQPU_SONAME) $(DESTDIR)$(LIBDIR)/libqpu.so
	install -D -m 644 $(BUILD)/libqpu.pc $(DESTDIR)$(LIBDIR)/pkgconfig/libqpu.pc
	install -D -m 644 libqpu/include/qpu_mailbox.h $(DESTDIR)$(INCLUDEDIR)/qpu_mailbox.h
	install -D -m 644 $(MAILBOX_A) $(DESTDIR)$(LIBDIR)/libqpu-mailbox.a
	install -D -m 755 $(MAILBOX_SO) $(DESTDIR)$(LIBDIR)/$(MAILBOX_SONAME)
	ln -sf $(MAILBOX_SONAME) $(DESTDIR)$(LIBDIR)/libqpu-mailbox.so
	install -D -m 644 $(BUILD)/qpu-mailbox.pc $(DESTDIR)$(LIBDIR)/pkgconfig/qpu-mailbox.pc
	install -D -m 755 -t $(DESTDIR)$(BINDIR) $(TOOLS)
	install -D -m 644 -t $(DESTDIR)$(MANDIR)/man1 $(MAN1_PAGES)
	install -D -m 644 -t $(DESTDIR)$(MANDIR)/man3 $(MAN3_PAGES)
	install -D -m 644 -t $(DESTDIR)$(MANDIR)/man7 $(MAN7_PAGES)
	install -D -m 644 tools/qpuctl/qpuctl.8 $(DESTDIR)$(MANDIR)/man8/qpuctl.8
	install -D -m 644 tools/qpuctl/qpuctl.bash-completion $(DESTDIR)$(BASHCOMPDIR)/qpuctl
	$(Q)if [ -z "$(DESTDIR)" ]; then ldconfig; fi

# Opt-in, outside make check: GPU_FFT release 3.0 from GPU_FFT_SRC=DIR (its
# hello_fft directory) and QPULib from QPULIB_SRC=DIR against the installed
# libqpu-mailbox, on the emulator and in the VM, and PyVideoCore from
# PYVIDEOCORE_SRC=DIR through qpu.pyvideocore (nothing is fetched). Each is
# skipped without its variable.
check-thirdparty:
	$(Q)GPU_FFT_SRC="$(GPU_FFT_SRC)" QPULIB_SRC="$(QPULIB_SRC)" MAKE="$(MAKE)" \
		BUILD="$(BUILD)" VM_KERNEL="$(VM_KERNEL)" VM_MODULE="$(VM_MODULE)" \
		$(CURDIR)/selftests/thirdparty/run.sh
	$(Q)PYVIDEOCORE_SRC="$(PYVIDEOCORE_SRC)" MAKE="$(MAKE)" BUILD="$(BUILD)" PYTHON="$(PYTHON)" \
		$(CURDIR)/selftests/thirdparty/pyvideocore.sh

# The timing model's calibration against GPU_FFT's published Pi 1 times
# (libqpu/core/timing/CALIBRATION.md), from GPU_FFT_SRC=DIR; opt-in.
calibrate-timing:
	$(Q)GPU_FFT_SRC="$(GPU_FFT_SRC)" MAKE="$(MAKE)" BUILD="$(BUILD)" \
		$(CURDIR)/selftests/thirdparty/calibrate.sh

# A newcomer's install tree must be usable: build a program against it.
check-install:
	$(Q)$(CURDIR)/selftests/install_test.sh

clean:
	rm -rf $(BUILD)

# `make build/tools/qpu-dis` names a file of $(BUILD) by a relative path,
# while every rule names it absolutely: without this alias make calls an
# existing file up to date even after its sources changed.
ifeq ($(BUILD),$(CURDIR)/build)
build/%: $(BUILD)/% ;
endif
