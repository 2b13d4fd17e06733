# reclaimd - build, tests, demo and benchmarks.
#   make                      build ./reclaimd and ./reclaimctl
#   make SANITIZER=address    (or undefined, thread) build with that sanitizer
#   make SAN=asan             ASan+UBSan (SAN=tsan: TSan), every error fatal, -O1, into build/<cc>-<san>
#                             (SAN_STATIC=1: gcc links the sanitizer runtime statically)
#   make CC=clang             build with clang
#   make deps                 install the Debian packages everything below needs (root)
#   make check                purity check and unit tests, check-san, the VM tests on 6.12, the matrix on 6.1 and 7.3,
#                             then lifecycle, reclaim and zswap with an ASan+UBSan agent; ends "N passed, N failed, N skipped"
#   make check-kernels        the whole VM suite on Debian's 6.1, 6.12 and 7.3 kernels, in turn (3x check-vm)
#   make check-matrix         the VM matrix subset (smoke, lifecycle, reclaim, features, pages-back) on 6.1 and 7.3
#   make check-unit           purity check of policies/, unit tests, make deb + lintian, doc keys, imports, metrics, status socket and safety refusals end to end (no VM)
#   make check-san            the unit and host tests again under ASan+UBSan (gcc, clang) and TSan (tests/run-san.sh)
#   make install              binaries, systemd unit, man pages, example config (PREFIX=/usr/local)
#   make man                  man pages into build/man (reclaimd.8, reclaimctl.8, reclaimd.json.5)
#   make deb                  build/reclaimd_<version>-1_amd64.deb (dpkg-deb; lintian in check-unit)
#   make image                the DaemonSet's image reclaimd:<version> from the .deb (podman, local
#                             Debian rootfs, no registry) and build/reclaimd-image.tar (podman save)
#   make demo                 boot the VM and show reclaimd against two workloads
#   make bench                benchmarks (tables)
#   make fuzz                 the libFuzzer targets of tests/fuzz/ (clang), FUZZ_SECONDS=N each
#                             (default 10) or FUZZ_RUNS=N inputs each; FUZZ_TARGETS="psi config"
#                             for some of them; corpus in tests/fuzz/corpus/, table in
#                             build/fuzz/summary.txt

ifeq ($(origin CC),default)
CC        := gcc
endif
PKGS      := libsystemd jansson libcgroup numa libmicrohttpd
# SAN=asan|tsan: the sanitizer builds of make check-san (tests/run-san.sh), -O1 unless CFLAGS says.
SAN_asan  := -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_tsan  := -fsanitize=thread
ifneq ($(SAN),)
ifeq ($(SAN_$(SAN)),)
$(error SAN=$(SAN): use SAN=asan (ASan+UBSan) or SAN=tsan)
endif
CFLAGS    ?= -O1 -g
else
CFLAGS    ?= -O2 -g
endif
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
ifneq ($(SAN),)
ALL_CFLAGS += $(SAN_$(SAN)) -fno-omit-frame-pointer
LDFLAGS    += $(SAN_$(SAN))
# The runtime linked into the binary (gcc; clang links it statically by default), so a binary
# copied to a machine without libasan8/libubsan1/libtsan2 (the VM guest) runs as it is.
ifeq ($(SAN_STATIC),1)
LDFLAGS    += $(if $(filter asan,$(SAN)),-static-libasan -static-libubsan,-static-libtsan)
endif
endif

# One object directory per compiler and sanitizer, so switching never mixes objects.
BUILD     := build/$(notdir $(CC))$(if $(SANITIZER),-$(SANITIZER))$(if $(SAN),-$(SAN))$(if $(filter 1,$(SAN_STATIC)),-static)

