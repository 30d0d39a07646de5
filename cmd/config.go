package cmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fan-run/fan/internal/shellwords"
)

// Default options, as GNU parallel reads them, lowest precedence first:
//
//  1. the config file: $PARALLEL_HOME/config, else ~/.parallel/config
//     (not read when -J gives profiles: a profile replaces it);
//  2. $PARALLEL, only when it starts with "-" (scripts export PARALLEL=4
//     for make and MPI, which must not change fan's behaviour);
//  3. FAN_OPTS;
//  4. each -J PROFILE, in order ($PARALLEL_HOME/PROFILE or
//     ~/.parallel/PROFILE, or a path when it starts with / or ./);
//  5. the command line.
//
// A later setting of a flag wins; flags that gather values (-a, --env,
// -S) gather them all. Words of a layer after its options (a command such
// as "nice") go in front of the command, as in GNU parallel. --plain
// on the command line ignores every layer. GNU parallel puts $PARALLEL
// above -J; fan puts the profile named on the command line above the
// environment, as the more specific of the two.

// layer is one source of default options.
type layer struct {
	from  string   // where the words came from, for messages
	words []string // the options, then any command words
}

// configDir is where the config file and the profiles are:
// $PARALLEL_HOME, else ~/.parallel.
func configDir(env Env) string {
	if d := env.Get("PARALLEL_HOME"); d != "" {
		return d
	}
	return filepath.Join(env.Get("HOME"), ".parallel")
}

// layers returns the default options for this run in increasing
// precedence, given the command line's -J profiles.
func layers(env Env, profiles []string) ([]layer, error) {
	var out []layer
	if len(profiles) == 0 {
		l, err := readLayer(filepath.Join(configDir(env), "config"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out = append(out, l)
	}
	if p := env.Get("PARALLEL"); strings.HasPrefix(strings.TrimLeft(p, " \t\n"), "-") {
		l, err := wordsLayer("$PARALLEL", p)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	if p := env.Get("FAN_OPTS"); p != "" {
		l, err := wordsLayer("FAN_OPTS", p)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	for _, name := range profiles {
		path := name
		if !strings.HasPrefix(name, "/") && !strings.HasPrefix(name, "./") {
			path = filepath.Join(configDir(env), name)
		}
		l, err := readLayer(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usageErrorf("-J %s: there is no profile %s (write the options in it, one or more a line, or give a path)", name, path)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// readLayer reads a config file or profile: lines of options, split into
// words as a shell would (quotes, backslashes; nothing expanded); a line
// starting with # is a comment.
func readLayer(path string) (layer, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return layer{}, err
	}
	if err != nil {
		return layer{}, usageErrorf("cannot read %s: %v (make it readable, or run with --plain)", path, err)
	}
	l := layer{from: path}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") {
			continue
		}
		w, err := shellWords(line)
		if err != nil {
			return layer{}, usageErrorf("%s:%d: %v (fix the line, or run with --plain)", path, i+1, err)
		}
		l.words = append(l.words, w...)
	}
	return l, nil
}

func wordsLayer(from, s string) (layer, error) {
	w, err := shellWords(s)
	if err != nil {
		return layer{}, usageErrorf("%s: %v (fix it, or run with --plain)", from, err)
	}
	return layer{from: from, words: w}, nil
}

// shellWords splits s into words as a shell does, expanding nothing.
func shellWords(s string) ([]string, error) { return shellwords.Split(s, nil) }

// withDefaults puts the default options of the layers in front of the
// command line args: every layer's options in order, then the command
// line's, then the layers' command words, then the command line's
// command. probe is a flag set of fan's flags, used to tell where each
// list's options end; a layer whose options it refuses is a usage error
// naming the layer.
func withDefaults(probe *pflag.FlagSet, ls []layer, args []string) ([]string, error) {
	var opts, words []string
	for _, l := range ls {
		o, w, err := splitOptions(probe, l.words)
		if err != nil {
			return nil, usageErrorf("%s: %v (fix it, or run with --plain)", l.from, flagErrorText(err))
		}
		opts, words = append(opts, o...), append(words, w...)
	}
	if len(opts) == 0 && len(words) == 0 {
		return args, nil
	}
	o, w, err := splitOptions(probe, args)
	if err != nil {
		return args, nil // the command line's own parse says what is wrong
	}
	out := append(opts, o...)
	rest := append(words, w...)
	if len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		out = append(out, "--") // a command that starts with -, after --
	}
	return append(out, rest...), nil
}

// splitOptions splits args into its options and what follows them (the
// command, the ::: sources), as the flag set parses them. A "--" that
// ends the options is dropped.
func splitOptions(probe *pflag.FlagSet, args []string) (opts, rest []string, err error) {
	if err := probe.Parse(args); err != nil {
		return nil, nil, err
	}
	rest = probe.Args()
	opts = args[:len(args)-len(rest)]
	if n := len(opts); n > 0 && opts[n-1] == "--" {
		opts = opts[:n-1]
	}
	return opts, rest, nil
}

// addConfigFlags registers -J and --plain, which withDefaults reads before
// the other flags are parsed.
func addConfigFlags(f *pflag.FlagSet, o *Options) {
	stringArrayVar(f, &o.Profiles, "profile", "J", "read default options from `PROFILE` (~/.parallel/PROFILE, or a path), in place of ~/.parallel/config; repeatable")
	f.BoolVar(&o.Plain, "plain", false, "ignore ~/.parallel/config, -J, $PARALLEL and FAN_OPTS")
}

// configured returns the command line args with the default options
// of the config file, the environment and -J in front (withDefaults).
// newProbe builds a flag set of fan's flags to parse with.
func configured(env Env, args []string, newProbe func() *pflag.FlagSet) ([]string, error) {
	if env.Get("FAN_OPTS") == "" && !strings.HasPrefix(strings.TrimLeft(env.Get("PARALLEL"), " \t\n"), "-") &&
		!mayNameProfile(args) && !exists(filepath.Join(configDir(env), "config")) {
		return args, nil // the common case: nothing to read, no second parse
	}
	probe := newProbe()
	_ = probe.Parse(args) // a bad command line is reported by its own parse
	if plain, _ := probe.GetBool("plain"); plain {
		return args, nil
	}
	profiles, _ := probe.GetStringArray("profile")
	ls, err := layers(env, profiles)
	if err != nil {
		return nil, err
	}
	return withDefaults(newProbe(), ls, args)
}

// mayNameProfile reports whether args may hold -J or --profile (or
// --plain) among their options.
func mayNameProfile(args []string) bool {
	for _, a := range args {
		name, long := strings.CutPrefix(a, "--")
		name, _, _ = strings.Cut(name, "=")
		switch {
		case long && len(name) >= 2 && (strings.HasPrefix("profile", name) || strings.HasPrefix("plain", name)):
			return true
		case !long && strings.HasPrefix(a, "-") && strings.ContainsRune(a, 'J'):
			return true
		}
	}
	return false
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
