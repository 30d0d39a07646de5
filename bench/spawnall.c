/* spawnall: the machine's floor for -j 1000. Starts N copies of one
 * command at once with posix_spawn, then waits for them all: no limit,
 * no capture, no input.
 *
 * usage: spawnall N PROG [ARGS...]     e.g. spawnall 1000 /bin/sleep 1
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: spawnall N PROG [ARGS...]\n");
		return 2;
	}
	long n = atol(argv[1]), started = 0;
	for (long i = 0; i < n; i++) {
		pid_t pid;
		if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ) == 0)
			started++;
	}
	for (long i = 0; i < started; i++)
		wait(NULL);
	return started == n ? 0 : 1;
}
