#!/usr/bin/env bash
# check-imports.sh - reclaimd and reclaimctl start no other program: neither binary imports a
# function that runs a command or makes a process (system, popen, the exec family, posix_spawn,
# fork, vfork, clone, wordexp, which runs a shell for $(...)). What the agent does to the
# system it does through system calls of its own (swapon(2), swapoff(2), writes to kernel files).
# The imports are the binaries' undefined dynamic symbols (nm -D --undefined-only); a binary
# whose list lacks read() is not one this can judge (static, stripped of .dynsym) and fails.
# Run from the repository root (make check-unit); RECLAIMD names the agent (default
# build/gcc/reclaimd), reclaimctl is the one beside it. Ends with "check-imports: N passed, N
# failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 1
TEST_NAME=check-imports
. tests/lib.sh
RECLAIMD=${RECLAIMD:-build/gcc/reclaimd}
forbidden='^(system|__libc_system|popen|execl|execle|execlp|execv|execve|execvp|execvpe|execveat|fexecve|posix_spawn|posix_spawnp|fork|_Fork|vfork|clone|clone3|wordexp)$'

command -v nm >/dev/null || { skip "imports: no nm (binutils)"; summary; }
for bin in "$RECLAIMD" "$(dirname "$RECLAIMD")/reclaimctl"; do
	name=$(basename "$bin")
	if [ ! -x "$bin" ]; then
		fail "$name-no-exec: $bin is not built"
		continue
	fi
	imports=$(nm -D --undefined-only "$bin" 2>/dev/null | awk '{ print $NF }' | sed 's/@.*//' | sort -u)
	if ! printf '%s\n' "$imports" | grep -qx read; then
		fail "$name-no-exec: nm -D lists no import of read() in $bin: cannot judge its imports"
		continue
	fi
	bad=$(printf '%s\n' "$imports" | grep -E "$forbidden" | tr '\n' ' ')
	if [ -z "$bad" ]; then
		pass "$name-no-exec: none of its $(printf '%s\n' "$imports" | grep -c .) imports runs a program or makes a process"
	else
		fail "$name-no-exec: $bin imports $bad"
	fi
done
summary
