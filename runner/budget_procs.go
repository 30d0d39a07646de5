package runner

import (
	"bufio"
	"fmt"
	"os"
	"path"
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

// processRoom tells how many more tasks (processes and threads) fan may
// start under the user's process limit (ulimit -u) and the task limit of
// its cgroups (pids.max, which binds root too), whichever leaves less, and
// names that limit. It is unlimited (ok false) when neither is low: see
// userRoom and cgroupRoom. Once a limit is reached, fork and the runtime's
// own thread creation fail with EAGAIN, and the runtime cannot survive
// the latter: fan must not get there by itself.
func processRoom(jobs, perJob int) (room int, limit string, ok bool) {
	if r, n, low := userRoom(jobs, perJob); low {
		room, limit, ok = r, fmt.Sprintf("the process limit (ulimit -u %d, with the user's other processes)", n), true
	}
	if r, n, low := cgroupRoom(hostCgroups(), jobs, perJob); low && (!ok || r < room) {
		room, limit, ok = r, fmt.Sprintf("the task limit of fan's cgroup (pids.max %d, with its other tasks)", n), true
	}
	return room, limit, ok
}

// cgroupRoom is how many more tasks fan's cgroup and its ancestors let
// start (pids.max less pids.current, the least of them, less
// threadReserve), under the cgroups g, and that cgroup's limit. It is
// unlimited (ok false) without a limit, or when the room is far above
// what jobs could need.
func cgroupRoom(g *cgroups, jobs, perJob int) (room, limit int, ok bool) {
	for _, dir := range g.dirs("pids") {
		most, ok1 := readNumber(g.fsys, path.Join(dir, "pids.max"))
		now, ok2 := readNumber(g.fsys, path.Join(dir, "pids.current"))
		if !ok1 || !ok2 || most == noLimit {
			continue
		}
		if r := int(most - now); !ok || r < room {
			room, limit, ok = r, int(most), true
		}
	}
	if !ok || jobs > 0 && room > perJob*jobs+256 {
		return 0, 0, false
	}
	return room - threadReserve, limit, true
}

// userRoom tells how many more tasks (processes and threads) the user
// may start under the process limit (ulimit -u), and the limit. It is
// unlimited (ok false) for root, without a limit, or when the limit is far
// above what jobs could need; only then does it count the user's tasks in
// /proc. perJob is the tasks a job may hold at once.
func userRoom(jobs, perJob int) (room, limit int, ok bool) {
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
