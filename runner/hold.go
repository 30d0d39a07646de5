package runner

import (
	"context"
	"sync"
)

// The output hold. Without -k, a finished job's output waits in its spool
// files only until the output stage writes it; but when fan's stdout is
// read slowly, jobs would go on starting and finishing while their output
// piles up on disk, all of it in the end. The hold counts the finished
// jobs whose output the output stage has not written yet, and their bytes;
// while two or more of them wait with more than the limit in all, the pool
// starts no job. So a slow reader of fan's output slows fan down, as the
// bounded item queue slows the reading of fan's input.
//
// One job's output alone never holds starts back, however large: while it
// is written the next jobs run, as they would with a fast reader. What
// waits on disk is thus at most about the limit, or two jobs' output, plus
// the output of the jobs that finish while starts are held (at most one a
// slot).
//
// With -k the window bounds the results waiting (order.go); with
// --line-buffer output is written while jobs run; with -u it is not
// captured. The hold is for the grouped mode in completion order.

// holdJobs is how many finished jobs' output may wait, whatever its size,
// before the byte limit holds starts back.
const holdJobs = 2

// hold is the finished output not yet written, and the limit in bytes
// above which no job starts (0: no limit). It is safe for concurrent use.
type hold struct {
	mu      sync.Mutex
	limit   int64 // set before the pool starts, never changed: read without mu
	bytes   int64
	jobs    int           // finished jobs whose output waits
	waiting bool          // a start waits for room
	room    chan struct{} // closed when room was made while one waited
}

// add counts a finished job's output of n bytes.
func (h *hold) add(n int64) {
	if n == 0 {
		return
	}
	h.mu.Lock()
	h.bytes += n
	h.jobs++
	h.mu.Unlock()
}

// release uncounts a job's output of n bytes, written now, and wakes a
// start waiting for room.
func (h *hold) release(n int64) {
	if n == 0 {
		return
	}
	h.mu.Lock()
	h.bytes -= n
	h.jobs--
	if h.waiting && !h.full() {
		close(h.room)
		h.waiting = false
	}
	h.mu.Unlock()
}

// wait waits until there is room for a start; it fails when ctx ends
// first.
func (h *hold) wait(ctx context.Context) bool {
	if h.limit == 0 {
		return ctx.Err() == nil // no hold: the common case, no lock
	}
	for {
		h.mu.Lock()
		if !h.full() {
			h.mu.Unlock()
			return ctx.Err() == nil
		}
		if !h.waiting {
			h.room = make(chan struct{})
			h.waiting = true
		}
		room := h.room
		h.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return false
		}
	}
}

// over reports whether starts are held back now.
func (h *hold) over() bool {
	if h.limit == 0 {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.full()
}

// full reports whether starts are held back; h.mu is held.
func (h *hold) full() bool {
	return h.limit > 0 && h.jobs >= holdJobs && h.bytes > h.limit
}
