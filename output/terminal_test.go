package output

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal and returns its terminal side (what
// a program sees as its stderr on a terminal).
func openTerminal(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// openFile opens a regular file, closed when the test ends: a stderr
// that is not a terminal.
func openFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestAutoBar(t *testing.T) {
	tty, file := openTerminal(t), openFile(t)
	for _, c := range []struct {
		name string
		f    *os.File
		env  map[string]string
		want bool
	}{
		{"terminal", tty, map[string]string{"TERM": "xterm"}, true},
		{"terminal, no TERM", tty, nil, true},
		{"dumb terminal", tty, map[string]string{"TERM": "dumb"}, false},
		{"terminal in CI", tty, map[string]string{"TERM": "xterm", "CI": "true"}, false},
		{"file", file, map[string]string{"TERM": "xterm"}, false},
	} {
		if got := AutoBar(c.f, env(c.env)); got != c.want {
			t.Errorf("%s: AutoBar = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPalette(t *testing.T) {
	tty, file := openTerminal(t), openFile(t)
	for _, c := range []struct {
		name string
		mode ColorMode
		f    *os.File
		env  map[string]string
		want bool
	}{
		{"auto on a terminal", ColorAuto, tty, map[string]string{"TERM": "xterm"}, true},
		{"auto into a file", ColorAuto, file, map[string]string{"TERM": "xterm"}, false},
		{"auto with NO_COLOR", ColorAuto, tty, map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, false},
		{"auto with empty NO_COLOR", ColorAuto, tty, map[string]string{"TERM": "xterm", "NO_COLOR": ""}, true},
		{"auto on a dumb terminal", ColorAuto, tty, map[string]string{"TERM": "dumb"}, false},
		{"always into a file", ColorAlways, file, nil, true},
		{"always with NO_COLOR", ColorAlways, tty, map[string]string{"NO_COLOR": "1"}, true},
		{"never on a terminal", ColorNever, tty, map[string]string{"TERM": "xterm"}, false},
	} {
		p := NewPalette(c.mode, c.f, env(c.env))
		got := p.Fail("x") != "x"
		if got != c.want {
			t.Errorf("%s: colored = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPaletteSummary(t *testing.T) {
	s := Stats{OK: 3, Failed: 2, TimedOut: 1}
	plain := Summary(s, "f.txt")
	if got := (Palette{}).Summary(s, "f.txt"); got != plain {
		t.Errorf("no color: %q, want %q", got, plain)
	}
	got := Palette{on: true}.Summary(s, "f.txt")
	want := "fan: 5 read = \x1b[1m\x1b[32m3 succeeded\x1b[0m + \x1b[1m\x1b[31m2 failed\x1b[0m (1 timed out) + 0 not started; failed items are in f.txt"
	if got != want {
		t.Errorf("color:\n got %q\nwant %q", got, want)
	}
}

func TestParseColorMode(t *testing.T) {
	for in, want := range map[string]ColorMode{"auto": ColorAuto, "always": ColorAlways, "never": ColorNever} {
		if got, err := ParseColorMode(in); err != nil || got != want {
			t.Errorf("ParseColorMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseColorMode("purple"); err == nil {
		t.Error("ParseColorMode(purple): no error")
	}
}
