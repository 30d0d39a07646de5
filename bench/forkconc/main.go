// Command forkconc measures whether Go serialises forks behind
// syscall.ForkLock (issue 19's moonshot): N spawns of PROG from K
// goroutines, each syscall.ForkExec (Setpgid, Pdeathsig, as fan's jobs)
// and wait4 in a loop. It prints the wall time and the most goroutines
// seen inside ForkExec at once; -serial wraps each ForkExec in one mutex,
// as if forks were still serialised. See BENCHMARKS.md.
//
//	cd bench/forkconc && CGO_ENABLED=0 go build && ./forkconc -n 2000 -k 8 [-serial]
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 2000, "spawns")
	k := flag.Int("k", 8, "goroutines")
	serial := flag.Bool("serial", false, "one fork at a time")
	prog := flag.String("prog", "/bin/true", "program")
	flag.Parse()
	var mu sync.Mutex
	var next, inflight, maxin atomic.Int64
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	t := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < *k; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(*n) {
				if *serial {
					mu.Lock()
				}
				c := inflight.Add(1)
				for m := maxin.Load(); c > m && !maxin.CompareAndSwap(m, c); m = maxin.Load() {
				}
				pid, err := syscall.ForkExec(*prog, []string{*prog}, attr)
				inflight.Add(-1)
				if *serial {
					mu.Unlock()
				}
				if err != nil {
					panic(err)
				}
				var ws syscall.WaitStatus
				syscall.Wait4(pid, &ws, 0, nil)
			}
		}()
	}
	wg.Wait()
	d := time.Since(t)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Fprintf(os.Stderr, "n=%d k=%d serial=%v secs=%.3f jobs/s=%.0f own_cpu_us/job=%.1f max_in_forkexec=%d\n", *n, *k, *serial, d.Seconds(), float64(*n)/d.Seconds(),
		float64(ru.Utime.Nano()+ru.Stime.Nano())/1e3/float64(*n), maxin.Load())
}
