package cmd

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/output"
	"github.com/fan-run/fan/runner"
)

// parse turns argv into a checked Config as Main does, with a RunFunc
// that keeps the Config instead of running it.
func parse(t *testing.T, env Env, argv ...string) (*Config, error) {
	t.Helper()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { null.Close() })
	var got *Config
	c := NewCommand(Streams{In: strings.NewReader(""), Out: null, Err: null}, env, func(cfg *Config) error {
		got = cfg
		return nil
	})
	err = execute(c, env, argv)
	return got, err
}

// TestCommandConfig: each flag lands, typed, in its stage's options, and
// check derives from them what the stages are built from.
func TestCommandConfig(t *testing.T) {
	for _, c := range []struct {
		argv []string
		get  func(*Config) any
		want any
	}{
		// -j in its forms; --xargs runs one at a time unless told.
		{[]string{"-j", "3", "echo"}, func(c *Config) any { return c.jobs }, 3},
		{[]string{"-P", "0", "echo"}, func(c *Config) any { return c.jobs }, 0},
		{[]string{"-j", "+2", "echo"}, func(c *Config) any { return c.Runner.Jobs }, Jobs{Given: true, Relative: true, Delta: 2, text: "+2"}},
		{[]string{"-j", "50%", "echo"}, func(c *Config) any { return c.Runner.Jobs.Percent }, 50.0},
		{[]string{"--xargs", "echo"}, func(c *Config) any { return c.jobs }, 1},
		{[]string{"--xargs", "-P", "4", "echo"}, func(c *Config) any { return c.jobs }, 4},
		// One job at a time, for sure (a job may then write straight to
		// stdout): -j1, but not a limit that may change or --xargs's.
		{[]string{"-j", "1", "echo"}, func(c *Config) any { return c.serial() }, true},
		{[]string{"-j", "2", "echo"}, func(c *Config) any { return c.serial() }, false},
		{[]string{"-j", "auto", "echo"}, func(c *Config) any { return c.serial() }, false},
		{[]string{"--xargs", "echo"}, func(c *Config) any { return c.serial() }, false},
		// Durations, --timeout, --halt, --termseq: parsed as they are read.
		{[]string{"--delay", "1m30", "echo"}, func(c *Config) any { return c.Runner.Delay }, 90 * time.Second},
		{[]string{"--retry-delay", "250ms", "echo"}, func(c *Config) any { return c.Runner.RetryDelay }, 250 * time.Millisecond},
		{[]string{"--drain-timeout", "2", "echo"}, func(c *Config) any { return c.DrainTimeout }, 2 * time.Second},
		{[]string{"--timeout", "1.5s", "echo"}, func(c *Config) any { return c.Runner.Timeout }, runner.Timeout{Fixed: 1500 * time.Millisecond}},
		{[]string{"--timeout", "200%", "echo"}, func(c *Config) any { return c.Runner.Timeout }, runner.Timeout{Percent: 200}},
		{[]string{"--halt", "now,fail=1", "echo"}, func(c *Config) any { return c.Runner.Halt }, runner.Halt{Now: true, Why: "fail", Count: 1}},
		{[]string{"--halt-on-error", "2", "echo"}, func(c *Config) any { return c.Runner.Halt }, runner.Halt{Now: true, Why: "fail", Count: 1}},
		{[]string{"echo"}, func(c *Config) any { return c.Runner.Halt }, runner.Halt{}},
		{[]string{"--termseq", "INT,10,KILL", "echo"}, func(c *Config) any { return c.Runner.TermSeq }, runner.TermSeq{{Signal: 2, Wait: 10 * time.Millisecond}, {Signal: 9}}},
		{[]string{"echo"}, func(c *Config) any { return len(c.Runner.TermSeq) }, 4},
		{[]string{"--retries", "3", "echo"}, func(c *Config) any { return c.Runner.Retries }, 3},
		// Input: delimiters, columns, trimming, sources, batching.
		{[]string{"-0", "echo"}, func(c *Config) any { return c.delim }, []byte{0}},
		{[]string{"-d", `\t`, "echo"}, func(c *Config) any { return c.delim }, []byte{'\t'}},
		{[]string{"--xargs", "-d", `\x41`, "echo"}, func(c *Config) any { return c.delim }, []byte{'A'}},
		{[]string{"echo"}, func(c *Config) any { return c.delim }, []byte{'\n'}},
		{[]string{"--colsep", ",+", "echo"}, func(c *Config) any { return c.Input.Colsep.String() }, ",+"},
		{[]string{"--colsep", ",", "echo"}, func(c *Config) any { return c.trim }, input.Trim{Left: true, Right: true}},
		{[]string{"--colsep", ",", "--trim", "r", "echo"}, func(c *Config) any { return c.trim }, input.Trim{Right: true}},
		{[]string{"echo", ":::", "a", "b", "::::+", "f"}, func(c *Config) any { return c.sources },
			[]input.SourceSpec{{List: []string{"a", "b"}}, {File: "f", Linked: true}}},
		{[]string{"-a", "x", "echo", ":::", "a"}, func(c *Config) any { return c.sources },
			[]input.SourceSpec{{File: "x"}, {List: []string{"a"}}}},
		{[]string{"echo"}, func(c *Config) any { return c.sources }, []input.SourceSpec{{Stdin: true}}},
		{[]string{"--arg-sep", "AA", "echo", "AA", "a", ":::", "b"}, func(c *Config) any { return c.Runner.Command }, []string{"echo"}},
		{[]string{"--xargs", "echo", ":::", "a"}, func(c *Config) any { return c.Runner.Command }, []string{"echo", ":::", "a"}},
		{[]string{"-n", "0", "echo"}, func(c *Config) any { return [2]any{c.maxArgs, c.noArgs} }, [2]any{0, true}},
		{[]string{"-N", "2", "echo"}, func(c *Config) any { return [2]any{c.maxArgs, c.noArgs} }, [2]any{2, false}},
		{[]string{"-n", "010", "echo"}, func(c *Config) any { return c.maxArgs }, 10}, // decimal, as GNU parallel and xargs
		{[]string{"-X", "-j", "2", "echo"}, func(c *Config) any { return *c.pack }, packSpec{spread: 2}},
		{[]string{"-s", "100", "echo"}, func(c *Config) any { return *c.pack }, packSpec{maxArgs: 1, maxChars: 100}},
		{[]string{"--xargs", "-I", "{}", "-n", "1", "echo"}, func(c *Config) any { return [2]any{c.replace, *c.pack} },
			[2]any{"{}", packSpec{exact: true, whole: true}}},
		{[]string{"--xargs", "-I", "{}", "-L", "2", "echo"}, func(c *Config) any { return [2]any{c.replace, *c.pack} },
			[2]any{"", packSpec{maxLines: 2, exact: true, runEmpty: true}}},
		{[]string{"--xargs", "-i", "echo"}, func(c *Config) any { return c.replace }, "{}"},
		// Output: modes, tags, books, the display.
		{[]string{"-k", "--lb", "echo"}, func(c *Config) any { return [2]bool{c.Output.KeepOrder, c.lineBuffer} }, [2]bool{true, true}},
		{[]string{"--line-buffer", "--results", "r.csv", "echo"}, func(c *Config) any { return [2]bool{c.Output.LineBuffer, c.lineBuffer} }, [2]bool{true, false}},
		{[]string{"--tagstring", `{}\t`, "echo"}, func(c *Config) any { return c.Output.TagString }, "{}\t"},
		{[]string{"--joblog", "+log", "echo"}, func(c *Config) any { return c.Output.Joblog }, Joblog{Path: "log", Append: true}},
		{[]string{"--joblog", "+", "echo"}, func(c *Config) any { return c.Output.Joblog }, Joblog{Path: "+"}},
		{[]string{"--color", "never", "--eta", "echo"}, func(c *Config) any { return c.Output.Display }, output.DisplayFlags{Color: output.ColorNever, ETA: true}},
		{[]string{"--keep", "--res", "out", "echo"}, func(c *Config) any { return [2]any{c.Output.KeepOrder, c.Output.Results} }, [2]any{true, "out"}},
	} {
		cfg, err := parse(t, nil, c.argv...)
		if err != nil {
			t.Errorf("%q: %v", c.argv, err)
			continue
		}
		if got := c.get(cfg); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %#v, want %#v", c.argv, got, c.want)
		}
	}
}

