package remote

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"sync"
)

// The wrapper that runs a job on its host (wrapper.go) speaks to fan on the
// job's stderr, in two lines that no job writes by chance (they start with
// the byte 0x1f and a random nonce):
//
//	\x1fNONCE P PGID\n     first: the job started, in process group PGID
//	\x1fNONCE E STATUS\n   last: the job ended with STATUS
//
// What comes before the first is not the job's (ssh's errors, a login
// script's chatter): it is kept for the message of a failure to start. What
// comes between them is the job's stderr, copied through.

// demux reads a job's ssh stderr: it finds the two lines, keeps what came
// before the first, and copies the job's stderr to dst.
type demux struct {
	start, end []byte // "\x1fNONCE P ", "\x1fNONCE E "
	dst        io.Writer

	r       *os.File      // the stream
	started chan struct{} // closed when the start line has been read
	done    chan struct{} // closed when the stream has ended

	mu     sync.Mutex
	pre    tail // the end of what came before the start line
	pgid   int
	status int // -1: no end line
}

func newDemux(nonce string, r *os.File, dst io.Writer) *demux {
	return &demux{
		r:       r,
		start:   []byte("\x1f" + nonce + " P "),
		end:     []byte("\x1f" + nonce + " E "),
		dst:     dst,
		started: make(chan struct{}),
		done:    make(chan struct{}),
		status:  -1,
	}
}

// run reads the stream to its end (or until closeNow), then closes it and
// done.
func (d *demux) run() {
	r := d.r
	defer close(d.done)
	defer r.Close()
	buf := make([]byte, 32*1024)
	var pending []byte // unread: the start line's beginning, or the end line's
	begun := false
	for {
		n, err := r.Read(buf)
		data := append(pending, buf[:n]...)
		pending = nil
		if !begun {
			data, begun = d.findStart(data, err != nil)
			if !begun {
				pending = data
			}
		}
		if begun && len(data) > 0 {
			if err == nil {
				i := bytes.LastIndexByte(data, 0x1f)
				if i >= 0 && d.mayEnd(data[i:]) {
					pending = append([]byte(nil), data[i:]...)
					data = data[:i]
				}
			} else if d.ends(data) {
				return
			}
			d.dst.Write(data)
		}
		if err != nil {
			return
		}
	}
}

// findStart looks for the start line in data. Before it, it keeps what it
// passes in pre and returns what may still begin the line; after it, it
// returns what follows the line and true.
func (d *demux) findStart(data []byte, eof bool) ([]byte, bool) {
	if i := bytes.Index(data, d.start); i >= 0 {
		if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
			pgid, err := strconv.Atoi(string(data[i+len(d.start) : i+j]))
			if err == nil {
				d.keepPre(data[:i])
				d.mu.Lock()
				d.pgid = pgid
				d.mu.Unlock()
				close(d.started)
				return data[i+j+1:], true
			}
		} else if !eof {
			d.keepPre(data[:i])
			return data[i:], false
		}
	}
	if eof {
		d.keepPre(data)
		return nil, false
	}
	// Keep back what could be the start line's beginning.
	keep := min(len(data), len(d.start)-1)
	d.keepPre(data[:len(data)-keep])
	return data[len(data)-keep:], false
}

func (d *demux) keepPre(b []byte) { d.pre.Write(b) }

// mayEnd reports whether b (which starts with 0x1f) may be the beginning
// of the end line: it is held back until more comes.
func (d *demux) mayEnd(b []byte) bool {
	if len(b) <= len(d.end) {
		return bytes.HasPrefix(d.end, b)
	}
	if !bytes.HasPrefix(b, d.end) {
		return false
	}
	digits := b[len(d.end):]
	if len(digits) > 0 && digits[len(digits)-1] == '\n' {
		digits = digits[:len(digits)-1]
	}
	return len(digits) <= 3 && bytes.Trim(digits, "0123456789") == nil
}

// ends reads the end line at the end of data, the stream's last bytes:
// when data ends with it, what precedes it is written and ends is true.
func (d *demux) ends(data []byte) bool {
	i := bytes.LastIndex(data, d.end)
	if i < 0 || data[len(data)-1] != '\n' {
		return false
	}
	status, err := strconv.Atoi(string(data[i+len(d.end) : len(data)-1]))
	if err != nil || status < 0 || status > 255 {
		return false
	}
	d.dst.Write(data[:i])
	d.mu.Lock()
	d.status = status
	d.mu.Unlock()
	return true
}

// closeNow ends run's reading before the stream's end.
func (d *demux) closeNow() { d.r.Close() }

// result returns the job's process group, its status (-1 without the end
// line) and what preceded the start line.
func (d *demux) result() (pgid, status int, pre string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pgid, d.status, d.pre.String()
}

// begun reports whether the start line has been read.
func (d *demux) begun() bool { return closed(d.started) }
