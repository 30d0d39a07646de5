/* spawnall: the machine's floor for -j 1000. Starts N copies of one
 * command at once with posix_spawn, then waits for them all: no limit,
 * no capture, no input.
 *
 * With -k K it also opens K close-on-exec descriptors before each start
 * and keeps them, as a runner that holds descriptors for each running
 * job (capture pipes, a process handle) must: every start copies the
 * descriptor table and every exec closes the copies, so the cost of a
 * start grows with the jobs already running.
 *
 * usage: spawnall [-k K] N PROG [ARGS...]   e.g. spawnall 1000 /bin/sleep 1
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv) {
	int keep = 0;
	if (argc > 2 && strcmp(argv[1], "-k") == 0) {
		keep = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: spawnall [-k K] N PROG [ARGS...]\n");
		return 2;
	}
	long n = atol(argv[1]), started = 0;
	for (long i = 0; i < n; i++) {
		for (int k = 0; k < keep; k++)
			if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0)
				return 1;
		pid_t pid;
		if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ) == 0)
			started++;
	}
	for (long i = 0; i < started; i++)
		wait(NULL);
	return started == n ? 0 : 1;
}
