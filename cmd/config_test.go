package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDefaultOptions: the layers of default options, in their order of
// precedence, and the command words they put in front of the command.
func TestDefaultOptions(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".parallel")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"config": "# comment\n--tagstring config -j 5\n",
		"prof":   "--tagstring 'from prof' nice -n 3\n",
		"opts":   "-k\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		env     []string
		argv    []string
		tag     string
		jobs    int
		command []string
	}{
		{nil, []string{"echo"}, "config", 5, []string{"echo"}},
		{[]string{"PARALLEL=8"}, []string{"echo"}, "config", 5, []string{"echo"}},
		{[]string{"PARALLEL=-j 6"}, []string{"echo"}, "config", 6, []string{"echo"}},
		{[]string{"PARALLEL=-j 6", "FAN_OPTS=-j 7 --tagstring fan"}, []string{"echo"}, "fan", 7, []string{"echo"}},
		{[]string{"FAN_OPTS=-j 7"}, []string{"-j", "2", "echo"}, "config", 2, []string{"echo"}},
		{[]string{"FAN_OPTS=--tagstring fan"}, []string{"-J", "prof", "echo"}, "from prof", 0, []string{"nice", "-n", "3", "echo"}},
		{nil, []string{"-J", "prof", "-J", "opts", "--", "echo", "x"}, "from prof", 0, []string{"nice", "-n", "3", "echo", "x"}},
		{[]string{"FAN_OPTS=--tagstring fan"}, []string{"--plain", "echo"}, "", 0, []string{"echo"}},
		{[]string{"FAN_OPTS=-j3 printf %s"}, []string{"--", "-x"}, "config", 3, []string{"printf", "%s", "-x"}},
	} {
		env := Env(append([]string{"HOME=" + home}, c.env...))
		cfg, err := parse(t, env, c.argv...)
		if err != nil {
			t.Errorf("%q %q: %v", c.env, c.argv, err)
			continue
		}
		if cfg.Output.TagString != c.tag {
			t.Errorf("%q %q: --tagstring %q, want %q", c.env, c.argv, cfg.Output.TagString, c.tag)
		}
		if c.jobs > 0 && cfg.jobs != c.jobs {
			t.Errorf("%q %q: -j %d, want %d", c.env, c.argv, cfg.jobs, c.jobs)
		}
		if !reflect.DeepEqual(cfg.Runner.Command, c.command) {
			t.Errorf("%q %q: command %q, want %q", c.env, c.argv, cfg.Runner.Command, c.command)
		}
	}
	// Errors name the layer.
	for _, c := range []struct {
		env, argv []string
		want      string
	}{
		{[]string{"FAN_OPTS=--nope"}, []string{"echo"}, "FAN_OPTS: unknown flag: --nope"},
		{[]string{"PARALLEL=-j auto:5:2"}, []string{"echo"}, "$PARALLEL: "},
		{nil, []string{"-J", "absent", "echo"}, "-J absent: there is no profile"},
	} {
		_, err := parse(t, Env(append([]string{"HOME=" + home}, c.env...)), c.argv...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %q: error %v, want one holding %q", c.env, c.argv, err, c.want)
		}
	}
}

// TestShellWords: config lines split as a shell splits them.
func TestShellWords(t *testing.T) {
	for in, want := range map[string][]string{
		`-k  --tag`:          {"-k", "--tag"},
		`--tagstring 'a b'`:  {"--tagstring", "a b"},
		`"x \"y\" \$z" w\ v`: {`x "y" $z`, "w v"},
		`''`:                 {""},
		"":                   nil,
	} {
		got, err := shellWords(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