# agent/cli/ is reclaimctl's, a program of its own (below).
SRCS      := $(shell find agent policies -name "*.c" -not -path "agent/cli/*" | LC_ALL=C sort)
LIB_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(filter-out agent/main.c,$(SRCS)))
MAIN_OBJ  := $(BUILD)/agent/main.o
POLICY_OBJS := $(filter $(BUILD)/policies/%,$(LIB_OBJS))
TEST_SRCS := $(wildcard tests/unit/test_*.c)
TESTS     := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
# Unit tests written as scripts (the plots: bench/plot*.sh); run beside the C ones.
TEST_SCRIPTS := $(wildcard tests/unit/test_*.sh)
# reclaimctl: its own code, the varlink wire format and str_escape(), with jansson and
# libsmartcols (its tables).
CTL_OBJS  := $(BUILD)/agent/cli/reclaimctl.o $(BUILD)/agent/cli/ctl_call.o $(BUILD)/agent/cli/ctl_table.o $(BUILD)/agent/obs/varlink_proto.o $(BUILD)/agent/base/escape.o
CTL_LIBS   = $(shell pkg-config --libs jansson smartcols 2>/dev/null) -lm
# Host tests that run the programs themselves (tests/host/), counted with the unit tests.
HOST_TESTS := tests/host/status-socket.sh tests/host/state-file.sh tests/host/safety.sh \
	tests/host/hostile-paths.sh tests/host/floods.sh tests/host/dropins.sh
HOST_DEPS := reclaimd reclaimctl $(BUILD)/tests/status_probe $(BUILD)/tests/gen_cgroupfs

.PHONY: all deps check check-unit check-san check-vm check-kernels check-matrix demo bench fuzz install man deb deb-build image clean FORCE

# The version has one source: RECLAIMD_VERSION in include/reclaimd/version.h (--version of both
# binaries, the status socket, the man pages, the .deb).
VERSION   := $(shell sed -n 's/^\#define RECLAIMD_VERSION "\(.*\)"/\1/p' include/reclaimd/version.h)
# The Debian revision of the package built from this tree (reclaimd_<VERSION>-<rev>_<arch>.deb).
DEB_REVISION := 1
# Checks that are scripts, counted with the unit tests (same "N passed, N failed, N skipped").
CHECK_SCRIPTS := tests/pkg/check-doc-keys.sh tests/pkg/check-deb.sh tests/pkg/check-kubernetes.sh \
                 tests/pkg/check-imports.sh tests/pkg/check-alerts.sh \
                 tests/pkg/check-dashboard.sh tests/pkg/check-deploy.sh

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
# tests/metrics-e2e.sh and tests/host/ run the daemon itself on a fake cgroup tree (seconds).
check-unit: $(TESTS) $(POLICY_OBJS) $(BUILD)/reclaimd $(HOST_DEPS)
	@tests/purity.sh $(POLICY_OBJS)
	@BUILD=$(BUILD) RECLAIMD=$(BUILD)/reclaimd tests/run-unit.sh $(TESTS) $(TEST_SCRIPTS) $(CHECK_SCRIPTS) tests/metrics-e2e.sh $(HOST_TESTS)

check: deps reclaimd $(TESTS) $(HOST_DEPS)
	@tests/purity.sh $(POLICY_OBJS)
	@BUILD=$(BUILD) RECLAIMD=$(BUILD)/reclaimd tests/check.sh $(TESTS) $(TEST_SCRIPTS) $(CHECK_SCRIPTS) tests/metrics-e2e.sh $(HOST_TESTS)

# The unit and host tests under ASan+UBSan (gcc and clang) and TSan, each built into its own
# build/<cc>-<san> (tests/run-san.sh; 3 to 6 minutes on 2 cores, half of it compiling).
check-san:
	@tests/run-san.sh

check-vm: deps reclaimd reclaimctl
	@tests/vm/run-tests.sh

# Each kernel is downloaded the first time it is asked for (tests/vm/fetch-kernel.sh --kernel);
# `make -C tests/vm deps` and the first run of the default suite fetch only 6.12.
VM_KERNELS := 6.1,6.12,7.3

check-kernels: deps reclaimd reclaimctl
	@tests/vm/run-tests.sh --kernel $(VM_KERNELS)

check-matrix: deps reclaimd reclaimctl
	@tests/vm/run-tests.sh --matrix

demo: deps reclaimd
	@tests/vm/demo.sh

bench: deps reclaimd
	@bench/run.sh

