/* sigdef: the C multi-thread spawn floor (K threads, each posix_spawn of
 * /bin/true in a new process group and waitpid, as the shared spawnlimit's
 * threads mode), optionally asking posix_spawn to reset every signal to
 * its default in the child (SIG=1: POSIX_SPAWN_SETSIGDEF with a full set,
 * 63 rt_sigaction calls), the work Go's child does that a C child does not.
 *
 * usage: gcc -O2 -pthread -o sigdef bench/sigdef.c && ./sigdef N K SIG */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
extern char **environ;
static long n, next; static int sigdef;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void *worker(void *a) {
	(void)a;
	char *argv[] = {"/bin/true", NULL};
	posix_spawnattr_t at; posix_spawnattr_init(&at);
	if (sigdef) { sigset_t all; sigfillset(&all); sigdelset(&all, SIGKILL); sigdelset(&all, SIGSTOP);
		posix_spawnattr_setsigdefault(&at, &all); posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP); }
	else posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	for (;;) {
		pthread_mutex_lock(&mu); long m = next < n ? next++ : -1; pthread_mutex_unlock(&mu);
		if (m < 0) break;
		pid_t pid; int st;
		if (posix_spawn(&pid, argv[0], NULL, &at, argv, environ)) { perror("spawn"); exit(1); }
		waitpid(pid, &st, 0);
	}
	return NULL;
}
int main(int c, char **v) {
	n = atol(v[1]); int k = atoi(v[2]); sigdef = atoi(v[3]);
	struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_t th[64]; for (int i = 0; i < k; i++) pthread_create(&th[i], 0, worker, 0);
	for (int i = 0; i < k; i++) pthread_join(th[i], 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "sigdef=%d k=%d secs=%.3f\n", sigdef, k, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
}
