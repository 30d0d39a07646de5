package runner

import (
	"context"
	"sync"
	"time"
)

// workers run the pool's jobs on goroutines that outlive them: a job goes
// to a goroutine waiting for one, or to a new goroutine when none waits,
// and a goroutine whose job has ended waits for the next. So a job starts
// at once, as on a goroutine of its own, but its goroutine's stack has
// mostly grown already to what a job needs (the spawn, the wait, the
// capture): growing a new goroutine's stack for every job took about 5%
// of fan's own CPU on W1 (seq N | fan true).
type workers struct {
	p    *Pool
	ctx  context.Context // the jobs' (Pool.Run's jobCtx)
	idle chan work       // unbuffered: a send reaches only a waiting worker
	wg   sync.WaitGroup
}

// work is a job handed to a worker: what attempts takes.
type work struct {
	j     job
	slot  Slot
	at    time.Time
	shown *prepared
}

func newWorkers(ctx context.Context, p *Pool) *workers {
	return &workers{p: p, ctx: ctx, idle: make(chan work)}
}

// run runs x's job on a waiting worker, or on a new one.
func (w *workers) run(x work) {
	select {
	case w.idle <- x:
		return
	default:
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for ok := true; ok; x, ok = <-w.idle {
			w.p.attempts(w.ctx, &x.j, x.slot, x.at, x.shown)
			x = work{} // an idle worker holds no item
		}
	}()
}

// close lets the waiting workers end once every job has ended, and waits
// for that. run must not be called after it.
func (w *workers) close() {
	close(w.idle)
	w.wg.Wait()
}