# ---- fuzzing: tests/fuzz/fuzz_<name>.c is the libFuzzer target <name> --------------------------
# Built with clang apart from everything else (build/fuzz/): the whole agent instrumented for
# coverage (fuzzer-no-link), with AddressSanitizer (leaks included) and UBSan, every finding
# fatal; each target linked against the library it needs out of build/fuzz/libreclaimd.a.
# tests/fuzz/run.sh seeds each corpus from tests/fixtures/ and tests/fuzz/seeds/, runs the targets
# one after the other, and prints (and writes to FUZZ_SUMMARY) a table; it fails when one does.
FUZZ_CC      ?= clang
FUZZ_BUILD   := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=gnu11 $(WARNINGS) -O2 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -pthread -MMD -MP
FUZZ_ALL     := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_LIB     := $(FUZZ_BUILD)/libreclaimd.a
FUZZ_SECONDS ?= 10
FUZZ_RUNS    ?=
FUZZ_SUMMARY ?= $(FUZZ_BUILD)/summary.txt

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(FUZZ_LIB): $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(filter-out agent/main.c,$(SRCS)))
	@rm -f $@
	ar rcs $@ $^

# The targets' objects are kept (make would remove them as intermediate).
.SECONDARY: $(patsubst %,$(FUZZ_BUILD)/tests/fuzz/fuzz_%.o,$(FUZZ_ALL))

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LDLIBS)

fuzz: $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_TARGETS))
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_SUMMARY=$(FUZZ_SUMMARY) FUZZ_CC=$(FUZZ_CC) \
		tests/fuzz/run.sh $^

