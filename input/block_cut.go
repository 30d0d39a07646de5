package input

import "bytes"

// Record boundaries. A boundary is where one record ends and the next
// begins: just after an End that a Start follows. The buffers searched
// always begin at a record start (the input's start, or the last cut), as
// GNU parallel's buffer does, so a regular expression sees the buffer's
// first byte as the beginning of its text.
//
// Without Regexp, End and Start are bytes and the search is GNU
// parallel's: bytes.LastIndex for the last boundary of a buffer (the
// block size), bytes.Index from the last boundary for the next one (-N).
//
// Under Regexp, one expression End()Start finds them, scanning forward
// with leftmost-first matches that do not overlap (FindAll). GNU parallel
// instead asks Perl for the last End that a Start follows (greedy .*), and
// under -N for records that each run to the first End+Start; the two
// agree unless one delimiter match can overlap the next (an End that
// could also begin inside a Start, say), which real record formats avoid.

// last returns the last boundary of data, or -1 when data has none. A
// boundary at 0 (a Start at the very beginning) does not count: the
// record before it is empty.
func (c *cutRule) last(data []byte) int {
	if c.re == nil {
		i := bytes.LastIndex(data, c.sep)
		if i < 0 || i+c.endLen == 0 {
			return -1
		}
		return i + c.endLen
	}
	return c.lastMatch(data)
}

// lastWindow is the first tail of a buffer lastMatch scans, and
// lastMargin how far after a window's start a match must begin to be
// taken as a full scan's.
const (
	lastWindow = 16 << 10
	lastMargin = 1 << 10
)

// lastMatch is last under Regexp. A forward scan of a whole block size is
// slow (Go's regexp engine has no reverse search), so it scans the tail of
// data, doubling it until it holds a boundary that begins at least
// lastMargin after the tail's start. The tail starts one byte early, so
// that ^, $ and \b at the tail's first byte see the byte before it, and a
// match on that byte is not taken. A forward scan from the tail resumes
// the full scan's matches within a few bytes of its start (delimiters
// are short), so the last boundary is the same unless delimiter matches
// run on for more than lastMargin bytes; the whole buffer is scanned when
// the tail would be more than half of it.
func (c *cutRule) lastMatch(data []byte) int {
	for w := lastWindow; ; w *= 2 {
		from := len(data) - w
		if from < len(data)/2 {
			from = 0
		}
		ctx := min(from, 1)
		ms := c.re.FindAllSubmatchIndex(data[from-ctx:], -1)
		for k := len(ms) - 1; k >= 0; k-- {
			m := ms[k]
			if from > 0 && m[0] < ctx+lastMargin {
				break
			}
			if b := from - ctx + m[2*c.cut]; b > 0 {
				return b
			}
		}
		if from == 0 {
			return -1
		}
	}
}

// nth returns the end of the n-th record of data (the n-th boundary after
// 0), or -1 when data holds fewer than n records followed by a boundary.
//
// GNU parallel (without Regexp) looks for the first separator from offset
// 1, not 0, so that a Start at the beginning is not taken for a boundary;
// but that also skips an End at offset 0 (an empty line under the default
// "\n"), merging it with the next record: -N1 over "a\n\nb\n" gives it
// "a\n" and "\nb\n". fan counts the empty record: "a\n", "\n", "b\n".
func (c *cutRule) nth(data []byte, n int) int {
	if c.re == nil {
		b := 0
		for range n {
			if b = c.next(data, b); b < 0 {
				return -1
			}
		}
		return b
	}
	for _, m := range c.re.FindAllSubmatchIndex(data, n+1) {
		if b := m[2*c.cut]; b > 0 {
			if n--; n == 0 {
				return b
			}
		}
	}
	return -1
}

// next returns the first boundary after from (a boundary) whose separator
// starts at or after from, or -1. Without Regexp only.
func (c *cutRule) next(data []byte, from int) int {
	for s := from; s <= len(data); {
		i := bytes.Index(data[s:], c.sep)
		if i < 0 {
			return -1
		}
		if b := s + i + c.endLen; b > from {
			return b
		}
		s += i + 1 // an empty End and a Start right at from: look further
	}
	return -1
}

// lineCut returns the end of the last whole record of c.lines lines in
// data ("\n"-terminated), or -1 when there is none (GNU parallel's -L
// without -N, which counts "\n" whatever --recend is).
func (c *cutRule) lineCut(data []byte) int {
	k := bytes.Count(data, []byte{'\n'})
	m := k - k%c.lines
	if m == 0 {
		return -1
	}
	i := len(data)
	for range k - m + 1 {
		i = bytes.LastIndexByte(data[:i], '\n')
	}
	return i + 1
}

// junk returns, under Regexp with -N, the length of what precedes the
// first record when data (the start of the input) does not begin with a
// Start: GNU parallel gives it to a job of its own. It is 0 when data
// begins with a Start, and -1 when it does not and data has no boundary
// yet.
func (c *cutRule) junk(data []byte) int {
	if c.start.Match(data) {
		return 0
	}
	return c.nth(data, 1)
}

// headerLen returns the length of the header at the start of data, and
// whether the header expression matched there.
func (c *cutRule) headerLen(data []byte) (int, bool) {
	m := c.header.FindIndex(data)
	if m == nil {
		return 0, false
	}
	return m[1], true
}
