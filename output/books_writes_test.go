package output

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/runner"
)

// packets is a connected pair of SOCK_SEQPACKET sockets: each write(2) to
// w arrives as one packet at the other end, so a test can see how a
// record was written.
func packets(t *testing.T) (w *os.File, read func() []string) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Records of tens of kilobytes must fit the socket's buffer.
	unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_SNDBUF, 4<<20)
	unix.SetsockoptInt(fds[1], unix.SOL_SOCKET, unix.SO_RCVBUF, 4<<20)
	w = os.NewFile(uintptr(fds[0]), "packets")
	t.Cleanup(func() { w.Close(); unix.Close(fds[1]) })
	return w, func() []string {
		var got []string
		buf := make([]byte, 1<<20)
		for {
			n, _, err := unix.Recvfrom(fds[1], buf, unix.MSG_DONTWAIT)
			if err != nil || n == 0 {
				return got
			}
			got = append(got, string(buf[:n]))
		}
	}
}

// bookOn is a bookFile that writes to f as it is.
func bookOn(f *os.File) *bookFile {
	return &bookFile{f: f, path: f.Name(), special: true, begun: true}
}

// The joblog, the failures file, its JSON lines and the --results rows
// write one whole record per write(2), however long it is (a long
// command, items of many kilobytes), so that fan killed between two
// writes leaves no record cut short.
func TestBooksWriteWholeRecords(t *testing.T) {
	long := strings.Repeat("x", 40000) // longer than any usual buffer: a row holds it thrice
	results := []*runner.Result{
		{Item: input.Item{Seq: 1, Args: []string{"a"}, Records: []string{"a", "b"}}, Command: runner.Command{Path: "/bin/echo", Args: []string{"echo", "a"}}, Status: 1},
		{Item: input.Item{Seq: 2, Args: []string{long}, Records: []string{long, long}}, Command: runner.Command{Path: "/bin/echo", Args: []string{"echo", long}}, Status: 2},
		{Item: input.Item{Seq: 3, Records: []string{"c", "d"}}, NotStarted: true, Status: -1},
	}

	logw, logged := packets(t)
	j, err := JoblogTo(logw)
	if err != nil {
		t.Fatal(err)
	}
	failw, failed := packets(t)
	jsw, jsoned := packets(t)
	fl := &Failures{delim: []byte("\n"), perJob: 2, f: bookOn(failw), js: bookOn(jsw)}
	roww, rowed := packets(t)
	tb, err := OpenResultsTable("-.csv", roww)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if err := j.Add(r, 0); err != nil {
			t.Fatal(err)
		}
		if err := fl.Add(r); err != nil {
			t.Fatal(err)
		}
		if err := tb.Save(r, nil, nil); err != nil {
			t.Fatal(err)
		}
	}

	lines := logged()
	if len(lines) != 3 || lines[0] != joblogHeader {
		t.Fatalf("joblog: %d writes, want the header and then a line a job that ran", len(lines))
	}
	for i, l := range lines[1:] {
		if _, _, ok := joblogLine(strings.TrimSuffix(l, "\n")); !ok || strings.Count(l, "\n") != 1 || !strings.HasSuffix(l, "\n") {
			t.Errorf("joblog write %d is not one whole line (%d bytes)", i+2, len(l))
		}
	}
	if got, want := failed(), []string{"a\nb\n", long + "\n" + long + "\n", "c\nd\n"}; !slices.Equal(got, want) {
		t.Errorf("failures file: %d writes, want one a job with its records whole", len(got))
	}
	js := jsoned()
	if len(js) != 3 {
		t.Errorf("failures sidecar: %d writes, want 3", len(js))
	}
	for i, l := range js {
		var rec failureRecord
		if !strings.HasSuffix(l, "\n") || json.Unmarshal([]byte(l), &rec) != nil || rec.Seq != int64(i+1) {
			t.Errorf("sidecar write %d is not one whole JSON line (%d bytes)", i+1, len(l))
		}
	}
	rows := rowed()
	if len(rows) != 3 || !strings.HasPrefix(rows[0], "Seq,") || !strings.Contains(rows[1], long) {
		t.Errorf("results rows: %d writes, want one a row (the header with the first)", len(rows))
	}
}
