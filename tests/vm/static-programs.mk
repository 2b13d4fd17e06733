# Included by tests/vm/workloads/Makefile and tests/vm/tools/Makefile: builds every *.c of the
# including directory into a static executable under build/, for the initramfs of the test VM
# (tests/vm/run.sh copies all of build/ into it).
CFLAGS ?= -O2 -g
WARN := -std=gnu11 -Wall -Wextra -Wconversion -Werror
LDFLAGS ?=

SRCS := $(wildcard *.c)
BINS := $(patsubst %.c,build/%,$(SRCS))

all: $(BINS)

build/%: %.c | build
	$(CC) $(WARN) $(CFLAGS) -static $(LDFLAGS) -o $@ $<

build:
	mkdir -p $@

clean:
	rm -rf build

.PHONY: all clean
