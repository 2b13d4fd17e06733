# reclaimd - build, tests, demo and benchmarks.
#   make                      build ./reclaimd and ./reclaimctl
#   make SANITIZER=address    (or undefined, thread) build with that sanitizer
#   make CC=clang             build with clang
#   make deps                 install the Debian packages everything below needs (root)
#   make check                unit tests, then the real-kernel VM tests; ends "N passed, N failed, N skipped"
#   make check-unit           purity check of policies/, unit tests (seconds, no VM)
#   make install              binaries, systemd unit and example config (PREFIX=/usr/local)
#   make demo                 boot the VM and show reclaimd against two workloads
#   make bench                benchmarks (tables)

ifeq ($(origin CC),default)
CC        := gcc
endif
PKGS      := libsystemd jansson libcgroup numa
CFLAGS    ?= -O2 -g
WARNINGS  := -Wall -Wextra -Wconversion -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wformat=2 -Wno-format-nonliteral -Werror
CPPFLAGS  += -Iinclude -Iagent -D_GNU_SOURCE
ALL_CFLAGS = -std=gnu11 $(WARNINGS) $(CFLAGS) $(PKG_CFLAGS) -pthread -MMD -MP
LDLIBS    += $(PKG_LIBS) -pthread -lm

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

ifneq ($(SANITIZER),)
ALL_CFLAGS += -fsanitize=$(SANITIZER) -fno-omit-frame-pointer
LDFLAGS    += -fsanitize=$(SANITIZER)
endif

# One object directory per compiler and sanitizer, so switching never mixes objects.
BUILD     := build/$(notdir $(CC))$(if $(SANITIZER),-$(SANITIZER))

# agent/cli/ is reclaimctl's, a program of its own (below).
SRCS      := $(shell find agent policies -name "*.c" -not -path "agent/cli/*" | LC_ALL=C sort)
LIB_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(filter-out agent/main.c,$(SRCS)))
MAIN_OBJ  := $(BUILD)/agent/main.o
POLICY_OBJS := $(filter $(BUILD)/policies/%,$(LIB_OBJS))
TEST_SRCS := $(wildcard tests/unit/test_*.c)
TESTS     := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
# reclaimctl: its own code and the varlink wire format, with jansson only.
CTL_OBJS  := $(BUILD)/agent/cli/reclaimctl.o $(BUILD)/agent/obs/varlink_proto.o
CTL_LIBS   = $(shell pkg-config --libs jansson 2>/dev/null) -lm
# Host tests that run the programs themselves (tests/host/), counted with the unit tests.
HOST_TESTS := tests/host/status-socket.sh
HOST_DEPS := reclaimd reclaimctl $(BUILD)/tests/status_probe $(BUILD)/tests/gen_cgroupfs

.PHONY: all deps check check-unit check-vm demo bench install clean FORCE

all: reclaimd reclaimctl

# ./reclaimd is always the binary of the last configuration built.
reclaimd: $(BUILD)/reclaimd FORCE
	@cmp -s $< $@ || cp -f $< $@

$(BUILD)/reclaimd: $(MAIN_OBJ) $(LIB_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

reclaimctl: $(BUILD)/reclaimctl FORCE
	@cmp -s $< $@ || cp -f $< $@

$(BUILD)/reclaimctl: $(CTL_OBJS)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(CTL_LIBS)

$(BUILD)/tests/status_probe: $(BUILD)/tests/host/status_probe.o $(BUILD)/agent/obs/varlink_proto.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(CTL_LIBS)

# The fake cgroupfs generator of bench/ (bench/Makefile builds it static, for the VM); a tool
# of the test, built without the sanitizer (it does not free what it loads before exiting).
$(BUILD)/tests/gen_cgroupfs: bench/gen_cgroupfs.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -Wconversion -Werror $(CFLAGS) -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS)

deps:
	@tests/deps.sh

# The purity check first: policies/ objects may reference only each other and an allow-list.
check-unit: $(TESTS) $(POLICY_OBJS) $(HOST_DEPS)
	@tests/purity.sh $(POLICY_OBJS)
	@BUILD=$(BUILD) tests/run-unit.sh $(TESTS) $(HOST_TESTS)

check: deps reclaimd $(TESTS) $(HOST_DEPS)
	@tests/purity.sh $(POLICY_OBJS)
	@BUILD=$(BUILD) tests/check.sh $(TESTS) $(HOST_TESTS)

check-vm: reclaimd
	@tests/vm/run-tests.sh

demo: deps reclaimd
	@tests/vm/demo.sh

bench: deps reclaimd
	@bench/run.sh

PREFIX  ?= /usr/local
# The vendor unit directory (local edits go in drop-ins under /etc/systemd/system/reclaimd.service.d/).
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
DESTDIR ?=
# The binaries, the unit, and the example configuration (never overwriting an existing one).
install: reclaimd reclaimctl
	install -D -m 0755 reclaimd $(DESTDIR)$(PREFIX)/sbin/reclaimd
	install -D -m 0755 reclaimctl $(DESTDIR)$(PREFIX)/bin/reclaimctl
	@mkdir -p $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	sed -e 's|/usr/local/sbin/reclaimd|$(PREFIX)/sbin/reclaimd|' \
		-e 's|file:///usr/share/doc/reclaimd/|file://$(PREFIX)/share/doc/reclaimd/|' systemd/reclaimd.service \
		>$(DESTDIR)$(SYSTEMD_UNIT_DIR)/reclaimd.service
	chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/reclaimd.service
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/reclaimd/README.md
	@if [ -e $(DESTDIR)/etc/reclaimd/reclaimd.json ]; then \
		echo "keeping the existing /etc/reclaimd/reclaimd.json"; \
	else \
		install -D -m 0644 config/reclaimd.json $(DESTDIR)/etc/reclaimd/reclaimd.json; \
	fi

clean:
	rm -rf build reclaimd reclaimctl tests/vm/out

-include $(shell find build -name '*.d' 2>/dev/null)
