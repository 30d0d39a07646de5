package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// readBufSize is the size of the buffer records are read through. Records
// may be longer; they are assembled from several reads.
const readBufSize = 64 << 10

// Splitter reads delimiter-terminated records from a reader. The last record
// may lack its delimiter. Records are returned byte for byte: no encoding is
// assumed and "\r\n" line ends keep their "\r".
type Splitter struct {
	r     *bufio.Reader
	delim []byte
	acc   []byte
	gate  *Gate // the reader, when it is a Gate: see Gate.partial
}

// NewSplitter returns a Splitter that reads records ending with delim, which
// must not be empty. Over a Gate, a record begun when the gate closes is
// still read to its end, if that comes soon.
func NewSplitter(r io.Reader, delim []byte) *Splitter {
	g, _ := r.(*Gate)
	return &Splitter{r: bufio.NewReaderSize(r, readBufSize), delim: delim, gate: g}
}

// Next returns the next record. At the end of input it returns io.EOF; any
// other error is a read error.
func (s *Splitter) Next() (string, error) {
	chunk, err := s.r.ReadSlice(s.delim[len(s.delim)-1])
	if err == nil && bytes.HasSuffix(chunk, s.delim) {
		// The common case: the whole record was in the buffer.
		return string(chunk[:len(chunk)-len(s.delim)]), nil
	}
	return s.assemble(chunk, err)
}

// assemble reads the rest of a record that the buffer did not hold whole,
// given its first chunk and the error reading it. (Apart from Next, whose
// every call would otherwise pay for the defer below.)
func (s *Splitter) assemble(chunk []byte, err error) (string, error) {
	last := s.delim[len(s.delim)-1]
	s.acc = s.acc[:0]
	for ; ; chunk, err = s.r.ReadSlice(last) {
		s.acc = append(s.acc, chunk...)
		switch {
		case err == nil:
			if bytes.HasSuffix(s.acc, s.delim) {
				return string(s.acc[:len(s.acc)-len(s.delim)]), nil
			}
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			if len(s.acc) == 0 {
				return "", io.EOF
			}
			return string(s.acc), nil
		case errors.Is(err, ErrStopped) && len(s.acc) > 0 && s.gate != nil && !s.gate.partial.Load():
			s.gate.partial.Store(true) // read on to the record's end, once
			defer func() {
				s.gate.partial.Store(false)
				s.gate.rest.Store(-1)
			}()
		case errors.Is(err, ErrStopped) && len(s.acc) > 0:
			// The rest of the record did not come in time: the bytes
			// taken of it are in no item, and the caller says so.
			return "", &StoppedPart{Read: bytes.Clone(s.acc)}
		default:
			return "", err
		}
	}
}

// StoppedPart is the error Next returns when a drain stopped the input
// part way through a record and the rest of it did not come in time (see
// Gate.partial): Read holds the bytes taken of the record, which no item
// carries; the rest was left unread. It is an ErrStopped.
type StoppedPart struct{ Read []byte }

func (e *StoppedPart) Error() string {
	return fmt.Sprintf("input stopped part way through a record, after %d bytes of it", len(e.Read))
}

// Unwrap makes a StoppedPart an ErrStopped.
func (e *StoppedPart) Unwrap() error { return ErrStopped }

// ParseDelimiter turns the argument of -d into the bytes it stands for
// (see Unescape).
func ParseDelimiter(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("the delimiter is empty (try -d '\\n' or -0)")
	}
	d, err := Unescape(s)
	if err != nil {
		return nil, fmt.Errorf("delimiter %q: %w", s, err)
	}
	return d, nil
}

// Unescape turns the escapes GNU parallel understands in -d and
// --tagstring into the bytes they stand for: \n, \t, \r, \NNN and \N in
// octal (so \0 is NUL), and also \\ and \xHH; other text, and any other
// backslash, is literal.
func Unescape(s string) ([]byte, error) {
	var out []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i == len(s)-1 {
			out = append(out, c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case '\\':
			out = append(out, '\\')
		case 'x':
			if i+3 > len(s) {
				return nil, errors.New("\\x needs two hex digits")
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return nil, errors.New("\\x needs two hex digits")
			}
			out = append(out, byte(v))
			i += 2
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n := 1 // \N, or \NNN when three octal digits follow the backslash
			if i+3 <= len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) {
				n = 3
			}
			v, err := strconv.ParseUint(s[i:i+n], 8, 16)
			if err != nil || v > 255 {
				return nil, fmt.Errorf("\\%s is not a byte in octal", s[i:i+n])
			}
			out = append(out, byte(v))
			i += n - 1
		default:
			out = append(out, '\\', s[i])
		}
	}
	return out, nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// ParseXargsDelimiter reads the argument of -d under --xargs as GNU xargs
// does: one character, or one escape (\a \b \f \n \r \t \v \\, \xHH
// in hex, \NNN in octal) standing for one byte.
func ParseXargsDelimiter(s string) (byte, error) {
	switch {
	case len(s) == 1:
		return s[0], nil
	case len(s) < 2 || s[0] != '\\':
		return 0, fmt.Errorf("%q is not one character or an escape starting with \\ (try -d '\\n' or -d ,)", s)
	}
	if len(s) == 2 {
		if c, ok := map[byte]byte{'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', '\\': '\\'}[s[1]]; ok {
			return c, nil
		}
	}
	digits, base := s[1:], 8
	if s[1] == 'x' {
		digits, base = s[2:], 16
	}
	if digits == "" && base == 16 {
		return 0, nil // "\x" alone is NUL, as in xargs
	}
	v, err := strconv.ParseUint(digits, base, 8)
	if err != nil || (base == 8 && (s[1] < '0' || s[1] > '9')) {
		return 0, fmt.Errorf("%q is not an escape xargs knows (\\n \\t \\0 \\xHH \\NNN ...)", s)
	}
	return byte(v), nil
}

// IsBlank reports whether a record holds nothing but blanks (what -r skips).
func IsBlank(rec string) bool {
	return strings.TrimLeft(rec, " \t\r\n\v\f") == ""
}
