package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTerminalCTag: --ctag colors each job's tag on a terminal, each job
// its own color, and not with NO_COLOR.
func TestTerminalCTag(t *testing.T) {
	t.Parallel()
	done := filepath.Join(t.TempDir(), "done")
	term := newTmux(t, fmt.Sprintf(`"$fan" -k --no-bar --ctag echo ::: tagA tagB
NO_COLOR=1 "$fan" -k --no-bar --ctag echo ::: tagC
touch %q
exec sleep 600
`, done))
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(done); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("fan did not finish within 60s; the screen:\n%s", term.run("capture-pane", "-p"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	screen := term.run("capture-pane", "-p", "-e") // with the color sequences
	colors := map[string]string{}
	for _, line := range strings.Split(screen, "\n") {
		for _, tag := range []string{"tagA", "tagB", "tagC"} {
			if i := strings.Index(line, tag); i >= 0 {
				colors[tag] = line[:i]
			}
		}
	}
	for _, tag := range []string{"tagA", "tagB"} {
		if !strings.Contains(colors[tag], "\x1b[") {
			t.Errorf("the tag %s is not colored on a terminal: %q\n%s", tag, colors[tag], screen)
		}
	}
	if colors["tagA"] == colors["tagB"] {
		t.Errorf("two jobs' tags have the same color %q", colors["tagA"])
	}
	if strings.Contains(colors["tagC"], "\x1b[") {
		t.Errorf("the tag is colored with NO_COLOR=1: %q", colors["tagC"])
	}
}
