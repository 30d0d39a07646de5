package cmd

import (
	"testing"

	"github.com/fan-run/fan/runner"
)

// TestQueues: what may wait between the stages is bounded by what it
// holds. Small items of a dry run wait by the thousand (maxQueue results,
// DryBatch to an event without -k); packed items, each up to a whole
// command line, wait a few per slot in a dry run too, where thousands of
// them were gigabytes when stdout was read slowly.
func TestQueues(t *testing.T) {
	for _, c := range []struct {
		argv          []string
		items, events int
	}{
		{[]string{"-j2", "echo"}, 8, 16},
		{[]string{"-j2", "--dry-run", "echo"}, maxQueue, maxQueue / runner.DryBatch},
		{[]string{"-j2", "--dry-run", "-k", "echo"}, maxQueue, maxQueue},
		{[]string{"-j2", "-X", "echo"}, 4, 16},
		{[]string{"-j2", "-X", "--dry-run", "echo"}, 4, 16},
		{[]string{"-j2", "-X", "--dry-run", "-k", "echo"}, 4, 16},
		{[]string{"-j0", "-X", "--dry-run", "echo"}, 2, 16},
		{[]string{"--xargs", "--dry-run", "echo"}, 2, 16},
		{[]string{"-j2", "--pipe", "--dry-run", "wc"}, 4, maxQueue / runner.DryBatch},
	} {
		cfg, err := parse(t, Env{}, c.argv...)
		if err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		items := itemQueue(cfg)
		events := eventQueue(cfg)
		if items != c.items || events != c.events {
			t.Errorf("%q: item queue %d, event buffer %d; want %d, %d", c.argv, items, events, c.items, c.events)
		}
	}
}
