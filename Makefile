# reclaimd - build, tests, demo and benchmarks.
#   make                      build ./reclaimd
#   make SANITIZER=address    (or undefined, thread) build with that sanitizer
#   make CC=clang             build with clang
#   make deps                 install the Debian packages everything below needs (root)
#   make check                unit tests, then the real-kernel VM tests; ends "N passed, N failed, N skipped"
#   make check-unit           purity check of policies/, unit tests, metrics end to end (seconds, no VM)
#   make install              binary, systemd unit and example config (PREFIX=/usr/local)
#   make demo                 boot the VM and show reclaimd against two workloads
#   make bench                benchmarks (tables)

ifeq ($(origin CC),default)
CC        := gcc
endif
PKGS      := libsystemd jansson libcgroup numa libmicrohttpd
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

SRCS      := $(shell find agent policies -name "*.c" | LC_ALL=C sort)
LIB_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(filter-out agent/main.c,$(SRCS)))
MAIN_OBJ  := $(BUILD)/agent/main.o
POLICY_OBJS := $(filter $(BUILD)/policies/%,$(LIB_OBJS))
TEST_SRCS := $(wildcard tests/unit/test_*.c)
TESTS     := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
# Unit tests written as scripts (the plots: bench/plot*.sh); run beside the C ones.
TEST_SCRIPTS := $(wildcard tests/unit/test_*.sh)

.PHONY: all deps check check-unit check-vm demo bench install clean FORCE

all: reclaimd

# ./reclaimd is always the binary of the last configuration built.
reclaimd: $(BUILD)/reclaimd FORCE
	@cmp -s $< $@ || cp -f $< $@

$(BUILD)/reclaimd: $(MAIN_OBJ) $(LIB_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS)

deps:
	@tests/deps.sh

# The purity check first: policies/ objects may reference only each other and an allow-list.
# tests/metrics-e2e.sh runs the daemon itself on a fake cgroup tree (seconds).
check-unit: $(TESTS) $(POLICY_OBJS) $(BUILD)/reclaimd
	@tests/purity.sh $(POLICY_OBJS)
	@RECLAIMD=$(BUILD)/reclaimd tests/run-unit.sh $(TESTS) $(TEST_SCRIPTS) tests/metrics-e2e.sh

check: deps reclaimd $(TESTS)
	@tests/purity.sh $(POLICY_OBJS)
	@RECLAIMD=$(BUILD)/reclaimd tests/check.sh $(TESTS) $(TEST_SCRIPTS) tests/metrics-e2e.sh

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
# The binary, the unit, and the example configuration (never overwriting an existing one).
install: reclaimd
	install -D -m 0755 reclaimd $(DESTDIR)$(PREFIX)/sbin/reclaimd
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
	rm -rf build reclaimd tests/vm/out

-include $(shell find build -name '*.d' 2>/dev/null)
