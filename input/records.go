package input

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Records says where pipe mode's records begin and end, and what header
// the input starts with: GNU parallel's --recstart, --recend, --regexp,
// -N, -L and --header, plus fan's -0. The zero value is records ending at
// "\n", no header: GNU parallel's default.
type Records struct {
	// Start and End are --recstart and --recend as given. Unless Regexp,
	// the escapes \0 \n \r \t \\ \' \" in them stand for their byte, as
	// in GNU parallel (no others: \x41 is four bytes).
	Start, End string
	// StartSet and EndSet say that --recstart and --recend were given,
	// possibly empty. When neither was, records end at "\n". When only
	// --recstart was, records end anywhere before a Start: no End is
	// needed (GNU parallel's rule). --recend '' alone makes every byte
	// boundary a record boundary (under Regexp GNU parallel reads it as
	// any one byte, which comes to the same).
	StartSet, EndSet bool
	// Null (-0) stands for --recend '\0' when --recend is not given. GNU
	// parallel ignores -0 in pipe mode; fan does not.
	Null bool
	// Regexp makes Start and End regular expressions: Go's (RE2) syntax,
	// matched with (?m), so that ^ and $ match at the start and end of
	// any line, as under the /m GNU parallel gives Perl. RE2 has no
	// lookaround ((?=, (?!, (?<=), no backreferences (\1), no possessive
	// or atomic groups, no \Z, \h or \R; those are errors. Go's . matches
	// a whole UTF-8 character where Perl's matches a byte. See
	// block_cut.go for how boundaries are found.
	Regexp bool
	// N (-N) is how many records make one block, however long they are
	// (the block size is then only how much is read at a time); 0 means
	// as many whole records as the block size holds.
	N int
	// L (-L) makes a record L lines ("\n"-terminated, whatever End is),
	// and a block as many whole L-line records as fit in the block size.
	// With N, blocks are N*L records of End instead (GNU parallel's rule).
	L int
	// Header (--header) is a regular expression the start of the input
	// must match to be taken as the header, repeated at the start of
	// every block: ":" is one line, a number N is N lines, and "" or "0"
	// is no header (GNU parallel's reading). It is matched, anchored at
	// the start and without (?m), against the first block's worth of
	// input, then against more until it matches or the input ends (then
	// there is no header).
	Header string
}

// Validate reports whether the options can be used: the regular
// expressions compile and the counts are not negative.
func (r Records) Validate() error {
	_, err := r.compile()
	return err
}

// cutRule is Records compiled: how to find record boundaries in a buffer
// that starts at a record start.
type cutRule struct {
	// lines is L when records are L lines and there is no -N.
	lines int
	// n is how many records of the separator make a block (N*L, or N);
	// 0 without -N.
	n int
	// sep is End followed by Start, and endLen the length of End: a
	// boundary is endLen bytes after the start of an occurrence of sep.
	sep    []byte
	endLen int
	// re, under Regexp, matches End then Start; its group cut is empty
	// and stands where End ends: the boundary. start matches Start at the
	// beginning of text.
	re    *regexp.Regexp
	cut   int
	start *regexp.Regexp
	// header matches the header at the start of the input; nil for none.
	header *regexp.Regexp
}

// compile checks r and compiles it.
func (r Records) compile() (*cutRule, error) {
	if r.N < 0 {
		return nil, fmt.Errorf("-N %d: the number of records is negative", r.N)
	}
	if r.L < 0 {
		return nil, fmt.Errorf("-L %d: the number of lines is negative", r.L)
	}
	c := &cutRule{n: r.N}
	if r.L > 0 {
		if r.N == 0 {
			c.lines = r.L
		} else {
			c.n = r.N * r.L
		}
	}
	var start, end string
	switch {
	case r.EndSet:
		end = r.End
		if r.Regexp && end == "" && !r.StartSet {
			end = `(?s:.)` // GNU parallel: --regexp --recend '' alone is any byte
		}
	case r.Null && r.Regexp:
		end = `\x00`
	case r.Null:
		end = `\0`
	case !r.StartSet:
		end = "\n"
	}
	if r.StartSet {
		start = r.Start
	}
	if r.Regexp {
		re, err := regexp.Compile(`(?m:(?:` + end + `)(?P<fancut>)(?:` + start + `))`)
		if err != nil {
			return nil, recordRegexpError(r, err)
		}
		c.re, c.cut = re, re.SubexpIndex("fancut")
		if c.start, err = regexp.Compile(`\A(?m:` + start + `)`); err != nil {
			return nil, recordRegexpError(r, err)
		}
	} else {
		c.sep = []byte(unescapeRecord(end) + unescapeRecord(start))
		c.endLen = len(unescapeRecord(end))
	}
	if h := headerRegexp(r.Header); h != "" {
		re, err := regexp.Compile(`\A(?:` + h + `)`)
		if err != nil {
			return nil, fmt.Errorf("--header %q is not a regular expression fan can use (Go's RE2 syntax: no lookaround or backreferences): %w", r.Header, err)
		}
		c.header = re
	}
	return c, nil
}

// recordRegexpError says which of --recstart and --recend does not compile.
func recordRegexpError(r Records, err error) error {
	for _, p := range []struct{ flag, re string }{{"--recstart", r.Start}, {"--recend", r.End}} {
		if _, e := regexp.Compile(p.re); e != nil {
			return fmt.Errorf("%s %q is not a regular expression fan can use (Go's RE2 syntax: no lookaround or backreferences): %w", p.flag, p.re, e)
		}
	}
	return fmt.Errorf("--recstart %q with --recend %q: %w", r.Start, r.End, err)
}

// headerRegexp is GNU parallel's reading of --header: ":" is one line, a
// number is that many lines, "" and "0" are no header.
func headerRegexp(h string) string {
	switch {
	case h == "" || h == "0":
		return ""
	case h == ":":
		return `(.*\n)`
	}
	if n, err := strconv.Atoi(h); err == nil && n > 0 && strings.Trim(h, "0123456789") == "" {
		return strings.Repeat(`(.*\n)`, n)
	}
	return h
}

// unescapeRecord replaces the escapes GNU parallel replaces in --recstart
// and --recend: \0 \n \r \t \\ \' \" (one character after the backslash;
// \012 is NUL followed by "12").
func unescapeRecord(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if c, ok := recordEscape(s[i+1]); ok {
				b.WriteByte(c)
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// recordEscape returns the byte the escape \c stands for in --recstart
// and --recend.
func recordEscape(c byte) (byte, bool) {
	switch c {
	case '0':
		return 0, true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case '\\', '\'', '"':
		return c, true
	}
	return 0, false
}