// TestCommandErrors: a bad value fails as it is read, a bad combination in
// check, each with its one message and the exit status Main gives it
// (xargs's 1 under --xargs, wherever --xargs stands among the flags).
func TestCommandErrors(t *testing.T) {
	for _, c := range []struct {
		argv   string
		msg    string
		status int
	}{
		{"-j abc echo", `--jobs: "abc" is not a job count nor a file holding one (try -j 4, -j 50%, -j +1, -j -1, -j 0 for no limit, or -j auto)`, 255},
		{"-j auto:5:2 echo", `--jobs: "auto:5:2": MIN 5 is above MAX 2 (try -j auto:2:5)`, 255},
		{"-j auto:0:2 echo", `--jobs: "auto:0:2": MIN and MAX of -j auto:MIN:MAX are job counts of 1 or more (try -j auto:2:16)`, 255},
		{"-P auto --xargs echo", `--jobs: "auto" is not a job count (try -j 4, -j 50%, -j +1, -j -1 or -j 0 for no limit)`, 1},
		{"--load x echo", `--load: "x" is not a number of processes (try --load 4, --load 100% for one per CPU, or --load +2)`, 255},
		{"--memfree -1G echo", `--memfree: "-1G" is negative (give a size such as 2G)`, 255},
		{"-S 1/: --load 2 echo", `--load measures this machine, and jobs run on the hosts of -S: give each host its slots as N/LOGIN instead`, 255},
		{"-j abc --xargs echo", `--jobs: "abc" is not a job count (try -j 4, -j 50%, -j +1, -j -1 or -j 0 for no limit)`, 1},
		{"--xargs -P -1 echo", `--max-procs: "-1" is not a count (xargs wants -P N, or -P 0 for as many as possible)`, 1},
		{"-P 5% --xargs echo", `--max-procs: "5%" is not a count (xargs wants -P N, or -P 0 for as many as possible)`, 1},
		{"-j -x echo", `--jobs: "-x" is not a job count (try -j 4, -j 50%, -j +1, -j -1 or -j 0 for no limit)`, 255},
		{"--max-procs= echo", `--max-procs: the value is empty (give one, see fan --help)`, 255},
		{"--halt bad echo", `--halt: "bad" is not a halt condition (try now,fail=1 or soon,fail=10%, or never)`, 255},
		{"--termseq TERM,x echo", `--termseq: "x" is not a number of milliseconds (try TERM,200,KILL,25)`, 255},
		{"--timeout= echo", `--timeout: the value is empty (give one, see fan --help)`, 255},
		{"--semaphore-timeout x echo", `--semaphore-timeout: "x" is not a duration (try 30 to run anyway after 30 s, or -30 to give up after 30 s; 2m, 1h30m and 250ms work too)`, 255},
		{"--st=--5 echo", `--semaphore-timeout: "--5" is not a duration (try 30 to run anyway after 30 s, or -30 to give up after 30 s; 2m, 1h30m and 250ms work too)`, 255},
		{"--delay -5 echo", `--delay: "-5" is negative (seconds, or numbers with units d h m s ms: try 30, 1.5, 2.5m, 1m30s, 1m30, 1d2h, 250ms)`, 255},
		{"--color bad echo", `--color: "bad" is not a color setting (try --color=auto, always or never)`, 255},
		{"--colsep [ echo", "--colsep: \"[\" is not a regular expression: error parsing regexp: missing closing ]: `[`", 255},
		{"--trim x echo", `--trim: "x" is not one of n, l, r, lr and rl`, 255},
		{`--tagstring \400 echo`, `--tagstring: \400 is not a byte in octal`, 255},
		{"-n -1 echo", "--max-args: -1 is negative (try -n 2)", 255},
		{"-n x echo", `--max-args: "x" is not a whole number (see fan --help)`, 255},
		{"-s 0 echo", "--max-chars: 0 is not a size (try -s 4096)", 255},
		{"--retries -1 --xargs echo", "--retries: -1 is negative (try --retries 3)", 1},
		{"--no-such-flag echo", "unknown flag: --no-such-flag (see fan --help)", 255},
		{"--xargs --no-such-flag echo", "unknown flag: --no-such-flag (see fan --help)", 1},
		{"--results= echo", "--results: the value is empty (give one, see fan --help)", 255},
		{"-0 -d x echo", "-0 and -d cannot be used together (pick one delimiter)", 255},
		{"--xargs -d ab echo", `--delimiter: "ab" is not one character or an escape starting with \ (try -d '\n' or -d ,)`, 1},
		{"-n 1 -N 1 echo", "-n and -N cannot be used together (pick one)", 255},
		{"--resume echo", "--resume and --resume-failed need --joblog FILE (the log of the earlier run)", 255},
		{"-u -k echo", "-u and -k cannot be used together (ungrouped output has no order to keep)", 255},
		{"-u --tag echo", "-u and --tag cannot be used together (ungrouped output passes fan by; use --line-buffer --tag for tagged lines as they come)", 255},
		{"--bar --no-bar echo", "--bar and --no-bar cannot be used together (pick one)", 255},
		{"-X -m echo", "-X and -m cannot be used together (pick one way of packing)", 255},
		{"--xargs --link echo", "--link has no meaning under --xargs, which splits and packs its input as xargs does (drop one of the two)", 1},
		{"--xargs -n 0 echo", "--max-args: 0 is not a count (xargs wants -n 1 or more)", 1},
		{"--arg-sep x --arg-file-sep x echo", `--arg-sep and --arg-file-sep are both "x": lists of items and of files could not be told apart (give two different separators)`, 255},
		{"echo :::+ a", ":::+ and ::::+ link their items to the input source before them, and there is none (use ::: or :::: for the first)", 255},
		{"-q", "-q quotes the words of the command, and none is given (the items are then command lines, which -q would turn into one word each)", 255},
		{"--shell ./no-such-shell echo", `--shell: "./no-such-shell" is not a program fan can run (give a shell, e.g. --shell /bin/bash)`, 255},
		{"--completion pwsh", `--completion: "pwsh" is not a shell fan has completions for (try bash, zsh or fish)`, 255},
	} {
		cfg, err := parse(t, nil, strings.Fields(c.argv)...)
		if err == nil {
			t.Errorf("%s: no error, got %+v", c.argv, cfg)
			continue
		}
		if err.Error() != c.msg {
			t.Errorf("%s:\n got %s\nwant %s", c.argv, err, c.msg)
		}
		if got := exitStatus(outcome{err: err}); got != c.status {
			t.Errorf("%s: exit status %d, want %d", c.argv, got, c.status)
		}
	}
}

