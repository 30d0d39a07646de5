package remote_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/internal/sshtest"
	"github.com/fan-run/fan/remote"
	"github.com/fan-run/fan/runner"
)

// hosts starts n test hosts and returns them with a connected Host for
// each, closed when t ends. c.SSH, when given, holds options for ssh
// besides the hosts' configuration (an option on ssh's command line wins
// over the same one in its configuration file).
func hosts(t *testing.T, n int, o sshtest.Options, c remote.Config) (*sshtest.Hosts, []*remote.Host) {
	t.Helper()
	hs := sshtest.Start(t, n, o)
	c.SSH = append(hs.SSH(), c.SSH...)
	var out []*remote.Host
	for _, h := range hs.Hosts {
		l, err := remote.ParseLogin(h.Name)
		if err != nil {
			t.Fatal(err)
		}
		rh, err := remote.NewHost(l, c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := rh.Close(); err != nil {
				t.Error(err)
			}
		})
		out = append(out, rh)
	}
	return hs, out
}

// shell renders a shell command line template for item args, as the pool
// would.
func shell(template string, args ...string) *runner.Command {
	return render(runner.TemplateOptions{Words: []string{template}}, args)
}

// bashJob renders template for item args as the pool would with dashFunc
// exported: run by the bash at path, as a job that may call an exported
// function is.
func bashJob(path, template string, args ...string) *runner.Command {
	o := runner.TemplateOptions{Words: []string{template}, Shell: path, Functions: runner.ExportedFunctions([]string{dashFunc})}
	return render(o, args)
}

// dashFunc is bash's export -f of a function named as no variable could
// be: my-func, which echoes its argument in brackets.
const dashFunc = "BASH_FUNC_my-func%%=() {  echo \"my-func got [$1]\"\n}"

// render renders a template of o for item args, in slot 1.
func render(o runner.TemplateOptions, args []string) *runner.Command {
	c := runner.NewTemplate(o).Render(&input.Item{Seq: 1, Args: args}, runner.Slot{N: 1})
	return &c
}

// job is one attempt's outcome.
type job struct {
	exit           runner.Exit
	err            error
	stdout, stderr string
	took           time.Duration
}

// attempt builds an attempt of c with output files in t's temp dir.
func attempt(t *testing.T, c *runner.Command, env ...string) (*runner.Attempt, func() (string, string)) {
	return attemptB(t, c, env...)
}

func attemptB(t testing.TB, c *runner.Command, env ...string) (*runner.Attempt, func() (string, string)) {
	t.Helper()
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	errf, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close(); errf.Close() })
	read := func() (string, string) {
		o, _ := os.ReadFile(out.Name())
		e, _ := os.ReadFile(errf.Name())
		return string(o), string(e)
	}
	return &runner.Attempt{Command: c, Env: env, Stdout: out, Stderr: errf}, read
}

var seq = runner.TermSeq{{Signal: 15, Wait: 200 * time.Millisecond}, {Signal: 9, Wait: 25 * time.Millisecond}}

// run runs c to its end on e; stop, when it ends, terminates it.
func run(t *testing.T, e runner.Executor, c *runner.Command, stop context.Context, env ...string) job {
	t.Helper()
	if stop == nil {
		stop = context.Background()
	}
	a, read := attempt(t, c, env...)
	begin := time.Now()
	p, err := e.Start(a)
	if err != nil {
		return job{err: err, took: time.Since(begin)}
	}
	x, err := p.Wait(stop, context.Background(), seq)
	j := job{exit: x, err: err, took: time.Since(begin)}
	j.stdout, j.stderr = read()
	return j
}

// started starts c on a new executor for h, failing t if it cannot, and
// returns the executor, the process and what reads its output.
func started(t *testing.T, h *remote.Host, c *runner.Command) (*remote.Executor, runner.Process, func() (string, string)) {
	t.Helper()
	e := remote.NewExecutor(h, nil)
	a, read := attempt(t, c)
	p, err := e.Start(a)
	if err != nil {
		t.Fatal(err)
	}
	return e, p, read
}
