package runner

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// tasksPerJob is the tasks a running job is taken to hold under a low
// process limit: its own, and a child (a shell job's command).
const tasksPerJob = 2

// threadReserve is the tasks fan keeps for its own threads under a low
// process limit (the runtime's, and a few for system calls in flight).
const threadReserve = 16

// processRoom tells how many more tasks (processes and threads) the user
// may start under the process limit (ulimit -u), and the limit. It is
// unlimited (ok false) for root, without a limit, or when the limit is far
// above what jobs could need; only then does it count the user's tasks in
// /proc. perJob is the tasks a job may hold at once.
func processRoom(jobs, perJob int) (room, limit int, ok bool) {
	var rl unix.Rlimit
	if os.Geteuid() == 0 || unix.Getrlimit(unix.RLIMIT_NPROC, &rl) != nil || rl.Cur == unix.RLIM_INFINITY {
		return 0, 0, false
	}
	limit = int(min(rl.Cur, 1<<30))
	if jobs > 0 && limit > perJob*jobs+256 {
		return 0, limit, false
	}
	return limit - userTasks(os.Getuid()) - threadReserve, limit, true
}

// userTasks counts the tasks (threads) of the processes whose real user
// is uid: what the process limit counts.
func userTasks(uid int) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/status")
	want := strconv.Itoa(uid)
	n := 0
	for _, d := range dirs {
		f, err := os.Open(d)
		if err != nil {
			continue
		}
		mine, threads := false, 1
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "Uid:"); ok {
				fields := strings.Fields(v)
				mine = len(fields) > 0 && fields[0] == want
			} else if v, ok := strings.CutPrefix(line, "Threads:"); ok {
				threads, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		f.Close()
		if mine {
			n += threads
		}
	}
	return n
}

// fitProcesses lowers -j (jobs; 0 is no limit) to what room, the tasks
// the user may still start, lets run at perJob tasks a job, and at least 1.
func fitProcesses(jobs, perJob, room int) int {
	most := max(1, room/perJob)
	if jobs == 0 || jobs > most {
		return most
	}
	return jobs
}
