package inorder

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Whatever order the numbers end in, the kept values come out in number
// order, each once, and as soon as every number before it has ended.
func TestQueueHandsOnInOrder(t *testing.T) {
	for run := range 50 {
		rnd := rand.New(rand.NewPCG(uint64(run), 7))
		first := int64(rnd.IntN(2)) // the runner counts from 0, blocks from 1
		n := 1 + rnd.IntN(300)
		q := New[int64](first)
		ended := map[int64]bool{}
		var got, want []int64
		kept := map[int64]bool{}
		for _, i := range rnd.Perm(n) {
			seq := first + int64(i)
			ended[seq] = true
			keep := rnd.IntN(3) > 0
			kept[seq] = keep
			for _, v := range q.End(seq, seq, keep) {
				for s := first; s < v; s++ {
					if !ended[s] {
						t.Fatalf("run %d: %d went out before %d ended", run, v, s)
					}
				}
				got = append(got, v)
			}
			if ended[q.Next()] || q.Next() > first && !ended[q.Next()-1] {
				t.Fatalf("run %d: after %d ended, Next is %d", run, seq, q.Next())
			}
		}
		for s := first; s < first+int64(n); s++ {
			if kept[s] {
				want = append(want, s)
			}
		}
		if rest := q.Rest(); len(rest) > 0 {
			t.Fatalf("run %d: %v still wait after every number ended", run, rest)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("run %d: handed on %v, want %v", run, got, want)
		}
	}
}

// A number that never ends holds back the values behind it until Rest,
// which gives them in order rather than lose them.
func TestQueueRestAfterGap(t *testing.T) {
	q := New[string](0)
	for _, n := range []int64{4, 2, 3} {
		if ready := q.End(n, fmt.Sprint(n), true); len(ready) > 0 {
			t.Fatalf("%d went out with 1 not ended: %v", n, ready)
		}
	}
	if ready := q.End(0, "0", true); !slices.Equal(ready, []string{"0"}) {
		t.Fatalf("the next number's value gave %v, want [0]", ready)
	}
	if rest := q.Rest(); !slices.Equal(rest, []string{"2", "3", "4"}) {
		t.Errorf("rest gave %v, want [2 3 4]", rest)
	}
	if rest := q.Rest(); len(rest) > 0 {
		t.Errorf("a second Rest gave %v again", rest)
	}
}

// The set of ended numbers holds any number of them behind a gap, and
// forgets those below the gap once it closes.
func TestSet(t *testing.T) {
	s := set{first: 1}
	for n := int64(3); n < 1000; n += 2 {
		s.add(n)
	}
	for n := int64(1); n < 1002; n++ {
		if s.has(n) != (n >= 3 && n < 1000 && n%2 == 1) {
			t.Fatalf("has(%d) = %v", n, s.has(n))
		}
	}
	s.forget(500)
	if s.first > 500 || !s.has(501) || s.has(502) || len(s.words) > 9 {
		t.Errorf("after forget(500): first %d, %d words, has(501) %v", s.first, len(s.words), s.has(501))
	}
	s.forget(1 << 40) // far past every number in it
	if len(s.words) != 0 || s.has(999) {
		t.Errorf("after forgetting all: %d words", len(s.words))
	}
	s.add(1<<40 + 5)
	if !s.has(1<<40+5) || len(s.words) > 2 {
		t.Errorf("a number far ahead takes %d words", len(s.words))
	}
}
