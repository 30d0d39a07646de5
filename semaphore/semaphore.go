// Package semaphore is a counting semaphore shared by processes, for
// fan --semaphore (sem): a directory of slot files, each slot held by an
// flock(2) on its file. The kernel drops a lock when the last descriptor
// of its open file goes, so a slot is free again when its holder ends,
// however it ends (SIGKILL included): nothing is left to clean up.
package semaphore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Sem is the semaphore in Dir with Slots slots. Processes that give the
// same Dir share it; each may give its own Slots (the slots are the files
// slot-0 ... slot-(Slots-1)).
type Sem struct {
	Dir   string
	Slots int
}

// Holder is a slot held: its open, locked file. The slot is free again
// when every descriptor of it is closed, in this process and in the
// children it was passed to.
type Holder struct{ *os.File }

// ErrTimeout is Acquire giving up after its timeout.
var ErrTimeout = errors.New("no slot became free in time")

// pollMin and pollMax bound the wait between tries while every slot is
// held: short at first, so that a slot freed at once is taken at once.
const (
	pollMin = 5 * time.Millisecond
	pollMax = 200 * time.Millisecond
)

// Acquire takes a free slot, waiting for one while all are held, until
// ctx ends or, when timeout is above 0, for that long: then it returns
// ErrTimeout.
func (s Sem) Acquire(ctx context.Context, timeout time.Duration) (*Holder, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, err
	}
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	wait := pollMin
	for {
		h, err := s.tryAcquire()
		if h != nil || err != nil {
			return h, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-deadline:
			t.Stop()
			return nil, ErrTimeout
		case <-t.C:
		}
		wait = min(2*wait, pollMax)
	}
}

// tryAcquire takes a free slot, or returns nil when all are held.
func (s Sem) tryAcquire() (*Holder, error) {
	for i := range max(s.Slots, 1) {
		f, err := os.OpenFile(filepath.Join(s.Dir, fmt.Sprintf("slot-%d", i)), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return &Holder{f}, nil
		}
		f.Close()
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return nil, err
		}
	}
	return nil, nil
}

// Wait waits until no slot of the semaphore is held, whatever Slots the
// holders gave, or until ctx ends. A slot taken after Wait passed it is
// not waited for.
func (s Sem) Wait(ctx context.Context) error {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil // never used: nothing holds it
	}
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "slot-") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, name := range names {
		f, err := os.Open(filepath.Join(s.Dir, name))
		if err != nil {
			continue // removed by hand: not held
		}
		err = waitFree(ctx, f)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// waitFree waits until f's lock is free, polling, as a blocking flock
// could not be given up on when ctx ends.
func waitFree(ctx context.Context, f *os.File) error {
	wait := pollMin
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
		if err == nil {
			return unix.Flock(int(f.Fd()), unix.LOCK_UN)
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, pollMax)
	}
}
