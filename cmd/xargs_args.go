package cmd

import (
	"strings"

	"github.com/spf13/pflag"
)

// xargsOptionalForms rewrites, when --xargs is among the flags before the
// command, xargs's deprecated optional-argument options, which pflag cannot
// parse and old scripts still use: -i and --replace (-I {}), -iR (-I R),
// -l and --max-lines (-L 1), -lN (-L N), -e and --eof (no end-of-input
// string) and -eSTR (-E STR). As in xargs, an optional argument must be
// attached, and a long name may be shortened. Other arguments, and
// everything from the command on, are left alone. xargs reports whether
// --xargs is among the flags.
func xargsOptionalForms(f *pflag.FlagSet, args []string) (out []string, xargs bool) {
	end := 0
	for end < len(args) {
		a := args[end]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			break
		}
		long := longFlag(f, a)
		xargs = xargs || long == "xargs"
		end++
		if takesNextValue(f, a) && !xargsOptional[long] {
			end++
		}
	}
	if !xargs {
		return args, false
	}
	out = append([]string(nil), args...)
	for i := 0; i < end && i < len(out); i++ {
		a := out[i]
		switch long := longFlag(f, a); {
		case long == "replace" || a == "-i":
			out[i] = "--replace={}"
		case long == "max-lines":
			out[i] = "--max-lines=1"
		case long == "eof":
			out[i] = "--eof="
		case strings.HasPrefix(a, "-i") && !isShorthand(f, 'i'):
			out[i] = "--replace=" + a[2:]
		case a == "-l":
			out[i] = "--max-lines=1"
		case strings.HasPrefix(a, "-l") && !isShorthand(f, 'l'):
			out[i] = "--max-lines=" + a[2:]
		case strings.HasPrefix(a, "-e") && !isShorthand(f, 'e'):
			out[i] = "--eof=" + a[2:]
		default:
			if takesNextValue(f, a) {
				i++ // its value is not an option
			}
		}
	}
	return out, true
}

// xargsOptional are the long options whose value xargs takes only when
// attached (--replace=R): given bare, they take none.
var xargsOptional = map[string]bool{"replace": true, "max-lines": true, "eof": true}

// longFlag is the full name of the long option a ("--keep" for
// --keep-order) when no value is attached to it, or "".
func longFlag(f *pflag.FlagSet, a string) string {
	name, ok := strings.CutPrefix(a, "--")
	if !ok || name == "" || strings.Contains(name, "=") {
		return ""
	}
	return string(f.GetNormalizeFunc()(f, name))
}

func isShorthand(f *pflag.FlagSet, c byte) bool {
	return f.ShorthandLookup(string(c)) != nil
}

// takesNextValue reports whether the option a takes the next argument as
// its value: a long flag without "=" or a run of short flags ending in one,
// that needs a value.
func takesNextValue(f *pflag.FlagSet, a string) bool {
	needs := func(fl *pflag.Flag) bool {
		return fl != nil && fl.NoOptDefVal == "" && fl.Value.Type() != "bool"
	}
	if name, ok := strings.CutPrefix(a, "--"); ok {
		return !strings.Contains(name, "=") && needs(f.Lookup(name))
	}
	shorts := a[1:]
	for i := 0; i < len(shorts); i++ {
		fl := f.ShorthandLookup(string(shorts[i]))
		if fl == nil {
			return false
		}
		if needs(fl) {
			return i == len(shorts)-1 // else the value is attached
		}
	}
	return false
}
