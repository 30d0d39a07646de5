package runner

import (
	"context"
	"math/rand/v2"
	"time"
)

// maxBackoff caps the wait between retries.
const maxBackoff = time.Minute

// backoff is the wait before retry number attempt (1 for the first retry):
// base doubled for each earlier retry, capped, with up to ±25% jitter so
// that jobs failing together do not retry in lockstep.
func backoff(base time.Duration, attempt int) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 1; i < attempt && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	jitter := time.Duration((rand.Float64() - 0.5) / 2 * float64(d))
	return d + jitter
}

// Sleep waits for d or until ctx ends; it reports whether d passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
