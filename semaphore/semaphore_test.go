package semaphore

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSlots: two slots are taken, a third waits until one is given back,
// and Wait returns once none is held. flock locks belong to open files,
// so holders in one process exclude each other as processes do.
func TestSlots(t *testing.T) {
	s := Sem{Dir: t.TempDir(), Slots: 2}
	ctx := context.Background()
	a, err := s.Acquire(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Acquire(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Acquire(ctx, 50*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("a third holder of two slots: %v, want ErrTimeout", err)
	}
	got := make(chan error, 1)
	go func() {
		c, err := s.Acquire(ctx, 0)
		if err == nil {
			c.Close()
		}
		got <- err
	}()
	a.Close()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a freed slot was not taken")
	}
	waited := make(chan error, 1)
	go func() { waited <- s.Wait(ctx) }()
	select {
	case <-waited:
		t.Fatal("Wait returned while a slot is held")
	case <-time.After(100 * time.Millisecond):
	}
	b.Close()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return once no slot was held")
	}
}

// TestWaitUnused: a semaphore never used has nothing to wait for.
func TestWaitUnused(t *testing.T) {
	if err := (Sem{Dir: t.TempDir() + "/none", Slots: 1}).Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}
