package input

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeForms is what an error about a size suggests instead.
const sizeForms = "a number of bytes with an optional unit: try 1M, 512k, 1.5G, 64Ki; " +
	"K M G T P E are powers of 1024, k m g t p e powers of 1000, Ki Mi ... (any case) powers of 1024"

// ParseSize reads a size as GNU parallel's --block (and its other size
// options) takes it: a decimal number, possibly with a fraction, and an
// optional unit. An upper-case unit K, M, G, T, P or E is a power of 1024;
// a lower-case k, m, g, t, p or e a power of 1000; a unit followed by i
// (Ki, ki, KI, mi ...) a power of 1024 in any case. So 1M is 1048576, 1m
// is 1000000, 1.5k is 1500, and 0.5K is 512. A fraction of a byte is cut
// off, as GNU parallel's int() does: 1.1K is 1126. A leading - gives a
// negative size (--pipepart's --block -N); whether zero or a negative size
// means anything is for the caller to say. GNU parallel evaluates the
// string as a Perl expression after replacing the units (so "2*3k" and
// "1e3" are accepted there, the latter as 10^18 followed by 3): fan takes
// only a number and a unit.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	neg := false
	if rest, ok := strings.CutPrefix(t, "-"); ok {
		neg, t = true, rest
	} else {
		t = strings.TrimPrefix(t, "+")
	}
	num := t
	for i := 0; i < len(t); i++ {
		if c := t[i]; (c < '0' || c > '9') && c != '.' {
			num = t[:i]
			break
		}
	}
	base, power, ok := sizeUnit(t[len(num):])
	if !ok || num == "" || num == "." || strings.Count(num, ".") > 1 {
		return 0, fmt.Errorf("%q is not a size (%s)", s, sizeForms)
	}
	var v float64
	if !strings.Contains(num, ".") {
		mult := int64(1)
		for range power {
			mult *= base
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err == nil && n <= math.MaxInt64/mult {
			if neg {
				n = -n
			}
			return n * mult, nil
		}
		v = math.Inf(1)
	} else {
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a size (%s)", s, sizeForms)
		}
		// Perl multiplies by 1024 (or 1000) once per power, from the
		// left, in floating point: do the same, so that the fraction
		// cut off is the same.
		v = f
		for range power {
			v *= float64(base)
		}
	}
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is too large a size (at most 8E)", s)
	}
	n := int64(v)
	if neg {
		n = -n
	}
	return n, nil
}

// sizeUnit returns what a size unit multiplies by: base to the power.
func sizeUnit(u string) (base int64, power int, ok bool) {
	if u == "" {
		return 1, 0, true
	}
	p := strings.IndexByte("kmgtpe", u[0]|0x20)
	if p < 0 {
		return 0, 0, false
	}
	base = 1000
	switch {
	case len(u) == 2 && u[1]|0x20 == 'i':
		base = 1024
	case len(u) != 1:
		return 0, 0, false
	case u[0] >= 'A' && u[0] <= 'Z':
		base = 1024
	}
	return base, p + 1, true
}

// SizeText writes a number of bytes for people, in the units ParseSize
// reads with an upper-case letter (powers of 1024), to one decimal: 512
// bytes, 12K, 1.5G. It is the one formatter of sizes in fan's messages.
func SizeText(n int64) string {
	const units = "KMGTPE"
	if n < 1024 && n > -1024 {
		if n == 1 {
			return "1 byte"
		}
		return strconv.FormatInt(n, 10) + " bytes"
	}
	v, u := float64(n)/1024, 0
	for (v >= 1024 || v <= -1024) && u < len(units)-1 {
		v /= 1024
		u++
	}
	s := strconv.FormatFloat(math.Round(v*10)/10, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + units[u:u+1]
}
