package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// The commands pidscgroup and tmpfs (see scriptCmds) give a script a
// scarce resource of its own, for the exhaustion tests. Both need root
// (make test runs as root in CI, where ulimit -u binds no one): a script
// skips, saying why, unless the conditions [pidscgroup] and [tmpfs] say
// the machine allows them.

// scriptCondition answers the scripts' own conditions beside testscript's:
//
//	[pidscgroup]  a pids cgroup can be made
//	[tmpfs]       a tmpfs can be mounted
//	[file:PATH]   PATH exists on this machine (a package's file, say)
func scriptCondition(cond string) (bool, error) {
	if path, ok := strings.CutPrefix(cond, "file:"); ok {
		_, err := os.Stat(path)
		return err == nil, nil
	}
	switch cond {
	case "pidscgroup":
		_, err := pidsParent()
		return err == nil, nil
	case "tmpfs":
		return canMount(), nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// canMount reports whether this process may mount a tmpfs, by trying once.
var canMount = sync.OnceValue(func() bool {
	dir, err := os.MkdirTemp("", "fan-mount-")
	if err != nil {
		return false
	}
	defer os.Remove(dir)
	if unix.Mount("tmpfs", dir, "tmpfs", 0, "size=64k") != nil {
		return false
	}
	unix.Unmount(dir, unix.MNT_DETACH)
	return true
})

func cmdPidsCgroup(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pidscgroup N")
	}
	if _, err := strconv.Atoi(args[0]); err != nil {
		ts.Fatalf("pidscgroup: %q is not a number", args[0])
	}
	parent, err := pidsParent()
	ts.Check(err) // the script checks [pidscgroup] first
	dir := filepath.Join(parent, "fan-test-"+strconv.Itoa(os.Getpid())+"-"+filepath.Base(ts.Getenv("WORK")))
	ts.Check(os.Mkdir(dir, 0o755))
	ts.Defer(func() { removeCgroup(dir) })
	ts.Check(os.WriteFile(filepath.Join(dir, "pids.max"), []byte(args[0]), 0o644))
	ts.Setenv("CGROUP", dir)
}

// pidsParent is a cgroup directory under which a pids cgroup can be made:
// cgroup v1's pids hierarchy, or the v2 root when it delegates pids.
func pidsParent() (string, error) {
	if os.Geteuid() != 0 {
		return "", errors.New("not root")
	}
	if st, err := os.Stat("/sys/fs/cgroup/pids"); err == nil && st.IsDir() {
		return "/sys/fs/cgroup/pids", nil
	}
	ctl, err := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control")
	if err == nil && strings.Contains(" "+string(ctl)+" ", " pids ") {
		return "/sys/fs/cgroup", nil
	}
	return "", errors.New("neither a v1 pids hierarchy nor v2 delegating pids")
}

// removeCgroup kills what is left in the cgroup dir (the script's own
// processes) and removes it.
func removeCgroup(dir string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		for _, f := range strings.Fields(string(procs)) {
			if pid, err := strconv.Atoi(f); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if os.Remove(dir) == nil || time.Now().After(deadline) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func cmdTmpfs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tmpfs DIR SIZE")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.Mkdir(dir, 0o755))
	ts.Check(unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+args[1])) // the script checks [tmpfs] first
	ts.Defer(func() { unix.Unmount(dir, unix.MNT_DETACH) })
}
