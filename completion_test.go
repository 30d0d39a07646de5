package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// completionDir makes a directory for a completion test: a program
// bin/fanjobtest-one, to be put on $PATH, and a file data-file.txt.
func completionDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"bin/fanjobtest-one": 0o755, "data-file.txt": 0o644} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestBashTab presses Tab in a real interactive bash that has no
// bash-completion package, after loading fan's bash completion: the job
// command's name comes from $PATH, a file name after it, fan's flags
// before it, and no Tab prints an error ("_get_comp_words_by_ref: command
// not found" was every Tab's lot).
func TestBashTab(t *testing.T) {
	t.Parallel()
	dir := completionDir(t)
	term := newTmux(t, fmt.Sprintf(`cd %q
PATH=$PWD/bin:$PATH exec bash --norc --noprofile -i
`, dir))
	term.run("send-keys", "PS1='$ '; source <(fan --completion bash); echo loaded", "Enter")
	term.waitForText("\nloaded")
	term.run("send-keys", "fan --ke", "Tab")
	term.waitForText("$ fan --keep-order ")
	term.run("send-keys", "fanjobtest-o", "Tab")
	term.waitForText("$ fan --keep-order fanjobtest-one ")
	term.run("send-keys", "data-f", "Tab")
	term.waitForText("$ fan --keep-order fanjobtest-one data-file.txt ")
	if screen := term.screen(); strings.Contains(screen, "not found") || strings.Contains(screen, "bash:") {
		t.Errorf("Tab printed an error:\n%s", screen)
	}
	term.run("send-keys", "C-c")
}

// TestZshTab presses Tab in a real zsh (no configuration but compinit)
// after loading fan's zsh completion: the job command's name from $PATH,
// then a file name.
func TestZshTab(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh is not installed")
	}
	dir := completionDir(t)
	term := newTmux(t, fmt.Sprintf(`cd %q
PATH=$PWD/bin:$PATH HOME=$PWD exec zsh -f -i
`, dir))
	term.run("send-keys", "PS1='%% '; autoload -U compinit; compinit -u; source <(fan --completion zsh); echo loaded", "Enter")
	term.waitForText("\nloaded")
	term.run("send-keys", "fan fanjobtest-o", "Tab")
	term.waitForText("% fan fanjobtest-one ")
	term.run("send-keys", "data-f", "Tab")
	term.waitForText("% fan fanjobtest-one data-file.txt ")
	term.run("send-keys", "C-c")
}

// TestMakeInstall: make install puts the binary, the man page and the
// bash, zsh and fish completions under PREFIX, below DESTDIR, where each
// shell looks for them; the installed bash completion loads in a bare bash.
func TestMakeInstall(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	install := exec.Command("make", "install", "DESTDIR="+root, "PREFIX=/opt/fan", "BIN="+filepath.Join(tmp, "build", "fan"))
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	prefix := filepath.Join(root, "opt", "fan")
	for _, f := range []string{
		"bin/fan",
		"share/man/man1/fan.1",
		"share/bash-completion/completions/fan",
		"share/zsh/site-functions/_fan",
		"share/fish/vendor_completions.d/fan.fish",
	} {
		if st, err := os.Stat(filepath.Join(prefix, f)); err != nil || st.Size() == 0 {
			t.Errorf("make install did not install %s: %v", f, err)
		}
	}
	if _, err := exec.LookPath("bash"); err != nil {
		return
	}
	out, err := exec.Command("bash", "--norc", "--noprofile", "-c",
		"source "+filepath.Join(prefix, "share/bash-completion/completions/fan")+" && complete -p fan").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-F __start_fan fan") {
		t.Errorf("the installed bash completion does not load: %v\n%s", err, out)
	}
}
