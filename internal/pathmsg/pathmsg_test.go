package pathmsg

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

func TestBare(t *testing.T) {
	_, err := os.Open("/no/such/file")
	if got := Bare(err); !errors.Is(got, syscall.ENOENT) || got.Error() != "no such file or directory" {
		t.Errorf("Bare(%v) = %v, want the bare errno", err, got)
	}
	wrapped := fmt.Errorf("reading: %w", err)
	if got := Bare(wrapped); got.Error() != "no such file or directory" {
		t.Errorf("Bare(%v) = %v: a wrapped PathError is trimmed too", wrapped, got)
	}
	other := errors.New("something else")
	if Bare(other) != other || Bare(nil) != nil {
		t.Error("other errors must pass through unchanged")
	}
}
