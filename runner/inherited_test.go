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

// The numbers syscall.ForkExec takes in the child must miss every
// inherited descriptor once clearOfInherited has moved what it must, with
// one copy at most; forkScratch's model of them is checked against real
// forks by TestStartKeepsInheritedDescriptors and core_job_descriptors.
func TestForkScratch(t *testing.T) {
	for _, tc := range []struct {
		stdio             []uintptr
		first, last, high int
	}{
		{[]uintptr{0, 1, 2}, 4, 4, 0},
		{[]uintptr{9, 1, 2}, 10, 10, 0},
		{[]uintptr{0, 250, 2}, 251, 251, 1},
		{[]uintptr{0, 1, 1}, 4, 5, 0}, // stderr onto stdout: copied up first
		{[]uintptr{30, 0, 40}, 41, 42, 2},
	} {
		if first, last, hi := forkScratch(tc.stdio); first != tc.first || last != tc.last || hi != tc.high {
			t.Errorf("forkScratch(%v) = %d, %d, %d; want %d, %d, %d", tc.stdio, first, last, hi, tc.first, tc.last, tc.high)
		}
	}
}

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
		{"every other number inherited above", []uintptr{700, 1, 2}, []int{701, 703, 705, 707, 709}, true},
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
			if moved >= 0 {
				defer unix.Close(moved)
			}
			if !slices.Equal(in, tc.stdio) {
				t.Errorf("stdio changed to %v", in)
			}
			if got := moved >= 0; got != tc.moves {
				t.Errorf("moved %d, want a move: %v", moved, tc.moves)
			}
			for i, fd := range out {
				if !sameFile(t, int(fd), int(tc.stdio[i])) {
					t.Errorf("entry %d is fd %d, not the file of %d", i, fd, tc.stdio[i])
				}
			}
			first, last, _ := forkScratch(out)
			for fd := first; fd <= last; fd++ {
				if slices.Contains(tc.inherited, fd) {
					t.Errorf("stdio %v: ForkExec would take inherited fd %d", out, fd)
				}
			}
		})
	}
}

// A job keeps a descriptor fan inherited even when the descriptor it is
// handed for its stdout is numbered just below it, where ForkExec puts its
// own error pipe in the child (vforkSpawn puts nothing there).
func TestStartKeepsInheritedDescriptors(t *testing.T) {
	forEachSpawnPath(t, func(t *testing.T, start spawnPath) {
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
		pr, err := start(c, nil, []uintptr{l.devnull.Fd(), inherited - 1, 2}, l.inherited)
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
	})
}
