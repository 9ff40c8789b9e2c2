#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-build-tree: a program builds against the build tree as README.md
# says, before any install: PKG_CONFIG_PATH=build finds
# libqpu-uninstalled.pc, the program links with libqpu.so (and runs without
# LD_LIBRARY_PATH) or statically with libqpu.a; and libqpu.a links into a
# shared object (a plugin), which a program loads and runs a job through:
# the static archive carries no symbol versions.

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
build=$(cd "$(dirname "$QPU_DIS")/.." && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/lib/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

# The sanitizer build's library needs its runtime in the program too.
san=
nm -D "$build/libqpu.so" 2>/dev/null | grep -q __asan_init && san=-fsanitize=address,undefined

cat >"$tmp/job.c" <<'PROG'
#include <stdio.h>
#include <string.h>
#include <qpu.h>

/* nop; thrend / nop / nop, a job of one program on @dev */
int run_job(struct qpu_dev *dev);
int run_job(struct qpu_dev *dev)
{
	static const unsigned int code[] = { 0x009e7000, 0x300009e7, 0x009e7000, 0x100009e7,
					     0x009e7000, 0x100009e7 };
	struct qpu_bo *c = qpu_bo_new(dev, 4096), *u = qpu_bo_new(dev, 4096);
	struct qpu_program_ref prog = { .code = c, .uniforms = u };
	struct qpu_job_desc job = { .programs = &prog, .program_count = 1, .in_fence_fd = -1 };
	struct qpu_job_result result;
	uint64_t seqno;
	int ret = -1;

	if (c && u) {
		memcpy(qpu_bo_get_map(c), code, sizeof(code));
		if (qpu_submit(dev, &job, &seqno) == 0 && qpu_wait(dev, seqno, 1000, &result) == 0)
			ret = result.status != QPU_STATUS_DONE;
	}
	qpu_bo_free(c);
	qpu_bo_free(u);
	return ret;
}
PROG
cat >"$tmp/main.c" <<'PROG'
#include <stdio.h>
#include <qpu.h>

int run_job(struct qpu_dev *dev);

int main(void)
{
	struct qpu_dev *dev = qpu_dev_open("emu");
	int ret = dev ? run_job(dev) : -1;

	printf("job %s\n", ret ? "failed" : "done");
	qpu_dev_close(dev);
	return ret != 0;
}
PROG
cat >"$tmp/loader.c" <<'PROG'
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	int (*plugin_run)(void);

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	plugin_run = (int (*)(void))dlsym(h, "plugin_run");
	return !plugin_run || plugin_run();
}
PROG
cat >"$tmp/plugin.c" <<'PROG'
#include <qpu.h>

int run_job(struct qpu_dev *dev);
int plugin_run(void);

int plugin_run(void)
{
	struct qpu_dev *dev = qpu_dev_open("emu");
	int ret = dev ? run_job(dev) : -1;

	qpu_dev_close(dev);
	return ret != 0;
}
PROG

cd "$top" || exit 1
# README.md's words, relative to the top directory (build/asan in check-asan).
PKG_CONFIG_PATH=${build#"$top"/}
export PKG_CONFIG_PATH
check pkg_config_finds_uninstalled sh -c 'pkg-config --cflags libqpu | grep -q -- "-I'"$top"'/libqpu/include"'
# shellcheck disable=SC2046,SC2086
check build_shared cc $san -Wall -Werror -o "$tmp/prog" "$tmp/main.c" "$tmp/job.c" \
	$(pkg-config --cflags --libs libqpu)
check run_shared_without_ld_library_path sh -c "env -u LD_LIBRARY_PATH '$tmp/prog' | grep -qx 'job done'"
if [ -z "$san" ]; then
	# shellcheck disable=SC2046
	check build_static cc -Wall -Werror -static -o "$tmp/prog-static" "$tmp/main.c" "$tmp/job.c" \
		$(pkg-config --static --cflags --libs libqpu)
	check run_static sh -c "'$tmp/prog-static' | grep -qx 'job done'"
fi
# shellcheck disable=SC2046,SC2086
check static_archive_into_shared_object cc $san -shared -fPIC -Wall -Werror -o "$tmp/plugin.so" \
	"$tmp/plugin.c" "$tmp/job.c" $(pkg-config --cflags libqpu) "$build/libqpu.a" -lm
check no_versions_in_archive sh -c "! nm '$build/libqpu.a' | grep '@'"
# shellcheck disable=SC2086
check build_loader cc $san -Wall -Werror -o "$tmp/loader" "$tmp/loader.c" -ldl
check run_plugin "$tmp/loader" "$tmp/plugin.so"

check_end
