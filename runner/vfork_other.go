//go:build linux && !amd64

package runner

// vforkSpawn is written for amd64 only (vfork_linux_amd64.s): elsewhere
// every job starts through syscall.ForkExec.
func vforkSpawn(c *Command, env []string, stdio []uintptr, nofile *jobLimit) (pid, pidfd int, err error) {
	return 0, -1, errVforkUnsupported
}
