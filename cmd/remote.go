package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/fan-run/fan/internal/pathmsg"
	"github.com/fan-run/fan/remote"
	"github.com/fan-run/fan/runner"
)

// RemoteOptions are the flags that run jobs on other hosts over ssh
// (GNU parallel's -S and its company).
type RemoteOptions struct {
	Logins        []string      // -S, --sshlogin
	LoginFiles    []string      // --sshloginfile, --slf
	SSH           string        // --ssh
	HostTimeout   time.Duration // --host-timeout
	Env           []string      // --env
	Transfer      bool          // --transfer: --transferfile {}
	TransferFiles []string      // --transferfile, --tf
	Return        []string      // --return
	Cleanup       bool          // --cleanup
	TRC           []string      // --trc: --transfer --return FILE --cleanup
	Base          []string      // --basefile, --bf
	FilterHosts   bool          // --filter-hosts
	OnAll         bool          // --onall
	NonAll        bool          // --nonall
}

// defaultHostTimeout is how long jobs wait while no host can be reached.
const defaultHostTimeout = 5 * time.Minute

// addRemoteFlags: running jobs on other hosts.
func addRemoteFlags(f *pflag.FlagSet, o *Options) {
	r := &o.Remote
	stringArrayVar(f, &r.Logins, "sshlogin", "S", "run jobs on the hosts `[N/]LOGIN[,...]` over ssh (N/: job slots there; : is this machine); repeatable")
	stringArrayVar(f, &r.LoginFiles, "sshloginfile", "", "read logins from `FILE`, one a line, and again when it changes (.. is ~/.parallel/sshloginfile, or in $PARALLEL_HOME; - is stdin; also --slf); repeatable")
	f.StringVar(&r.SSH, "ssh", "", "reach the hosts with `CMD` instead of ssh (default: $PARALLEL_SSH, else ssh)")
	stringArrayVar(f, &r.Env, "env", "", "give remote jobs the variable (or exported bash function) `NAME` of fan's environment; repeatable (local jobs have all of it)")
	f.BoolVar(&r.Transfer, "transfer", false, "copy each job's input file {} to its host before it runs (--transferfile {})")
	stringArrayVar(f, &r.TransferFiles, "transferfile", "", "copy `FILE` (it may hold {} and the like) to the job's host before it runs (also --tf); repeatable")
	stringArrayVar(f, &r.Return, "return", "", "copy `FILE` (it may hold {}) back from the job's host when it has ended; repeatable")
	f.BoolVar(&r.Cleanup, "cleanup", false, "remove the files of --transfer and --return from the host once the job is done")
	stringArrayVar(f, &r.TRC, "trc", "", "--transfer --return `FILE` --cleanup; repeatable")
	stringArrayVar(f, &r.Base, "basefile", "", "copy `FILE` to each host once, before its first job, into --workdir or the login's home (removed at the end with --cleanup; also --bf); repeatable")
	f.BoolVar(&r.OnAll, "onall", false, "run every item on every host: one job per host runs them there in turn (up to -j hosts at once, all without -j); its output comes whole, --tag names the host, the exit status counts the hosts where a job failed; a host that cannot be reached is tried once, and its other items fail at once")
	f.BoolVar(&r.NonAll, "nonall", false, "run the command once on every host, with no argument and no input (as --onall)")
	f.BoolVar(&r.FilterHosts, "filter-hosts", false, "before the first job, try every host and drop for the run those that cannot be reached (each named on stderr)")
	durationVar(f, &r.HostTimeout, "host-timeout", "while no host can be reached (a host that has not logged in 20 s after ssh started cannot), wait `D` before giving up the jobs not started (default 5m)")
}

// remoteSpec is a checked remote run: the logins as read at the start, the
// files to read them from again while jobs run, and what the hosts share.
type remoteSpec struct {
	given   []remote.Login // of -S, with the files they name read
	files   []string       // --sshloginfile (and -S ..): read again while running
	fileSet map[string][]remote.Login
	stdin   []remote.Login // --sshloginfile - (read once)
	ssh     []string
	timeout time.Duration
	jobs    Jobs
	// configDir is $PARALLEL_HOME or ~/.parallel, where .. is.
	configDir string
	gaveUp    atomic.Bool // no host could be reached for the timeout
	// transfer and ret name the files each job takes along and brings
	// back; cleanup removes them from the host.
	transfer, ret []string
	cleanup       bool
	// base are the files each host gets once (--basefile), into baseDir.
	base    []string
	baseDir string
	all     *onAll // --onall, --nonall: set by attach
}

