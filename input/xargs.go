package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// QuoteError is an unmatched quote in xargs-style input: GNU xargs stops
// with exit status 1 on it.
type QuoteError struct {
	// Quote is the quote character that was left open: ' or ".
	Quote byte
}

func (e *QuoteError) Error() string {
	kind := "single"
	if e.Quote == '"' {
		kind = "double"
	}
	return fmt.Sprintf("unmatched %s quote in the input (quotes are special under --xargs: escape it with a backslash, or use -0 or -d '\\n')", kind)
}

// XargsSplitter reads input the way GNU xargs does without -0 or -d: items
// are separated by blanks (space, tab) and newlines; single and double
// quotes group characters (a quoted item cannot span lines); a backslash
// makes the next character literal, a newline included. A line that ends
// with a blank goes on with the next line (for -L). With Lines (-I), blanks
// do not separate items: each line, without its leading blanks, is one item.
//
// It is not safe for concurrent use.
type XargsSplitter struct {
	r *bufio.Reader
	// EOF, when not empty, is the logical end of input (-E): an item equal
	// to it ends the input, and it and what follows are never read.
	EOF string
	// Lines makes each input line one item (-I).
	Lines bool

	done bool
	buf  []byte
}

// NewXargsSplitter returns an XargsSplitter reading r.
func NewXargsSplitter(r io.Reader) *XargsSplitter {
	return &XargsSplitter{r: bufio.NewReaderSize(r, readBufSize)}
}

// tokenizer states, as in xargs.
const (
	xsSpace  = iota // between items: blanks and newlines are skipped
	xsNorm          // inside an item
	xsQuote         // inside quotes
	xsEscape        // after a backslash
)

// ReadLine reads up to the end of the next logical input line and returns
// the items on it and how many input lines it counts as for -L (0 or 1: a
// line continued by a trailing blank counts with the line that ends it).
// At the end of input it returns io.EOF with no items. On an unmatched
// quote it returns the items read so far on the line with a *QuoteError;
// reading any further returns io.EOF.
func (s *XargsSplitter) ReadLine() (items []string, lines int, err error) {
	if s.done {
		return nil, 0, io.EOF
	}
	state := xsSpace
	var quote byte
	first := true // no item of this line has been pushed yet
	prev := -1    // the previous byte read, or -1
	s.buf = s.buf[:0]
	push := func() bool {
		item := s.cut(s.buf)
		s.buf = s.buf[:0]
		if s.EOF != "" && item == s.EOF {
			s.done = true
			return false
		}
		items = append(items, item)
		first = false
		return true
	}
	for {
		c, rerr := s.r.ReadByte()
		if rerr != nil {
			s.done = true
			if !errors.Is(rerr, io.EOF) {
				return items, lines, rerr
			}
			if len(s.buf) == 0 {
				if len(items) == 0 {
					return nil, lines, io.EOF
				}
				return items, lines, nil
			}
			if state == xsQuote {
				return items, lines, &QuoteError{Quote: quote}
			}
			if first && s.EOF != "" && s.cut(s.buf) == s.EOF {
				return nil, lines, io.EOF
			}
			// At the very end xargs pushes even the EOF string when other
			// items came before it on the line; so does fan.
			items = append(items, s.cut(s.buf))
			return items, lines, nil
		}
		p := prev
		prev = int(c)
		switch state {
		case xsSpace:
			if isSpace(c) {
				continue
			}
			state = xsNorm
			fallthrough
		case xsNorm:
			if c == '\n' {
				if !isBlank(p) {
					lines++
				}
				if !push() {
					return items, lines, eofIfNone(items)
				}
				return items, lines, nil
			}
			if !s.Lines && (c == ' ' || c == '\t') {
				if !push() {
					return items, lines, eofIfNone(items)
				}
				state = xsSpace
				continue
			}
			switch c {
			case '\\':
				state = xsEscape
				continue
			case '\'', '"':
				state, quote = xsQuote, c
				continue
			}
		case xsQuote:
			if c == '\n' {
				s.done = true
				return items, lines, &QuoteError{Quote: quote}
			}
			if c == quote {
				state = xsNorm
				continue
			}
		case xsEscape:
			state = xsNorm
		}
		s.buf = append(s.buf, c)
	}
}

// eofIfNone is the end of input when a line ended at the EOF string: the
// items before it on the line still count.
func eofIfNone(items []string) error {
	if len(items) == 0 {
		return io.EOF
	}
	return nil
}

// cut turns an item's bytes into a string, cutting it at a NUL byte as the
// exec of a C string would (xargs also warns; fan's reader owns no stderr).
func (s *XargsSplitter) cut(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}

// isSpace is C's isspace in the POSIX locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// isBlank is C's isblank; -1 (no byte) is not blank.
func isBlank(c int) bool { return c == ' ' || c == '\t' }

// DelimitedLines reads xargs's -0 and -d input: every record of Src is one
// item on a line of its own, taken literally (no quotes, no escapes, no
// end-of-input string), empty records included.
type DelimitedLines struct {
	Src Source
}

// ReadLine implements LineReader.
func (d *DelimitedLines) ReadLine() ([]string, int, error) {
	rec, err := d.Src.Next()
	if err != nil {
		return nil, 0, err
	}
	return []string{rec}, 1, nil
}

// XargsQuote writes an item so that an XargsSplitter reads it back as one
// item, unchanged: blanks, quotes, backslashes and newlines are escaped
// with a backslash, and the empty item is "". The failures file of an
// --xargs run is written with it, so that fan --xargs -a FILE re-runs
// exactly the items that failed.
func XargsQuote(s string) string {
	if s == "" {
		return `""`
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isSpace(c) || c == '\'' || c == '"' || c == '\\' {
			if b == nil {
				b = append(make([]byte, 0, len(s)+8), s[:i]...)
			}
			b = append(b, '\\')
		}
		if b != nil {
			b = append(b, c)
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}