// TestCommandEnv: the environment comes from the env given, and nothing
// else: PARALLEL_SHELL (not under --xargs), FAN_WINDOW, NO_COLOR.
func TestCommandEnv(t *testing.T) {
	env := Env{"PARALLEL_SHELL=./no-such-shell", "FAN_WINDOW=7", "NO_COLOR=1"}
	_, err := parse(t, env, "echo")
	if want := `PARALLEL_SHELL: "./no-such-shell" is not a program fan can run (give a shell, e.g. --shell /bin/bash)`; err == nil || err.Error() != want {
		t.Errorf("PARALLEL_SHELL: %v, want %s", err, want)
	}
	if _, err := parse(t, env, "--shell", "/bin/sh", "echo"); err != nil {
		t.Errorf("--shell beats PARALLEL_SHELL: %v", err)
	}
	cfg, err := parse(t, env, "--xargs", "--color", "always", "echo")
	if err != nil {
		t.Fatal(err)
	}
	if window(cfg.Env) != 7 || window(nil) != defaultWindow {
		t.Errorf("window = %d, %d; want 7 from FAN_WINDOW, else %d", window(cfg.Env), window(nil), defaultWindow)
	}
	if env.Get("NO_COLOR") != "1" || env.Get("HOME") != "" || (Env{"A=1", "A=2"}).Get("A") != "1" {
		t.Error("Env.Get: want the first setting, or empty")
	}
}

// TestParseLeavesOptions: check derives what it needs without writing to
// the options it was given.
func TestParseLeavesOptions(t *testing.T) {
	cfg, err := parse(t, nil, "--xargs", "-I", "{}", "-n", "2", "--results", "r.tsv", "--line-buffer", "echo")
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.Options; o.Runner.Replace != "{}" || !o.Output.LineBuffer || o.Runner.Jobs.Given {
		t.Errorf("check changed the options: %+v", o)
	}
	if cfg.replace != "" || cfg.lineBuffer || cfg.jobs != 1 {
		t.Errorf("derived replace %q, line buffer %v, jobs %d; want none, false, 1", cfg.replace, cfg.lineBuffer, cfg.jobs)
	}
}
