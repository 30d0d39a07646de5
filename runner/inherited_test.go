package runner

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openAt opens /dev/null at descriptor fd, close-on-exec unless inherit,
// closed when the test ends.
func openAt(t *testing.T, fd int, inherit bool) {
	t.Helper()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	flags := unix.O_CLOEXEC
	if inherit {
		flags = 0
	}
	if err := unix.Dup3(int(null.Fd()), fd, flags); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
}

// sameFile reports whether descriptors a and b are the same open file.
func sameFile(t *testing.T, a, b int) bool {
	t.Helper()
	var sa, sb unix.Stat_t
	if unix.Fstat(a, &sa) != nil || unix.Fstat(b, &sb) != nil {
		t.Fatalf("fstat %d or %d failed", a, b)
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// The numbers syscall.ForkExec takes in the child (one past the highest
// entry, one more per entry below its place) must miss every inherited
// descriptor once clearOfInherited has moved what it must.
func TestClearOfInherited(t *testing.T) {
	openAt(t, 700, false)
	openAt(t, 710, false)
	for _, tc := range []struct {
		name      string
		stdio     []uintptr
		inherited []int
		moves     bool
	}{
		{"none inherited", []uintptr{700, 1, 2}, nil, false},
		{"inherited far above", []uintptr{700, 1, 2}, []int{702, 900}, false},
		{"inherited just above", []uintptr{700, 1, 2}, []int{701}, true},
		{"inherited just above, then at the copy's next", []uintptr{700, 1, 2}, []int{701, 703, 704, 705}, true},
		{"stdout inherited just above", []uintptr{0, 710, 2}, []int{711}, true},
		{"an entry below its place takes one more", []uintptr{710, 0, 2}, []int{712}, true},
		{"standard streams: past len(stdio)", []uintptr{0, 1, 2}, []int{4}, true},
		{"standard streams, fd 3 inherited", []uintptr{0, 1, 2}, []int{3}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.stdio)
			out, moved, err := clearOfInherited(in, tc.inherited)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				for _, fd := range moved {
					unix.Close(fd)
				}
			}()
			if !slices.Equal(in, tc.stdio) {
				t.Errorf("stdio changed to %v", in)
			}
			if got := len(moved) > 0; got != tc.moves {
				t.Errorf("moved %v, want a move: %v", moved, tc.moves)
			}
			top, used := len(out), 1
			for i, fd := range out {
				top = max(top, int(fd))
				if int(fd) < i {
					used++
				}
				if !sameFile(t, int(fd), int(tc.stdio[i])) {
					t.Errorf("entry %d is fd %d, not the file of %d", i, fd, tc.stdio[i])
				}
			}
			for fd := top + 1; fd <= top+used; fd++ {
				if slices.Contains(tc.inherited, fd) {
					t.Errorf("stdio %v: ForkExec would take inherited fd %d", out, fd)
				}
			}
		})
	}
}

// A job keeps a descriptor fan inherited even when the descriptor it is
// handed for its stdout is numbered just below it, where ForkExec puts its
// own error pipe in the child.
func TestStartKeepsInheritedDescriptors(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	const inherited = 801
	openAt(t, inherited, true)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := unix.Dup3(int(w.Fd()), inherited-1, unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	w.Close()
	l, err := NewLocal()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !slices.Contains(l.inherited, inherited) {
		t.Fatalf("fd %d not found inherited: %v", inherited, l.inherited)
	}
	c := &Command{Path: sh, Args: []string{sh, "-c", "ls /proc/self/fd"}}
	pr, err := l.startProcess(c, nil, []uintptr{l.devnull.Fd(), inherited - 1, 2})
	unix.Close(inherited - 1)
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	if ws, _ := pr.wait(bg, bg, nil, false); ws.ExitStatus() != 0 {
		t.Fatalf("ls: status %v", ws)
	}
	fds := strings.Fields(string(bytes.TrimSpace(out)))
	if !slices.Contains(fds, strconv.Itoa(inherited)) {
		t.Errorf("the job's descriptors %v lack the inherited %d", fds, inherited)
	}
	if slices.Contains(fds, strconv.Itoa(inherited-1)) {
		t.Errorf("the job's descriptors %v hold fan's own %d", fds, inherited-1)
	}
}