// checkRemote reads -S, --sshloginfile and --ssh, and sets c.remote (nil
// without -S), and c.jobs to the slots of the logins as far as they are
// known (for the read-ahead and the descriptor budget).
func (c *Config) checkRemote() error {
	r := &c.Remote
	if err := c.checkEnv(); err != nil {
		return err
	}
	if len(r.Logins) == 0 && len(r.LoginFiles) == 0 {
		for _, name := range []string{"ssh", "host-timeout", "transfer", "transferfile", "return", "cleanup", "trc", "basefile", "filter-hosts", "onall", "nonall"} {
			if c.flagSet(name) {
				return usageErrorf("--%s is for jobs on other hosts: give the hosts with -S or --sshloginfile", name)
			}
		}
		return nil
	}
	spec := &remoteSpec{timeout: defaultHostTimeout, jobs: c.Runner.Jobs, configDir: configDir(c.Env), fileSet: map[string][]remote.Login{}}
	if c.flagSet("host-timeout") {
		spec.timeout = r.HostTimeout // 0: forever
	}
	sshText, flag := r.SSH, "--ssh"
	if !c.flagSet("ssh") {
		sshText, flag = c.Env.Get("PARALLEL_SSH"), "PARALLEL_SSH"
	}
	if sshText != "" {
		words, err := remote.SplitCommand(sshText)
		if err != nil {
			return usageErrorf("%s: %v", flag, err)
		}
		spec.ssh = words
	}
	var files []string
	for _, v := range r.Logins {
		ls, err := remote.ParseLogins(v)
		if err != nil {
			return usageErrorf("%v", err)
		}
		for _, l := range ls {
			if l.File != "" {
				files = append(files, l.File)
			} else {
				spec.given = append(spec.given, l)
			}
		}
	}
	files = append(files, r.LoginFiles...)
	stdinRead := false
	for _, name := range files {
		if name == "-" {
			if stdinRead {
				continue
			}
			ls, err := remote.ReadLoginFile("-", c.Streams.In)
			if err != nil {
				return usageErrorf("%v", err)
			}
			spec.stdin, stdinRead = ls, true
			continue
		}
		path := spec.path(name)
		if _, ok := spec.fileSet[path]; ok {
			continue
		}
		ls, _, err := readLoginFile(path)
		if err != nil {
			return usageErrorf("%v", err)
		}
		spec.files = append(spec.files, path)
		spec.fileSet[path] = ls
	}
	all := spec.logins()
	if len(all) == 0 && len(spec.files) == 0 {
		return usageErrorf("-S and --sshloginfile name no host (give -S host, -S 4/host, or : for this machine)")
	}
	if c.Runner.WorkDir == remote.TempDir && slices.ContainsFunc(all, func(l remote.Login) bool { return l.Local }) {
		return usageErrorf("--workdir ...: a fresh directory per job is made on remote hosts only, and -S includes : (this machine)")
	}
	spec.transfer = slices.Clone(r.TransferFiles)
	if r.Transfer || len(r.TRC) > 0 {
		spec.transfer = append(spec.transfer, "{}")
	}
	spec.ret = append(slices.Clone(r.Return), r.TRC...)
	spec.cleanup = r.Cleanup || len(r.TRC) > 0
	for _, name := range r.Base {
		f, err := os.Open(name)
		if err != nil {
			err = pathmsg.Bare(err)
			return usageErrorf("--basefile: cannot read %q: %v (give a file that each host needs)", name, err)
		}
		f.Close()
	}
	spec.base = r.Base
	if wd := c.Runner.WorkDir; wd != remote.TempDir && wd != "." && !strings.Contains(wd, "{") {
		spec.baseDir = wd
	}
	c.remote = spec
	if c.Remote.OnAll || c.Remote.NonAll {
		return c.checkOnAll(remote.Dedupe(all))
	}
	c.jobs = 0
	for _, l := range all {
		switch n := l.Slots; {
		case n > 0:
			c.jobs += n
		default:
			c.jobs += max(1, c.Runner.Jobs.Of(runner.CPUs())) // a guess until the host says
		}
	}
	c.jobs = min(max(c.jobs, 1), maxJobs)
	return nil
}

// path is where a login file named name is: .. is sshloginfile in
// $PARALLEL_HOME, else ~/.parallel, as in GNU parallel.
func (r *remoteSpec) path(name string) string {
	if name == ".." {
		return filepath.Join(r.configDir, "sshloginfile")
	}
	return name
}

// readLoginFile reads the logins of the file at path, and its content.
func readLoginFile(path string) ([]remote.Login, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		err = pathmsg.Bare(err)
		return nil, nil, fmt.Errorf("--sshloginfile: cannot read %q: %v (give a file of logins, one a line)", path, err)
	}
	ls, err := remote.ReadLoginFile(path, bytes.NewReader(b))
	return ls, b, err
}

// logins are every login: -S's, then the files' in turn, then stdin's.
func (r *remoteSpec) logins() []remote.Login {
	all := slices.Clone(r.given)
	for _, f := range r.files {
		all = append(all, r.fileSet[f]...)
	}
	return append(all, r.stdin...)
}

