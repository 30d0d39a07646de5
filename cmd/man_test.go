package cmd

import (
	"bytes"
	"os"
	"testing"

	"github.com/fan-run/fan/internal/manhead"
)

// TestManPageUpToDate fails when man/fan.1 no longer matches the command's
// flags and help: run `make man` and commit the result.
func TestManPageUpToDate(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteManPage(&buf, manhead.Write); err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../man/fan.1")
	if err != nil {
		t.Fatalf("%v (run make man)", err)
	}
	if !bytes.Equal(have, buf.Bytes()) {
		t.Fatal("man/fan.1 is out of date with the command: run make man")
	}
}
