package cmd

import (
	"slices"
	"strings"
	"testing"
)

func TestXargsOptionalForms(t *testing.T) {
	f := NewCommand(Streams{}, nil, nil).Flags()
	for in, want := range map[string]string{
		"--xargs -i echo {}":          "--xargs --replace={} echo {}",
		"-i --xargs echo":             "--replace={} --xargs echo",
		"--xargs -iZZ echo":           "--xargs --replace=ZZ echo",
		"--xargs --replace echo":      "--xargs --replace={} echo",
		"--xargs --replace=R echo":    "--xargs --replace=R echo",
		"--xargs -l -l3 -e -eEND cat": "--xargs --max-lines=1 --max-lines=3 --eof= --eof=END cat",
		"--xargs -I -i echo -i":       "--xargs -I -i echo -i", // -I's value, then the command's
		"--xargs -n1 -P 2 -i echo":    "--xargs -n1 -P 2 --replace={} echo",
		"--xargs echo -i":             "--xargs echo -i",
		"-i echo":                     "-i echo", // not --xargs: left to the parser
		"echo --xargs -i":             "echo --xargs -i",
		// Shortened long names, and the bare optional-value long forms.
		"--xar --rep echo x{}y":             "--xar --replace={} echo x{}y",
		"--xargs --max-lines --eof echo":    "--xargs --max-lines=1 --eof= echo",
		"--xargs --max-lines=2 --max-a 3 c": "--xargs --max-lines=2 --max-a 3 c",
	} {
		out, _ := xargsOptionalForms(f, strings.Fields(in))
		got := strings.Join(out, " ")
		if got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
	if args := []string{"--xargs", "-i"}; !slices.Equal(first(xargsOptionalForms(f, args)), []string{"--xargs", "--replace={}"}) || args[1] != "-i" {
		t.Errorf("the caller's arguments were changed: %q", args)
	}
}

func first[T, U any](t T, _ U) T { return t }
