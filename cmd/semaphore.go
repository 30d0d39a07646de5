package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/fan-run/fan/output"
	"github.com/fan-run/fan/runner"
	"github.com/fan-run/fan/semaphore"
)

// --semaphore, and fan invoked as sem, is GNU parallel's sem: run one
// command once a slot of a counting semaphore shared by every fan with
// the same --id is free (-j slots, default 1), in the background unless
// --fg. The slots are files under ~/.parallel/semaphores (package
// semaphore), each held by a lock the kernel drops when its holder ends.
// In the background, a fan of its own holds the slot while the command
// runs (semHeldVar), so that the first fan can return at once.

// SemName is the name fan answers to as GNU parallel's sem (a symlink
// named sem, which make install creates).
const SemName = "sem"

// semHeldVar, in the environment of the fan that holds a slot for a
// command run in the background, names the descriptor of the slot's
// locked file, or is semNoSlot when --semaphore-timeout ran out and the
// command runs without one.
const (
	semHeldVar = "FAN_SEM_HELD"
	semNoSlot  = "none"
)

// SemaphoreOptions are the flags of --semaphore.
type SemaphoreOptions struct {
	On      bool          // --semaphore (or invoked as sem)
	ID      string        // --id: which semaphore
	Fg, Bg  bool          // --fg, --bg: in the foreground (exit status the command's), or not
	Wait    bool          // --wait: wait for every command holding the semaphore
	Timeout time.Duration // --semaphore-timeout: above 0, run anyway after it; below, give up after -Timeout
}

func addSemaphoreFlags(f *pflag.FlagSet, o *Options) {
	s := &o.Sem
	f.BoolVar(&s.On, "semaphore", false, "run the command once a slot of a semaphore shared by every fan with the same --id is free (-j slots, default 1), as GNU parallel's sem; in the background unless --fg")
	f.StringVar(&s.ID, "id", "", "the semaphore's `NAME` (default: the terminal's name); implies --semaphore")
	f.BoolVar(&s.Fg, "fg", false, "with --semaphore: run the command in the foreground, fan's exit status its own")
	f.BoolVar(&s.Bg, "bg", false, "with --semaphore: run the command in the background (the default)")
	f.BoolVar(&s.Wait, "wait", false, "with --semaphore: wait until every command holding the semaphore has ended")
	f.Var(newValue("semaphore-timeout", "", &s.Timeout, parseSemTimeout), "semaphore-timeout",
		"with --semaphore: after `D` with no slot free, run anyway (-D: give up, exit 1); also --st")
}

// parseSemTimeout reads --semaphore-timeout as GNU parallel's sem reads
// --semaphoretimeout: D, a duration after which the command runs without
// a slot, or -D, after which sem gives up. 0 waits for a slot for ever.
func parseSemTimeout(s string) (time.Duration, error) {
	abs, giveUp := strings.CutPrefix(s, "-")
	d, err := runner.ParseDuration(abs)
	if err != nil || giveUp && strings.HasPrefix(abs, "+") {
		return 0, fmt.Errorf("%q is not a duration (try 30 to run anyway after 30 s, or -30 to give up after 30 s; 2m, 1h30m and 250ms work too)", s)
	}
	if giveUp {
		return -d, nil
	}
	return d, nil
}

// semSpec is a checked --semaphore.
type semSpec struct {
	sem     semaphore.Sem
	id      string
	fg      bool
	wait    bool
	timeout time.Duration // above 0: run anyway after it; below: give up
	line    string        // the command line; "" with --wait alone
}

// checkSemaphore checks the flags of --semaphore (any of them asks for
// it, as in GNU parallel) and derives c.sem.
func (c *Config) checkSemaphore() error {
	s := &c.Sem
	on := s.On
	for _, name := range []string{"id", "fg", "bg", "wait", "semaphore-timeout"} {
		on = on || c.flagSet(name)
	}
	if !on {
		return nil
	}
	switch {
	case c.Input.Pipe.on() || c.Xargs:
		return usageErrorf("--semaphore runs one command: it does not go with --pipe or --xargs")
	case len(c.Input.Sources) > 0 || len(c.Input.ArgFiles) > 0:
		return usageErrorf("--semaphore runs one command, not one per item: drop the ::: and :::: lists and -a (run sem once per item instead)")
	case s.Fg && s.Bg:
		return usageErrorf("--fg and --bg cannot be used together (pick one)")
	case len(c.Runner.Command) == 0 && !s.Wait:
		return usageErrorf("--semaphore needs a command to run (e.g. sem -j 2 gzip big.log), or --wait")
	}
	spec := &semSpec{id: s.ID, fg: s.Fg, wait: s.Wait, timeout: s.Timeout, line: strings.Join(c.Runner.Command, " ")}
	if spec.id == "" {
		spec.id = ttyName(c.Streams.In)
	}
	slots := 1 // as sem's default
	if c.Runner.Jobs.Given {
		slots = max(c.jobs, 1)
	}
	spec.sem = semaphore.Sem{Dir: filepath.Join(configDir(c.Env), "semaphores", "id-"+safeName(spec.id)), Slots: slots}
	c.sem = spec
	return nil
}

// ttyName names the default semaphore after the terminal on stdin, as
// GNU parallel names it after tty(1); "notty" without one.
func ttyName(stdin any) string {
	if f, ok := stdin.(*os.File); ok && output.IsTerminalInput(f) {
		if name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil {
			return name
		}
	}
	return "notty"
}

var unsafeChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_.-]`) })

// safeName makes an id a file name: "/dev/pts/3" is "_dev_pts_3".
func safeName(id string) string {
	id = unsafeChars().ReplaceAllString(id, "_")
	if id == "" || id == "." || id == ".." {
		id = "_" + id
	}
	return id
}

// runSemaphore runs --semaphore: waits for a slot, then runs the command
// in the foreground, or hands it and the slot to a fan in the background.
func runSemaphore(c *Config) outcome {
	s := c.sem
	ctx := context.Background()
	if s.line == "" { // --wait alone
		return semOutcome(0, s.sem.Wait(ctx))
	}
	if fd := c.Env.Get(semHeldVar); fd != "" {
		// The fan in the background: the slot is held on fd, if any.
		if fd != semNoSlot {
			n, err := strconv.Atoi(fd)
			if err != nil {
				return semOutcome(0, fmt.Errorf("%s=%q is not a descriptor", semHeldVar, fd))
			}
			// Close-on-exec: the slot is the command's, not that of
			// what it leaves running (sleep 100 &), as in GNU sem.
			syscall.CloseOnExec(n)
			held := os.NewFile(uintptr(n), "slot")
			defer held.Close()
		}
		return semOutcome(s.runGrouped(c))
	}
	h, err := s.sem.Acquire(ctx, max(s.timeout, -s.timeout))
	switch {
	case errors.Is(err, semaphore.ErrTimeout) && s.timeout < 0:
		fmt.Fprintf(c.Streams.Err, "fan: semaphore %s: no slot free after %v: giving up (as --semaphore-timeout %v asks)\n", s.id, -s.timeout, s.timeout)
		return semOutcome(1, nil)
	case errors.Is(err, semaphore.ErrTimeout):
		h = nil // run anyway, as GNU parallel does
	case err != nil:
		return semOutcome(0, fmt.Errorf("semaphore %s: %w", s.id, err))
	}
	release := func() { // h is nil when the timeout ran out
		if h != nil {
			h.Close()
		}
	}
	defer release()
	if !s.fg {
		err := s.startHolder(c, h)
		if err == nil && s.wait {
			release()
			err = s.sem.Wait(ctx)
		}
		return semOutcome(0, err)
	}
	status, err := s.runHere(c)
	if err == nil && s.wait {
		release()
		err = s.sem.Wait(ctx)
	}
	return semOutcome(status, err)
}

// runHere runs the command in the foreground, with fan's stdin, and
// returns its exit status (128+N for a signal N, as a shell has it). The
// command's shell dies with fan, as a job's main process does (its
// parent-death signal): a fan killed with SIGKILL frees its slot, and the
// command must not run on beside the next holder.
func (s *semSpec) runHere(c *Config) (int, error) {
	cmd := exec.Command(c.shellPath, "-c", s.line)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Streams.In, c.Streams.Out, c.Streams.Err
	cmd.Env = withoutVar(c.Env, semHeldVar)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("cannot run %s: %w", c.shellPath, err)
	}
	return 0, nil
}

// runGrouped runs the command as runHere does, its stdout and stderr
// each written whole when it ends, as GNU parallel's sem writes those of
// a command in the background, so that two of them never mix lines.
func (s *semSpec) runGrouped(c *Config) (int, error) {
	var files [2]*os.File
	for i := range files {
		f, err := os.CreateTemp(c.tmpDir(), "fan-sem")
		if err != nil {
			return s.runHere(c) // no room to hold it: pass it straight on
		}
		os.Remove(f.Name())
		defer f.Close()
		files[i] = f
	}
	out := *c
	out.Streams.Out, out.Streams.Err = files[0], files[1]
	status, err := s.runHere(&out)
	for i, dst := range []*os.File{c.Streams.Out, c.Streams.Err} {
		if _, serr := files[i].Seek(0, 0); serr == nil {
			io.Copy(dst, files[i])
		}
	}
	return status, err
}

// startHolder starts a fan of its own in the background that holds the
// slot h (nil: none, after a --semaphore-timeout) while the command runs.
func (s *semSpec) startHolder(c *Config, h *semaphore.Holder) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find fan itself to run the command in the background: %w (use --fg)", err)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer devnull.Close()
	args := []string{"--plain", "--semaphore", "--fg", "--id", s.id, "--shell", c.shellPath, "--", s.line}
	cmd := exec.Command(self, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, c.Streams.Out, c.Streams.Err
	cmd.Env = withoutVar(c.Env, semHeldVar)
	if h != nil {
		cmd.ExtraFiles = []*os.File{h.File}
		cmd.Env = append(cmd.Env, semHeldVar+"=3")
	} else {
		cmd.Env = append(cmd.Env, semHeldVar+"="+semNoSlot) // it must not wait for one
	}
	// Not in fan's process group: Ctrl-C for the next foreground job does
	// not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start the command in the background: %w", err)
	}
	return cmd.Process.Release()
}

// withoutVar is env without the variable name.
func withoutVar(env Env, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// semOutcome is the outcome of --semaphore: the command's exit status,
// or fan's error.
func semOutcome(status int, err error) outcome {
	if err != nil {
		return outcome{err: err}
	}
	return outcome{status: &status}
}
