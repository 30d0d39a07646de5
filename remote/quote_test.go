package remote

import (
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
)

// loginShells are the shells that sshd may hand the remote command to:
// each must run the same script from remoteCommand's line.
var loginShells = []string{"sh", "dash", "bash", "zsh", "ksh", "tcsh", "csh", "fish"}

// viaLoginShell runs remoteCommand(script) as sshd would with the login
// shell sh: sh -c LINE.
func viaLoginShell(t *testing.T, sh, script string) string {
	t.Helper()
	out, err := exec.Command(sh, "-c", remoteCommand(script)).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %q", sh, err, out)
	}
	return string(out)
}

func TestRemoteCommandIsReadAlikeByLoginShells(t *testing.T) {
	items := []string{
		`it's`, `"q"`, `$(id)`, "`id`", "new\nline", "\\", `\\n`, `\0101`, "!!", "!$", "%s%%", "\t",
		"\xff\xfe\xc3", "ünï", "*", "~", "#", "-n", "'\\''", "\x01\x1f\x7f", "$HOME", "${x-y}", "\r\n",
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		b := make([]byte, 1+rnd.IntN(40))
		for i := range b {
			b[i] = byte(1 + rnd.IntN(255))
		}
		items = append(items, string(b))
	}
	var script strings.Builder
	var want strings.Builder
	for _, it := range items {
		script.WriteString("printf '%s|' " + quote(it) + "\n")
		want.WriteString(it + "|")
	}
	ran := 0
	for _, sh := range loginShells {
		if _, err := exec.LookPath(sh); err != nil {
			continue
		}
		ran++
		if got := viaLoginShell(t, sh, script.String()); got != want.String() {
			t.Errorf("login shell %s: got %q, want %q", sh, got, want.String())
		}
	}
	if ran == 0 {
		t.Skip("no shell here")
	}
}

func TestEncodeLeavesPlainTextAlone(t *testing.T) {
	var b strings.Builder
	encode(&b, `printf '%s\n' "it's" !`)
	if got, want := b.String(), `printf \0047%s\0134n\0047 "it\0047s" \0041`; got != want {
		t.Errorf("encode = %s, want %s", got, want)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain/path-1.0": "plain/path-1.0",
		"":               "''",
		"a b":            "'a b'",
		"it's":           `'it'\''s'`,
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}
