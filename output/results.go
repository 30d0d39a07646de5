package output

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fan-run/fan/runner"
)

// Saver keeps a copy of what each job wrote and how it ended (--results):
// Results as files in a directory, ResultsTable as rows of one file.
type Saver interface {
	// Save keeps the record of one job that ran; out and errf are its
	// captured output (nil when it wrote nothing there).
	Save(r *runner.Result, out, errf *os.File) error
}

// Results saves what each job wrote and how it ended under a directory
// (--results DIR), in GNU parallel's layout: for a job whose input records
// are a (first source) and b (second source),
//
//	DIR/1/a/2/b/seq       the job number (no newline, as GNU parallel)
//	DIR/1/a/2/b/stdout    its stdout, byte for byte
//	DIR/1/a/2/b/stderr    its stderr, byte for byte
//	DIR/1/a/2/b/exitval   its exit status, and a newline
//
// The source number of the n-th record of a job is n modulo Sources, plus
// one, so -n 2 with one source gives DIR/1/a/1/b. Record values are made
// safe as file names by escape.
//
// With Name set (DIR held replacement strings, --results 'out/{}'), a job's
// files are instead NAME, NAME.err and NAME.seq, NAME being Name rendered
// for the job, as in GNU parallel; a NAME ending in / is a directory that
// holds the four files above.
type Results struct {
	Dir string
	// Sources is how many input sources a job takes a record from.
	Sources int
	// Name, when set, names each job's files (see above).
	Name *runner.Text
	// Colsep, when set (--colsep), splits each record into columns, which
	// take a level pair each, numbered through a tuple of records as GNU
	// parallel numbers them: DIR/1/a/2/b for the record a,b.
	Colsep *regexp.Regexp
	// Names, when set (--header), name the levels in place of the column
	// numbers: Names[n-1] for column n, as GNU parallel names them.
	Names []string
}

// jobDir is the directory of one job's files.
func (rs *Results) jobDir(r *runner.Result) string {
	n := max(rs.Sources, 1)
	elems := []string{rs.Dir}
	col := 0 // the last column's number within the tuple
	for i, rec := range r.Item.Records {
		if i%n == 0 {
			col = 0 // a new tuple
		}
		cols := []string{rec}
		if rs.Colsep != nil {
			cols = rs.Colsep.Split(rec, -1)
		}
		for _, c := range cols {
			col++
			level := strconv.Itoa(col)
			if col <= len(rs.Names) && rs.Names[col-1] != "" {
				level = escape(rs.Names[col-1])
			}
			elems = append(elems, level, escape(c))
		}
	}
	return filepath.Join(elems...)
}

// nameMax is the longest a file name may be (NAME_MAX, in bytes, on
// Linux's file systems).
const nameMax = 255

// escape turns a record into one file name: '\' becomes `\\` and '/'
// becomes `\_`, as GNU parallel does. Unlike GNU parallel, the names that a
// file name cannot be ("", "." and "..") get a leading `\` too (`\`, `\.`,
// `\..`), which no other record escapes to, so that no two jobs share a
// directory. A name longer than a file name may be is cut to nameMax
// bytes, as GNU parallel cuts it.
func escape(rec string) string {
	switch rec {
	case "", ".", "..":
		return `\` + rec
	}
	if strings.ContainsAny(rec, `\/`) {
		rec = strings.NewReplacer(`\`, `\\`, `/`, `\_`).Replace(rec)
	}
	return rec[:min(len(rec), nameMax)]
}

// Save writes the files of one job that ran; out and errf are its
// captured output (nil when it wrote nothing there).
func (rs *Results) Save(r *runner.Result, out, errf *os.File) error {
	if rs.Name != nil {
		name := rs.Name.Render(&r.Item, r.Slot)
		if slices.Contains(strings.Split(name, "/"), "..") {
			// Items are data: one must not steer the files out of where
			// the name puts them.
			return fmt.Errorf("job %d's results would go to %q, which climbs out with \"..\" (give items without it, or the --results DIR form)", r.Item.Seq, name)
		}
		if strings.HasSuffix(name, "/") {
			return saveDir(name, r, out, errf) // 'out/{}/': a directory per job
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		return errors.Join(
			saveFile(name, out),
			saveFile(name+".err", errf),
			writeSmall(name+".seq", strconv.FormatInt(r.Item.Seq, 10)),
		)
	}
	return saveDir(rs.jobDir(r), r, out, errf)
}

// saveDir writes one job's files into dir: seq, stdout, stderr and
// exitval.
func saveDir(dir string, r *runner.Result, out, errf *os.File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return errors.Join(
		writeSmall(filepath.Join(dir, "seq"), strconv.FormatInt(r.Item.Seq, 10)),
		saveFile(filepath.Join(dir, "stdout"), out),
		saveFile(filepath.Join(dir, "stderr"), errf),
		writeSmall(filepath.Join(dir, "exitval"), strconv.Itoa(exitval(r))+"\n"),
	)
}

// exitval is a job's exit status as a shell's $? has it: 128 plus the
// signal for a job a signal ended (15 for a timed-out job).
func exitval(r *runner.Result) int {
	switch {
	case r.Signal != 0:
		return 128 + int(r.Signal)
	case r.TimedOut:
		return 128 + 15
	}
	return r.Status
}

func writeSmall(path, s string) error {
	return os.WriteFile(path, []byte(s), 0o644)
}

// saveFile copies the whole of src (nil: nothing) to a new file at path.
func saveFile(path string, src *os.File) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if src != nil {
		err = copyRange(f, src, 0, size(src))
	}
	return errors.Join(err, f.Close())
}
