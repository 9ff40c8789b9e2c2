// SPDX-License-Identifier: MIT
/*
 * Model files for qpu-nn and qpu-detect: ONNX converted to .qnn through the
 * Python package, which alone reads ONNX (python3-onnx).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "die.h"
#include "nn_model.h"

static char tmp_qnn[64];

static const char *python(void)
{
	const char *p = getenv("PYTHON");

	if (p && *p)
		return p;
	return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

int nn_model_convert(char **args, int count)
{
	char **argv = calloc((size_t)count + 4, sizeof(*argv));
	int status, i;
	pid_t pid;

	if (!argv)
		die("out of memory");
	argv[0] = (char *)python();
	argv[1] = "-m";
	argv[2] = "qpu.nn";
	for (i = 0; i < count; i++)
		argv[3 + i] = args[i];
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s: %s (set PYTHON to a python3 with python3-onnx)\n",
			tool_name, argv[0], strerror(errno));
		_exit(127);
	}
	free(argv);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static void drop_tmp(void)
{
	if (tmp_qnn[0])
		unlink(tmp_qnn);
}

const char *nn_model_qnn(const char *path)
{
	size_t len = strlen(path);
	char *args[3] = { "convert", (char *)path, tmp_qnn };
	int fd;

	if (len <= 5 || strcmp(path + len - 5, ".onnx"))
		return path;
	snprintf(tmp_qnn, sizeof(tmp_qnn), "/tmp/qpu-nn-XXXXXX");
	fd = mkstemp(tmp_qnn);
	if (fd < 0)
		die("mkstemp: %s", strerror(errno));
	close(fd);
	atexit(drop_tmp);
	if (nn_model_convert(args, 3))
		exit(1);
	return tmp_qnn;
}
