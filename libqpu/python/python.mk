# SPDX-License-Identifier: MIT
# The Python package (libqpu/python): its test suite on the emulator
# (check-python), in the VM on /dev/qpu (a check-vm step), its wheel and
# sdist (python-dist), and its install beside libqpu (install-python).

# Debian's interpreter, the one deps.sh installs numpy and pytest for (a
# python3 earlier on PATH, such as pyenv's, would not see them).
PYTHON ?= /usr/bin/python3
PYTHON_VERSION = $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
# Debian's convention (its Python policy, and the sys.path of its python3):
# /usr/lib/python3/dist-packages for the distribution's own prefix, else
# <libdir>/python3.X/dist-packages (/usr/local/lib/python3.11/dist-packages),
# both under the library directory, where the package finds libqpu.so.0.
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),$(LIBDIR)/python3/dist-packages,$(LIBDIR)/python$(PYTHON_VERSION)/dist-packages)
PYTHON_SRCS := $(wildcard libqpu/python/qpu/*.py)
PYVIDEOCORE_SRCS := $(wildcard libqpu/python/qpu/pyvideocore/*.py)
PYTHON_TESTS := $(wildcard libqpu/python/tests/*.py)
PYTHON_EXAMPLES := $(wildcard libqpu/python/examples/*.py)

.PHONY: check-python install-python python-dist python-dir

check-python: $(LIBQPU_SO)
	$(Q)$(CURDIR)/tools/deps.sh python
	$(Q)QPU_LIBRARY=$(LIBQPU_SO) QPU_TEST_DEVICE=emu QPU_TEST_BUILD_DIR=$(BUILD)/python-dist \
		$(PYTHON) libqpu/python/tests/run.py

install: install-python
install-python:
	$(Q)test -n "$(PYTHON_VERSION)" || { echo "install-python: no $(PYTHON)" >&2; exit 1; }
	install -D -m 644 -t $(DESTDIR)$(PYTHONDIR)/qpu $(PYTHON_SRCS)
	install -D -m 644 -t $(DESTDIR)$(PYTHONDIR)/qpu/pyvideocore $(PYVIDEOCORE_SRCS)

# Where install-python puts the package (for selftests/install_test.sh).
python-dir:
	@echo $(PYTHONDIR)

# Wheel and sdist, offline: Debian's python3-build and setuptools, built in a
# copy so that the source tree gets no build/ or egg-info.
python-dist:
	$(Q)$(CURDIR)/tools/deps.sh python
	$(Q)rm -rf $(BUILD)/python-src && mkdir -p $(BUILD)/python-src
	$(Q)cp -r libqpu/python/pyproject.toml libqpu/python/MANIFEST.in libqpu/python/README.md \
		libqpu/python/qpu libqpu/python/tests $(BUILD)/python-src/
	$(Q)$(PYTHON) -m build --no-isolation --outdir $(BUILD)/python-dist $(BUILD)/python-src

# In the VM: the host's /usr over virtio-9p (selftests/vm/host-usr.sh).
$(BUILD)/vm-python/python.tar: $(PYTHON_SRCS) $(PYVIDEOCORE_SRCS) $(PYTHON_TESTS) $(PYTHON_EXAMPLES) \
		$(LIBQPU_SO) $(wildcard libqpu/qasm/*.qinc) selftests/lib/data/v3d-store.s
	$(Q)rm -rf $(BUILD)/vm-python/python && mkdir -p $(BUILD)/vm-python/python/qasm
	$(Q)cp -r libqpu/python/qpu libqpu/python/tests libqpu/python/examples $(BUILD)/vm-python/python/
	$(Q)cp libqpu/qasm/*.qinc $(BUILD)/vm-python/python/qasm/
	$(Q)cp selftests/lib/data/v3d-store.s $(BUILD)/vm-python/python/
	$(Q)cp -L $(LIBQPU_SO) $(BUILD)/vm-python/python/libqpu.so.0
	$(Q)find $(BUILD)/vm-python/python -name __pycache__ -prune -exec rm -rf {} +
	$(Q)tar -cf $@ -C $(BUILD)/vm-python python
VM_CHECK_DEPS += $(BUILD)/vm-python/python.tar
VM_CHECK_PAYLOAD += --copy $(BUILD)/vm-python/python.tar \
	--copy $(CURDIR)/libqpu/python/vm-run.sh \
	$(foreach f,$(PYTHON_VM_GROUPS),--run "sh vm-run.sh $(subst +, ,$(f))")
# Four steps, each well inside the guest's per-step limit (120 s): starting
# Python and numpy over 9p under TCG takes about 35 s, python3 -m qpu twice,
# python3 -m qpu.pyvideocore once. test_v3d_node.py runs on kmod/v3d_sim's
# nodes (vm-run.sh names them); test_capture.py dequeues from vivid (kmod.mk loads it).
PYTHON_VM_GROUPS := test_device.py+test_asm.py+test_emit.py test_jobs.py+test_kernels.py+test_dmabuf.py+test_capture.py \
	test_package.py+test_v3d_node.py test_pyvideocore.py

# check-nn-vm (opt-in; minutes under TCG): test_nn.py in the VM on qpu.ko's
# /dev/qpu with QPU_NN_LONG=1, so that MobileNet v1 0.5 and 1.0 at 224x224
# run on the QPUs against the CPU backend and the numpy reference of the
# ONNX operators. NN_VM_SELECT is pytest's -k expression (default: the
# MobileNet cases; "" for the whole file).
NN_VM_SELECT ?= mobilenet
.PHONY: check-nn-vm
check-nn-vm: VM_STEP_TIMEOUT = 3000
check-nn-vm: VM_TIMEOUT = 3600
check-nn-vm: vm-module $(BUILD)/vm-python/python.tar
	$(Q)$(CURDIR)/tools/deps.sh python vm
	$(Q)mkdir -p $(BUILD)/vm/nn
	$(call vm_run,nn,$(addprefix --module ,$(VM_9P_MODULES)) --share hostusr=/usr \
		--share hostalt=/etc/alternatives --copy $(CURDIR)/selftests/vm/host-usr.sh \
		--copy $(BUILD)/vm-python/python.tar --copy $(CURDIR)/libqpu/python/vm-run.sh \
		--run "QPU_NN_LONG=1 QPU_TEST_SELECT='$(NN_VM_SELECT)' sh vm-run.sh test_nn.py")
