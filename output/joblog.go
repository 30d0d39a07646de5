package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"fan/runner"
)

// joblogHeader is the first line of a joblog, as GNU parallel writes it.
const joblogHeader = "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n"

// Joblog writes one line per finished job in GNU parallel's --joblog format.
type Joblog struct {
	f      *bookFile
	w      *bufio.Writer
	header bool // the header line is still to be written
}

// OpenJoblog opens path for a joblog. With appendTo (--resume) the lines go
// after those already there; otherwise the file is started afresh.
func OpenJoblog(path string, appendTo bool) (*Joblog, error) {
	f, err := openBook(path, appendTo)
	if err != nil {
		return nil, err
	}
	return &Joblog{f: f, w: bufio.NewWriter(f), header: !appendTo || f.size() == 0}, nil
}

// Add writes the line of one result. Jobs that never started have none.
func (j *Joblog) Add(r *runner.Result, received int64) error {
	if r.NotStarted || r.DryRun {
		return nil
	}
	start := float64(r.Start.UnixNano()) / 1e9
	sig := int(r.Signal)
	if r.TimedOut && sig == 0 {
		sig = 15
	}
	if j.header {
		j.header = false
		j.w.WriteString(joblogHeader)
	}
	cmd := strings.ReplaceAll(r.Command.String(), "\n", " ")
	_, err := fmt.Fprintf(j.w, "%d\t:\t%.3f\t%10.3f\t0\t%d\t%d\t%d\t%s\n",
		r.Item.Seq, start, r.Runtime.Seconds(), received, r.Status, sig, cmd)
	if err == nil {
		err = j.w.Flush() // a line per job, there even if fan is killed
	}
	return err
}

// Close flushes and closes the joblog; keep is as for bookFile.Close.
func (j *Joblog) Close(keep bool) error {
	if keep && j.header {
		j.w.WriteString(joblogHeader) // a run without jobs: the header alone
	}
	return errors.Join(j.w.Flush(), j.f.Close(keep))
}

// ReadJoblog reads a joblog written earlier and returns the exit value of
// the last line of each job number (--resume, --resume-failed). A missing
// file is an empty log.
func ReadJoblog(path string) (map[int64]int, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[int64]int{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseJoblog(f)
}

func parseJoblog(r io.Reader) (map[int64]int, error) {
	done := map[int64]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if line == 1 && strings.HasPrefix(sc.Text(), "Seq\t") {
			continue
		}
		f := strings.SplitN(sc.Text(), "\t", 9)
		if len(f) < 9 {
			return nil, fmt.Errorf("line %d is not a joblog line", line)
		}
		seq, err1 := strconv.ParseInt(f[0], 10, 64)
		exit, err2 := strconv.Atoi(f[6])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("line %d is not a joblog line", line)
		}
		done[seq] = exit
	}
	return done, sc.Err()
}
