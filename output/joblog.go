package output

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/fan-run/fan/runner"
)

// joblogHeader is the first line of a joblog, as GNU parallel writes it.
const joblogHeader = "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n"

// Joblog writes one line per finished job in GNU parallel's --joblog format,
// each in one write(2), so that a crash of fan (even SIGKILL) leaves no line
// cut short but the one the kernel was writing (see dropCutLine).
type Joblog struct {
	f        *bookFile
	line     []byte // the line being made, kept for the next
	header   bool   // the header line is still to be written
	onStdout bool   // see JoblogTo
}

// OpenJoblog opens path for a joblog. With appendTo (--resume) the lines go
// after those already there; otherwise the file is started afresh.
func OpenJoblog(path string, appendTo bool) (*Joblog, error) {
	if appendTo {
		if err := dropCutLine(path); err != nil {
			return nil, err
		}
	}
	f, err := openBook(path, "the joblog", appendTo)
	if err != nil {
		return nil, err
	}
	return &Joblog{f: f, header: !appendTo || f.size() == 0}, nil
}

// JoblogTo starts a joblog on an open file fan does not own, stdout for
// GNU parallel's --joblog -: its header at once, then the lines after
// what is there; never emptied, and closed (a duplicate of it) at the end.
func JoblogTo(f *os.File) (*Joblog, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	b := &bookFile{f: os.NewFile(uintptr(fd), f.Name()), path: f.Name(), what: "the joblog", special: true, begun: true}
	j := &Joblog{f: b, onStdout: true}
	// The header first, before any job's output, as GNU parallel has it.
	_, err = io.WriteString(b, joblogHeader)
	return j, err
}

// OnStdout reports whether the joblog is written to fan's stdout.
func (j *Joblog) OnStdout() bool { return j.onStdout }

// Add writes the line of one result. Jobs that never started have none,
// and neither do jobs the run stopped (a drain, --halt now), as in GNU
// parallel: they did not finish, so --resume runs them again. A job its
// --timeout ended has its line, with Exitval -1 and signal 15.
func (j *Joblog) Add(r *runner.Result, received int64) error {
	if r.NotStarted || r.DryRun || r.Stopped() {
		return nil
	}
	start := float64(r.Start.UnixNano()) / 1e9
	j.line = j.line[:0]
	if j.header {
		j.header = false
		j.line = append(j.line, joblogHeader...)
	}
	cmd := strings.ReplaceAll(r.Command.String(), "\n", " ")
	// Send is the bytes given to the job on its stdin (--pipe), as in GNU
	// parallel; Receive the bytes it wrote on stdout.
	j.line = fmt.Appendf(j.line, "%d\t%s\t%.3f\t%10.3f\t%d\t%d\t%d\t%d\t%s\n",
		r.Item.Seq, r.Slot.Login(), start, r.Runtime.Seconds(), r.Sent, received, r.Status, loggedSignal(r), cmd)
	// One write a line, at once: there even if fan is killed next.
	_, err := j.f.Write(j.line)
	return err
}

// Lost is the line the last Add could not write, when it failed.
func (j *Joblog) Lost() LostRecord {
	return LostRecord{Book: j.f.what, Text: strings.TrimSuffix(strings.TrimPrefix(string(j.line), joblogHeader), "\n")}
}

// loggedSignal is the Signal field of a job's joblog line: the signal that
// ended it, 15 for a timed-out job.
func loggedSignal(r *runner.Result) int {
	if r.TimedOut && r.Signal == 0 {
		return 15
	}
	return int(r.Signal)
}

// Close flushes and closes the joblog; keep is as for bookFile.Close.
func (j *Joblog) Close(keep bool) error {
	var err error
	if keep && j.header {
		_, err = io.WriteString(j.f, joblogHeader) // a run without jobs: the header alone
	}
	return errors.Join(err, j.f.Close(keep))
}

// dropCutLine removes from the end of the file at path a last line that
// has no newline (a run that crashed while writing it): lines appended
// after it would otherwise join it. A missing file is fine.
func dropCutLine(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil || size == 0 {
		return err
	}
	end := size
	buf := make([]byte, 4096)
	for end > 0 {
		n := int64(len(buf))
		if n > end {
			n = end
		}
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			end = end - n + int64(i) + 1
			break
		}
		end -= n
	}
	if end == size {
		return nil
	}
	return f.Truncate(end)
}

// ReadJoblog reads a joblog written earlier and tells, for each job it
// logs, whether the job succeeded: exit value 0 and no signal, as GNU
// parallel's --resume-failed judges it. The last line of a job number
// counts. A missing file is an empty log.
func ReadJoblog(path string) (map[int64]bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[int64]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseJoblog(f)
}

func parseJoblog(r io.Reader) (map[int64]bool, error) {
	done := map[int64]bool{}
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		text, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, err
		}
		if text == "" {
			return done, nil
		}
		cut := !strings.HasSuffix(text, "\n") // the last line, maybe cut off by a crash
		text = strings.TrimSuffix(text, "\n")
		if line == 1 && strings.HasPrefix(text, "Seq\t") {
			continue
		}
		seq, succeeded, ok := joblogLine(text)
		switch {
		case cut:
			// Its job is not done, even if the line looks whole: the
			// line is dropped before new ones are appended (dropCutLine),
			// so the job must run again and be logged again.
			return done, nil
		case ok:
			done[seq] = succeeded
		default:
			return nil, fmt.Errorf("line %d is not a joblog line", line)
		}
	}
}

// joblogLine reads the job number of a joblog line and whether its job
// succeeded (Exitval and Signal both 0).
func joblogLine(text string) (seq int64, succeeded, ok bool) {
	f := strings.SplitN(text, "\t", 9)
	if len(f) < 9 {
		return 0, false, false
	}
	seq, err1 := strconv.ParseInt(f[0], 10, 64)
	exit, err2 := strconv.Atoi(f[6])
	sig, err3 := strconv.Atoi(f[7])
	return seq, exit == 0 && sig == 0, err1 == nil && err2 == nil && err3 == nil
}
