package remote_test

import (
	"context"
	"testing"

	"github.com/fan-run/fan/internal/sshtest"
	"github.com/fan-run/fan/remote"
)

// BenchmarkTrue runs `true` jobs on one test host, one at a time: the
// latency of a remote job over the shared connection.
func BenchmarkTrue(b *testing.B) {
	hs := sshtest.Start(b, 1, sshtest.Options{})
	l, _ := remote.ParseLogin("h1")
	h, err := remote.NewHost(l, remote.Config{SSH: hs.SSH()})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	if err := h.Connect(context.Background()); err != nil {
		b.Fatal(err)
	}
	e := remote.NewExecutor(h, nil)
	c := shell("true")
	b.ResetTimer()
	for b.Loop() {
		a, _ := attemptB(b, c)
		p, err := e.Start(a)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Wait(context.Background(), context.Background(), seq); err != nil {
			b.Fatal(err)
		}
	}
}
