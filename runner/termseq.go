package runner

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// TermStep is one step of a termination sequence: send Signal to the job's
// process group, then wait up to Wait for its leader to exit.
type TermStep struct {
	Signal syscall.Signal
	Wait   time.Duration
}

// TermSeq is how a job is killed (--termseq).
type TermSeq []TermStep

// DefaultTermSeq is GNU parallel's default: TERM,200,TERM,100,TERM,50,KILL,25.
const DefaultTermSeq = "TERM,200,TERM,100,TERM,50,KILL,25"

// ParseTermSeq parses "SIG,MS,SIG,MS,...": signal names (with or without
// SIG) or numbers, each followed by the milliseconds to wait. The last wait
// may be left out.
func ParseTermSeq(s string) (TermSeq, error) {
	f := strings.Split(s, ",")
	var seq TermSeq
	for i := 0; i < len(f); i += 2 {
		sig := unix.SignalNum("SIG" + strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(f[i])), "SIG"))
		if sig == 0 {
			n, err := strconv.Atoi(strings.TrimSpace(f[i]))
			if err != nil || n <= 0 || n > 64 {
				return nil, fmt.Errorf("%q is not a signal (try TERM,200,KILL,25)", f[i])
			}
			sig = syscall.Signal(n)
		}
		step := TermStep{Signal: sig}
		if i+1 < len(f) {
			ms, err := strconv.Atoi(strings.TrimSpace(f[i+1]))
			if err != nil || ms < 0 {
				return nil, fmt.Errorf("%q is not a number of milliseconds (try TERM,200,KILL,25)", f[i+1])
			}
			step.Wait = time.Duration(ms) * time.Millisecond
		}
		seq = append(seq, step)
	}
	return seq, nil
}
