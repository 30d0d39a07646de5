/* groupfloor: the floor of grouped output, for W3. Runs CMD ARGS... ITEM
 * for each line of stdin, J at once, each job's stdout into an anonymous
 * file in DIR (O_TMPFILE); when a job ends, it starts the next one and
 * copies the ended job's file to stdout with sendfile. That is grouped
 * output in completion order with nothing else: no stderr, no checks, no
 * bound on what waits. What it costs over xargs -P J writing straight
 * into the pipe is what grouping itself costs on this machine.
 *
 * usage: groupfloor J DIR CMD [ARGS...] < items
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct job {
	pid_t pid;
	int fd;
};

static int njobs, running, eof, argc0;
static struct job *jobs;
static char **args;
static const char *dir;

/* fill starts jobs while slots are free and items are left. */
static void fill(void) {
	static char *line;
	static size_t cap;
	while (!eof && running < njobs) {
		ssize_t n = getline(&line, &cap, stdin);
		if (n <= 0) {
			eof = 1;
			return;
		}
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		struct job *j = jobs;
		while (j->pid)
			j++;
		j->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (j->fd < 0) {
			perror(dir);
			exit(2);
		}
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, j->fd, 1);
		args[argc0] = line;
		if (posix_spawn(&j->pid, args[0], &fa, NULL, args, environ) != 0) {
			perror(args[0]);
			exit(2);
		}
		posix_spawn_file_actions_destroy(&fa);
		running++;
	}
}

int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: groupfloor J DIR CMD [ARGS...] < items\n");
		return 2;
	}
	njobs = atoi(argv[1]);
	dir = argv[2];
	argc0 = argc - 3;
	args = calloc(argc0 + 2, sizeof *args);
	memcpy(args, argv + 3, argc0 * sizeof *args);
	jobs = calloc(njobs, sizeof *jobs);
	for (fill(); running > 0; fill()) {
		pid_t pid = wait(NULL);
		for (struct job *j = jobs; j < jobs + njobs; j++) {
			if (j->pid != pid)
				continue;
			int fd = j->fd;
			j->pid = 0;
			running--;
			fill(); /* the next job runs while this one's output is written */
			struct stat st;
			off_t off = 0;
			fstat(fd, &st);
			while (off < st.st_size)
				if (sendfile(1, fd, &off, st.st_size - off) <= 0) {
					perror("sendfile");
					return 1;
				}
			close(fd);
		}
	}
	return 0;
}