PREFIX  ?= /usr/local
# The vendor unit directory (local edits go in drop-ins under /etc/systemd/system/reclaimd.service.d/).
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
DESTDIR ?=
MANDIR  ?= $(PREFIX)/share/man
# The binaries, the unit, the man pages, and the example configuration (never overwriting an
# existing one), root's and writable by root only, as reclaimd demands of it (docs/operating.md
# "Safety"). They come from $(BUILD), so "make deb" (its own BUILD) leaves ./reclaimd as it was.
install: $(BUILD)/reclaimd $(BUILD)/reclaimctl man
	install -D -m 0755 $(BUILD)/reclaimd $(DESTDIR)$(PREFIX)/sbin/reclaimd
	install -D -m 0755 $(BUILD)/reclaimctl $(DESTDIR)$(PREFIX)/bin/reclaimctl
	@for m in build/man/*.[0-9]; do \
		s=$${m##*.}; \
		echo "install -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}"; \
		install -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; \
	done
	@mkdir -p $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	sed -e 's|/usr/local/sbin/reclaimd|$(PREFIX)/sbin/reclaimd|' \
		-e 's|file:///usr/share/doc/reclaimd/|file://$(PREFIX)/share/doc/reclaimd/|' systemd/reclaimd.service \
		>$(DESTDIR)$(SYSTEMD_UNIT_DIR)/reclaimd.service
	chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/reclaimd.service
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/reclaimd/README.md
	install -d -m 0755 $(DESTDIR)$(PREFIX)/share/doc/reclaimd/docs
	install -m 0644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/reclaimd/docs/
	@if [ -e $(DESTDIR)/etc/reclaimd/reclaimd.json ]; then \
		echo "keeping the existing /etc/reclaimd/reclaimd.json"; \
	else \
		install -d -m 0755 $(DESTDIR)/etc/reclaimd; \
		install -m 0644 config/reclaimd.json $(DESTDIR)/etc/reclaimd/reclaimd.json; \
	fi
	install -d -m 0755 $(DESTDIR)/etc/reclaimd/reclaimd.d

# Man pages from one source each: help2man on the binary's --help and --version (with
# config/man/<name>.h2m for DESCRIPTION, FILES, SEE ALSO), reclaimd.json(5) from the configuration
# reference, docs/configuration.md (md2man.py fails on a link out of it; a failure leaves no partial page).
man: $(BUILD)/reclaimd $(BUILD)/reclaimctl
	@mkdir -p build/man
	help2man --no-info --section 8 --include config/man/reclaimd.h2m \
		--name "PSI-driven proactive memory reclaim for cgroup-v2 workloads" \
		-o build/man/reclaimd.8 $(BUILD)/reclaimd
	help2man --no-info --section 8 --include config/man/reclaimctl.h2m \
		--name "query and control the reclaimd daemon" \
		-o build/man/reclaimctl.8 $(BUILD)/reclaimctl
	config/man/md2man.py --version $(VERSION) docs/configuration.md >build/man/reclaimd.json.5.tmp \
		|| { rm -f build/man/reclaimd.json.5.tmp; exit 1; }
	mv build/man/reclaimd.json.5.tmp build/man/reclaimd.json.5

# The Debian package, built by debhelper from debian/ (debian/rules: dh, the Makefile's "all" and
# "install" with Debian's build flags, the unit installed but neither enabled nor started) with
# dpkg-buildpackage on a copy of the tree (tracked and new files, as they are in the working
# tree) in $(DEB_DIR)/reclaimd-$(VERSION), so the build/ of the tree is left alone.
# The package's version is debian/changelog's; it must be $(VERSION)-$(DEB_REVISION).
# "make deb-build DEB_DIR=elsewhere" builds it only there (tests/pkg/check-deb.sh builds it twice
# in two directories and compares the two .debs: reproducibility).
DEB_DIR ?= build/deb
DEB_ARCH = $(shell dpkg --print-architecture)
DEB_FILE = reclaimd_$(VERSION)-$(DEB_REVISION)_$(DEB_ARCH).deb

deb: deb-build
	cp -f $(DEB_DIR)/$(DEB_FILE) build/$(DEB_FILE)
	@# The same under a fixed name, for the VM tests and the container image.
	cp -f $(DEB_DIR)/$(DEB_FILE) build/reclaimd.deb
	@echo "make deb: build/$(DEB_FILE) (Depends: $$(dpkg-deb -f build/$(DEB_FILE) Depends))"

deb-build: FORCE
	@v=$$(dpkg-parsechangelog -S Version) || exit 1; \
	if [ "$$v" != "$(VERSION)-$(DEB_REVISION)" ]; then \
		echo "make deb: debian/changelog is at $$v, include/reclaimd/version.h and DEB_REVISION" \
			"give $(VERSION)-$(DEB_REVISION): add a changelog entry (dch -v $(VERSION)-$(DEB_REVISION))" >&2; \
		exit 1; \
	fi
	@git rev-parse --is-inside-work-tree >/dev/null 2>&1 || \
		{ echo "make deb: needs a git working tree (it copies the files git knows of)" >&2; exit 1; }
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/reclaimd-$(VERSION)
	git ls-files --deleted >$(DEB_DIR)/deleted
	git ls-files -z --cached --others --exclude-standard >$(DEB_DIR)/files
	tar -X $(DEB_DIR)/deleted --null -T $(DEB_DIR)/files -cf $(DEB_DIR)/src.tar
	tar -C $(DEB_DIR)/reclaimd-$(VERSION) -xf $(DEB_DIR)/src.tar
	cd $(DEB_DIR)/reclaimd-$(VERSION) && dpkg-buildpackage -b -us -uc -j2 >../build.log 2>&1 || \
		{ tail -n 30 ../build.log >&2; echo "make deb: dpkg-buildpackage failed, see $(DEB_DIR)/build.log" >&2; exit 1; }

# The DaemonSet's container image (config/kubernetes/): a Debian bookworm minbase rootfs with the
# package's Depends (debootstrap, cached under tests/vm/.cache/image/), imported with podman,
# the .deb installed on it by podman build; then podman save to build/reclaimd-image.tar.
# With registry access, config/kubernetes/Dockerfile builds the same image FROM
# debian:bookworm-slim (docker build -f config/kubernetes/Dockerfile build/; docs/kubernetes.md).
image: deb
	config/kubernetes/build-image.sh --save

clean:
	rm -rf build reclaimd reclaimctl tests/vm/out

# Not the package's build trees (build/deb*), nor a directory named *.d (etc/reclaimd/reclaimd.d).
-include $(shell find build -path 'build/deb*' -prune -o -name '*.d' -type f -print 2>/dev/null)
