package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryLinksNoMethodByName builds fan as make build does and checks
// that nothing in it can call a method by its name (text/template's
// executor, reflect.Value.MethodByName). Where one can, the linker keeps
// every exported method of every type that is ever held in an interface,
// used or not: the progress bar's HTTP server drags in net/http and
// crypto/tls, about 4 MB of a 10.7 MB binary that every start maps and
// faults in (BENCHMARKS.md, start-up). A cobra version, help or usage
// template is the usual way in: fan prints its own --version.
func TestBinaryLinksNoMethodByName(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "tool", "nm", buildFan(t)).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	for _, sym := range []string{
		"text/template.(*state).evalField", // a template that is executed
		"reflect.Value.MethodByName",       // any other caller
		"net/http.(*Server).Serve",         // what the linker then keeps
		"progressbar/v3.(*ProgressBar).StartHTTPServer",
	} {
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasSuffix(line, " "+sym) || strings.Contains(line, "/"+sym) {
				t.Errorf("the binary links %s", sym)
				break
			}
		}
	}
}

// buildFan builds fan from this work tree, static as make build builds it,
// with the go build flags given, and returns the binary's path.
func buildFan(t *testing.T, flags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fan")
	build := exec.Command("go", append(append([]string{"build"}, flags...), "-o", bin, ".")...)
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
