package main

import (
	"strings"
	"testing"
)

// TestTypingHint: fan with its stdin on a terminal and no items given
// says, once, that it reads the items from the terminal and how to give
// them instead, then reads what is typed (in pipe mode, it speaks of the
// input, not of items); with ::: (or --xargs, as xargs) it says nothing.
func TestTypingHint(t *testing.T) {
	t.Parallel()
	const hint = "fan: reading items from the terminal, one per line, until Ctrl-D (give them with ::: ITEM..., -a FILE, or a pipe)"
	term := newTmux(t, `"$fan" echo got
echo "<typed done>"
"$fan" echo listed ::: a
"$fan" --xargs echo xargs-got
"$fan" --pipe wc -l
echo "<all done>"
exec sleep 600
`)
	term.waitForText(hint)
	term.run("send-keys", "first", "Enter")
	term.waitForText("got first")
	term.run("send-keys", "C-d")
	term.waitForText("<typed done>")
	term.waitForText("listed a")
	term.run("send-keys", "x1", "Enter", "C-d")
	term.waitForText("fan: reading the input from the terminal, until Ctrl-D (give it with a pipe or < FILE)")
	term.run("send-keys", "p1", "Enter", "p2", "Enter", "C-d")
	term.waitForText("<all done>")
	screen := term.screen()
	if n := strings.Count(screen, hint); n != 1 {
		t.Errorf("the hint is on the screen %d times, want once (not with ::: nor --xargs):\n%s", n, screen)
	}
	if !strings.Contains(screen, "xargs-got x1") {
		t.Errorf("--xargs lost the typed item:\n%s", screen)
	}
	if !strings.Contains(screen, "\n2\n") {
		t.Errorf("--pipe lost the typed lines:\n%s", screen)
	}
}