// attach makes the pool run its jobs on the hosts: their slots, each
// with its executor (the pool's own for ":"), probed at once; a login
// file is read again every second while jobs run. The returned function
// stops that, and closes every host's connections; call it once the pool
// has ended.
func (r *remoteSpec) attach(c *Config, pool *runner.Pool, notify func(string), stopIntake func()) (func(), error) {
	if c.Remote.OnAll || c.Remote.NonAll {
		return r.attachAll(c, pool)
	}
	pool.Transfer, pool.Return = c.texts.transfer, c.texts.ret
	pool.Cleanup = r.cleanup
	jobs := r.jobs
	slots, err := remote.NewSlots(nil, remote.SlotsConfig{
		Config:      remote.Config{SSH: r.ssh},
		Local:       pool.Exec,
		Jobs:        jobs.Of,
		CPUs:        !jobs.Given || jobs.Percent > 0 || jobs.Relative,
		LocalCPUs:   runner.CPUs(),
		Env:         c.envNames(),
		Base:        r.base,
		BaseDir:     r.baseDir,
		CleanBase:   r.cleanup,
		FilterHosts: c.Remote.FilterHosts,
	})
	if err != nil {
		return nil, err
	}
	slots.Notify, slots.HostTimeout = notify, r.timeout
	slots.OnGiveUp = func() {
		r.gaveUp.Store(true)
		stopIntake()
	}
	if err := slots.SetLogins(r.logins()); err != nil {
		slots.Close()
		return nil, err
	}
	if c.Remote.FilterHosts {
		ctx, cancel := context.WithTimeout(context.Background(), filterWait)
		dropped, left := slots.Filter(ctx)
		cancel()
		for _, line := range dropped {
			fmt.Fprintln(c.Streams.Err, line)
		}
		if left == 0 {
			slots.Close()
			return nil, errNoHostLeft
		}
	}
	pool.Slots, pool.Exec = slots, slots
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	if len(r.files) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.reread(ctx, slots, notify)
		}()
	}
	return func() {
		cancel()
		wg.Wait()
		slots.Close()
	}, nil
}

// filterWait bounds how long --filter-hosts waits for the hosts to
// answer: a silent host takes as long as ssh's ConnectTimeout, or this.
const filterWait = 30 * time.Second

// errNoHostLeft: --filter-hosts dropped every host.
var errNoHostLeft = errors.New("--filter-hosts: no host can be reached: not running any job (check the logins with ssh LOGIN true)")

// rereadEvery is how often the login files are read again.
const rereadEvery = time.Second

// reread reads the login files again every rereadEvery until ctx ends,
// and hands the logins to slots when they changed. A file that cannot be
// read or holds a bad login keeps its last logins; the user is told once.
func (r *remoteSpec) reread(ctx context.Context, slots *remote.Slots, notify func(string)) {
	last := map[string][]byte{}
	for _, f := range r.files {
		_, b, _ := readLoginFile(f)
		last[f] = b
	}
	told := map[string]string{}
	t := time.NewTicker(rereadEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		changed := false
		for _, f := range r.files {
			ls, b, err := readLoginFile(f)
			if err != nil {
				if msg := err.Error(); told[f] != msg {
					told[f] = msg
					notify(fmt.Sprintf("fan: %s: keeping its earlier hosts", msg))
				}
				continue
			}
			delete(told, f)
			if !bytes.Equal(b, last[f]) {
				last[f], r.fileSet[f], changed = b, ls, true
			}
		}
		if changed {
			slots.SetLogins(r.logins())
		}
	}
}

// envNames are the variables that remote jobs get from fan's environment
// besides the job's own (runner.JobVars): --env's (a name may be an
// exported bash function's) and --process-slot-var's.
func (c *Config) envNames() []string {
	names := slices.Clone(c.Remote.Env)
	if v := c.Runner.ProcessSlotVar; v != "" {
		names = append(names, v)
	}
	return names
}

// checkEnv refuses an --env that names neither a variable nor a bash
// function exported into fan's environment: a function's name may hold
// what a variable's cannot (my-func), as bash allows, and GNU parallel
// passes it all the same.
func (c *Config) checkEnv() error {
	for _, n := range c.Remote.Env {
		switch {
		case n == "_":
			return usageErrorf("--env _: copying every variable that ~/.parallel/ignored_vars does not list is not supported (name the variables: --env A --env B)")
		case !envName().MatchString(n) && !runner.ExportedFunctions(c.Env)[n]:
			return usageErrorf("--env: %q is neither a variable name nor a bash function exported into fan's environment (give one name, e.g. --env PATH, or export -f the function)", n)
		}
	}
	return nil
}

var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
