package input

import (
	"fmt"
	"strings"
)

// Trim is --trim: which ends of each argument lose their white space
// (space, tab, newline, carriage return, form feed, vertical tab), as GNU
// parallel trims them. --colsep trims both ends unless --trim says
// otherwise, so that "a, b" gives the columns a and b, and a CRLF line's
// last column loses its \r.
type Trim struct{ Left, Right bool }

// blanks is the white space trimmed: Perl's \s.
const blanks = " \t\n\r\f\v"

// ParseTrim reads a --trim value: n (none), l (left), r (right), lr or rl
// (both).
func ParseTrim(s string) (Trim, error) {
	switch s {
	case "n":
		return Trim{}, nil
	case "l":
		return Trim{Left: true}, nil
	case "r":
		return Trim{Right: true}, nil
	case "lr", "rl":
		return Trim{Left: true, Right: true}, nil
	}
	return Trim{}, fmt.Errorf("%q is not one of n, l, r, lr and rl", s)
}

// apply trims one argument.
func (t Trim) apply(arg string) string {
	if t.Left {
		arg = strings.TrimLeft(arg, blanks)
	}
	if t.Right {
		arg = strings.TrimRight(arg, blanks)
	}
	return arg
}
