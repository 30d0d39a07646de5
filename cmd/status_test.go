package cmd

import "testing"

// Under --xargs, SIGUSR1 and SIGUSR2 move the limit by one as GNU xargs
// 4.9 does: a raise from no limit (-P 0) makes it 1, a lowering stops at
// 1 and leaves no limit alone.
func TestXargsStep(t *testing.T) {
	for _, c := range []struct{ limit, step, want int }{
		{1, 1, 2}, {4, 1, 5}, {0, 1, 1}, {maxJobs, 1, maxJobs},
		{4, -1, 3}, {2, -1, 1}, {1, -1, 1}, {0, -1, 0},
	} {
		if got := xargsStep(c.limit, c.step); got != c.want {
			t.Errorf("-P %d, step %+d: %d, want %d", c.limit, c.step, got, c.want)
		}
	}
}
