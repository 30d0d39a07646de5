// Package inorder puts things numbered in input order back into that
// order, whatever order they end in: the -k results of the runner and the
// failed pipe-mode blocks of the failures file both wait here for the
// ones before them.
package inorder

import (
	"maps"
	"slices"
)

// Queue hands on values in the order of their numbers, from a first
// number on. Each number ends once, with a value to hand on or with none
// (a number that ended with nothing to say still lets the ones behind it
// go). A value waits only while a number before it has not ended. Not
// safe for concurrent use.
type Queue[T any] struct {
	next    int64 // the lowest number that has not ended
	ended   set   // the numbers above next that have ended
	waiting map[int64]T
	ready   []T // End's result, reused
}

// New returns a queue whose numbers start at first.
func New[T any](first int64) Queue[T] {
	return Queue[T]{next: first, ended: set{first: first}}
}

// Next is the lowest number that has not ended: a value that ends with it
// goes out at once, without waiting.
func (q *Queue[T]) Next() int64 { return q.next }

// End records that number n has ended, with value v when keep is true.
// It returns the values that may now go, in order: v itself when n is
// Next, then those that were waiting behind it. The slice is valid until
// the next call to End.
func (q *Queue[T]) End(n int64, v T, keep bool) []T {
	clear(q.ready) // let go of what the last call handed on
	q.ready = q.ready[:0]
	if n != q.next {
		if keep {
			if q.waiting == nil {
				q.waiting = map[int64]T{}
			}
			q.waiting[n] = v
		}
		q.ended.add(n)
		return nil
	}
	if keep {
		q.ready = append(q.ready, v)
	}
	for q.next++; q.ended.has(q.next); q.next++ {
		if w, ok := q.waiting[q.next]; ok {
			q.ready = append(q.ready, w)
			delete(q.waiting, q.next)
		}
	}
	q.ended.forget(q.next)
	return q.ready
}

// Rest returns the values still waiting, in order, and forgets them: at
// the end of a run, whatever is missing before them will not come, and
// they go out rather than be lost.
func (q *Queue[T]) Rest() []T {
	var rest []T
	for _, n := range slices.Sorted(maps.Keys(q.waiting)) {
		rest = append(rest, q.waiting[n])
	}
	q.waiting = nil
	return rest
}

// set is a set of numbers from first on, a bit each: a slow first job may
// keep a million ended ones waiting behind it.
type set struct {
	first int64 // the number of words[0]'s lowest bit
	words []uint64
}

// add puts n, which is not below first, in the set.
func (s *set) add(n int64) {
	i := (n - s.first) / 64
	for int64(len(s.words)) <= i {
		s.words = append(s.words, 0)
	}
	s.words[i] |= 1 << uint((n-s.first)%64)
}

// has reports whether n is in the set.
func (s *set) has(n int64) bool {
	if n < s.first {
		return false
	}
	i := (n - s.first) / 64
	return i < int64(len(s.words)) && s.words[i]&(1<<uint((n-s.first)%64)) != 0
}

// forget drops the numbers below n, a whole word at a time: n and above
// are kept, and so may be a few below it.
func (s *set) forget(n int64) {
	drop := (n - s.first) / 64
	if drop <= 0 {
		return
	}
	s.words = s.words[min(drop, int64(len(s.words))):]
	s.first += drop * 64
}
