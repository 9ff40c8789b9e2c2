# SPDX-License-Identifier: GPL-2.0
# More than one board (tools/fleet): the MQTT publisher of detections and
# health (qpu_mqtt.c with json.c, the archive libqpu-mqtt.a that qpu-detect
# links), qpu-fleet, its subscriber, and qpu-batch, batches spread over
# boards with MPI (qpu_mpi.c). libqpu itself links neither libmosquitto nor
# MPI: each part is built only where its library is (tools/deps.sh fleet),
# and its test skips elsewhere. The programs are built as the other tools
# are (public headers, libqpu.so, libqpu-tools.a).

FLEET_PKG_CONFIG ?= $(or $(PKG_CONFIG),pkg-config)
HAVE_MOSQUITTO := $(shell $(FLEET_PKG_CONFIG) --exists libmosquitto 2>/dev/null && echo 1)
# MPI through pkg-config's mpi-c (Debian's choice of Open MPI or MPICH), so
# that a cross build, whose pkg-config finds no target MPI, leaves it out.
HAVE_MPI := $(shell $(FLEET_PKG_CONFIG) --exists mpi-c 2>/dev/null && echo 1)
MPI_CFLAGS := $(shell $(FLEET_PKG_CONFIG) --cflags mpi-c 2>/dev/null)
MPI_LIBS := $(shell $(FLEET_PKG_CONFIG) --libs mpi-c 2>/dev/null)

QPU_MQTT_A := $(BUILD)/tools/fleet/libqpu-mqtt.a
QPU_MQTT_OBJS := $(addprefix $(BUILD)/tools/fleet/,qpu_mqtt.o json.o)
FLEET_CFLAGS = $(TOOL_CFLAGS) -I$(CURDIR)/tools/fleet
MOSQUITTO_LIBS := $(shell $(FLEET_PKG_CONFIG) --libs libmosquitto 2>/dev/null) -lpthread
QPU_FLEET := $(BUILD)/tools/qpu-fleet
QPU_BATCH := $(BUILD)/tools/qpu-batch

$(BUILD)/tools/fleet/%.o: tools/fleet/%.c $(BUILD)/vars/TOOL_CFLAGS
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(FLEET_CFLAGS) -MMD -MP -c -o $@ $<

$(QPU_MQTT_A): $(QPU_MQTT_OBJS)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(QPU_FLEET): tools/fleet/qpu-fleet.c $(QPU_MQTT_A) $(QPU_TOOLS_A) $(LIBQPU_SO)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(FLEET_CFLAGS) -MMD -MP -o $@ $< $(QPU_MQTT_A) $(QPU_TOOLS_A) \
		$(TOOL_LIBQPU) $(LDFLAGS) $(MOSQUITTO_LIBS)

# qpu-detect --mqtt: its own rule where libmosquitto is (else tools.mk's,
# and --mqtt says what is missing).
ifeq ($(HAVE_MOSQUITTO),1)
$(BUILD)/tools/qpu-detect: tools/qpu-detect.c $(QPU_MQTT_A) $(QPU_TOOLS_A) $(LIBQPU_SO)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(FLEET_CFLAGS) -DQPU_DETECT_MQTT -MMD -MP -o $@ $< $(QPU_MQTT_A) \
		$(QPU_TOOLS_A) $(TOOL_LIBQPU) $(LDFLAGS) -lm $(MOSQUITTO_LIBS)
endif

ifeq ($(HAVE_MOSQUITTO),1)
TOOLS += $(QPU_FLEET)
tools: $(QPU_FLEET)
HOST_TEST_DEPS += $(QPU_FLEET) $(BUILD)/tools/qpu-nn
endif

QPU_MPI_A := $(BUILD)/tools/fleet/libqpu-mpi.a

$(BUILD)/tools/fleet/qpu_mpi.o: tools/fleet/qpu_mpi.c $(BUILD)/vars/TOOL_CFLAGS
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(FLEET_CFLAGS) $(MPI_CFLAGS) -MMD -MP -c -o $@ $<

$(QPU_MPI_A): $(BUILD)/tools/fleet/qpu_mpi.o
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(QPU_BATCH): tools/fleet/qpu-batch.c $(QPU_MPI_A) $(QPU_TOOLS_A) $(LIBQPU_SO)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(FLEET_CFLAGS) $(MPI_CFLAGS) -MMD -MP -o $@ $< $(QPU_MPI_A) \
		$(QPU_TOOLS_A) $(TOOL_LIBQPU) $(LDFLAGS) $(MPI_LIBS)

ifeq ($(HAVE_MPI),1)
TOOLS += $(QPU_BATCH)
tools: $(QPU_BATCH)
HOST_TEST_DEPS += $(QPU_BATCH)
endif
# The tests run in check-host and (MQTT only) check-asan; not again in
# check-reference, where nothing of theirs runs differently, nor the MPI
# one under ASan, whose leak reports would be Open MPI's own.
ifneq ($(EMU_REFERENCE),1)
HOST_TEST_SCRIPTS += selftests/fleet/test-fleet-mqtt.sh
ifneq ($(SANITIZE),1)
HOST_TEST_SCRIPTS += selftests/fleet/test-fleet-mpi.sh
endif
endif

-include $(QPU_MQTT_OBJS:.o=.d) $(QPU_FLEET).d \
	$(BUILD)/tools/fleet/qpu_mpi.d $(QPU_BATCH).d

# make bench-mpi (and make bench): qpu-batch's batches per second with 1 and
# 2 ranks on this machine.
.PHONY: bench-mpi
bench-mpi: $(QPU_BATCH)
	$(Q)sh selftests/fleet/bench-mpi.sh $(QPU_BATCH)
ifeq ($(HAVE_MPI),1)
bench: bench-mpi
endif

# check-vm: one board on the VM's /dev/qpu beside two on the emulator, all
# publishing to a mosquitto in the guest (selftests/fleet/test-fleet-vm.sh,
# FLEET_VM_FRAMES frames each); fleet.tar carries the tools, libqpu and the
# detector (vm-payload.sh), or why the step skips.
FLEET_VM_FRAMES := 8
FLEET_VM_TAR := $(BUILD)/vm-fleet/fleet.tar
$(FLEET_VM_TAR): selftests/fleet/vm-payload.sh $(BUILD)/tools/qpu-detect $(BUILD)/tools/qpu-nn \
		$(LIBQPU_SO) $(if $(HAVE_MOSQUITTO),$(QPU_FLEET))
	$(Q)mkdir -p $(dir $@)
	$(Q)PYTHON=$(PYTHON) sh selftests/fleet/vm-payload.sh $(BUILD) $@ $(FLEET_VM_FRAMES)
VM_CHECK_DEPS += $(FLEET_VM_TAR)
VM_CHECK_PAYLOAD += --copy $(FLEET_VM_TAR) --copy $(CURDIR)/selftests/fleet/test-fleet-vm.sh \
	--run "test-fleet-vm.sh $(FLEET_VM_FRAMES)"
