package output

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
)

// ColorMode is the --color setting.
type ColorMode int

// The --color settings.
const (
	ColorAuto   ColorMode = iota // color when stderr is a terminal and NO_COLOR is unset
	ColorAlways                  // color even into a pipe or a file, and despite NO_COLOR
	ColorNever                   // no color
)

// ParseColorMode reads a --color value: auto, always or never.
func ParseColorMode(s string) (ColorMode, error) {
	switch s {
	case "auto", "":
		return ColorAuto, nil
	case "always":
		return ColorAlways, nil
	case "never":
		return ColorNever, nil
	}
	return 0, fmt.Errorf("%q is not a color setting (try --color=auto, always or never)", s)
}

// Palette paints fan's own messages on stderr. The zero Palette paints
// nothing.
type Palette struct {
	on bool
}

// NewPalette decides whether fan's messages on f are colored: always with
// ColorAlways, never with ColorNever, and with ColorAuto when f is a
// terminal that understands colors (TERM is not dumb) and NO_COLOR is unset
// or empty (https://no-color.org). getenv is os.Getenv in production.
func NewPalette(mode ColorMode, f *os.File, getenv func(string) string) Palette {
	switch mode {
	case ColorAlways:
		return Palette{on: true}
	case ColorNever:
		return Palette{}
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return Palette{}
	}
	return Palette{on: isTerminal(f)}
}

// IsTerminal reports whether f is a terminal: where fan's messages may
// speak of Ctrl-C.
func IsTerminal(f *os.File) bool { return isTerminal(f) }

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	return f != nil && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// IsTerminalInput reports whether r is a terminal: fan's stdin when the
// user types the items. The descriptor's mode is left alone (os.File.Fd
// would make it blocking, and stdin's mode is shared with other
// processes).
func IsTerminalInput(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	rc.Control(func(fd uintptr) { tty = isatty.IsTerminal(fd) })
	return tty
}

const (
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrBold   = "\x1b[1m"
	sgrReset  = "\x1b[0m"
)

func (p Palette) paint(sgr, s string) string {
	if !p.on || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// Fail paints a message about a failed job (red).
func (p Palette) Fail(s string) string { return p.paint(sgrRed, s) }

// Summary is Summary(s, failures) with its counts painted: succeeded green,
// failed red and not started yellow, each only when it is not zero.
func (p Palette) Summary(s Stats, failures string) string {
	line := Summary(s, failures)
	if !p.on {
		return line
	}
	paintCount := func(n int64, word, sgr string) {
		if n == 0 {
			return
		}
		plain := fmt.Sprintf(" %d %s", n, word)
		line = strings.Replace(line, plain, " "+p.paint(sgrBold+sgr, plain[1:]), 1)
	}
	paintCount(s.OK, "succeeded", sgrGreen)
	paintCount(s.Failed, "failed", sgrRed)
	paintCount(s.NotStarted, "not started", sgrYellow)
	return line
}
