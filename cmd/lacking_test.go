package cmd

import (
	"strings"
	"testing"
)

// gnuParallelOptions are the long options GNU parallel 20221122's manual
// documents, and its short options that fan does not share.
var gnuParallelOptions = strings.Fields(`
	arg-file arg-file-sep arg-sep bar basefile basenameextensionreplace 
	basenamereplace bf bg bin block block-size block-timeout bner bnr bt 
	cat cf cleanup color color-failed colsep compress compress-program 
	controlmaster csv ctag ctagstring decompress-program delay delimiter 
	dirnamereplace dnr dry-run embed env eof er eta exit extensionreplace 
	fg fifo files filter filter-hosts gnu group group-by halt 
	halt-on-error hashbang header help hgrp hostgroups id interactive jl 
	joblog jobs keep-order latest-line lb limit line-buffer link ll load 
	max-args max-chars max-line-length-allowed max-lines max-procs 
	max-replace-args memfree memsuspend minversion nice no-keep-order 
	no-run-if-empty nonall noswap null number-of-cores number-of-cpus 
	number-of-sockets number-of-threads onall open-tty output-as-files 
	outputasfiles parens pipe pipe-part plain plus process-slot-var 
	profile progress quote recend record-env recstart regexp 
	remove-rec-sep removerecsep replace res results resume resume-failed 
	retries retry-failed return round round-robin rpl rrs rsync-opts 
	semaphore semaphore-name semaphore-timeout seqreplace session shard 
	shebang shebang-wrap shell-completion shell-quote show-limits shuf 
	silent skip-first-line slf slotreplace spreadstdin sql sql-and-worker 
	sql-master sql-worker ssh ssh-delay sshlogin sshloginfile st tag 
	tagstring tee template term-seq tf timeout tmpdir tmpl tmux tmuxpane 
	total total-jobs transfer transferfile trc trim tty ungroup 
	use-cores-instead-of-threads use-cpus-instead-of-cores 
	use-sockets-instead-of-threads verbose version wait wd workdir xapply 
	xargs `)

var gnuParallelShort = strings.Fields("i l o p v M V J")

// TestLackingCoversGNUParallel: every option of GNU parallel's is one of
// fan's (under its name or another spelling), or fan says what to do
// instead.
func TestLackingCoversGNUParallel(t *testing.T) {
	c := NewCommand(Streams{}, nil, nil)
	f := c.Flags()
	for _, name := range gnuParallelOptions {
		if fl := f.Lookup(name); fl != nil {
			if fl.Name != name && spellings[name] != fl.Name {
				t.Errorf("--%s is taken for --%s, which is not GNU parallel's meaning", name, fl.Name)
			}
			continue
		}
		if lackingText(name, false) == "" {
			t.Errorf("--%s: neither a flag of fan's nor in lacking", name)
		}
	}
	for _, name := range gnuParallelShort {
		if f.ShorthandLookup(name) == nil && lackingText(name, true) == "" {
			t.Errorf("-%s: neither a flag of fan's nor in lacking", name)
		}
	}
}

// A GNU parallel option fan lacks is named, with what to do instead; an
// abbreviation finds it; an option of nobody's keeps the generic message.
func TestLackingText(t *testing.T) {
	for _, c := range []struct {
		name  string
		short bool
		want  string
	}{
		{"tmux", false, "--tmux is GNU parallel's, and fan does not have it: fan has no tmux mode: use --line-buffer --tag to watch every job"},
		{"tmu", false, "--tmux is GNU parallel's, and fan does not have it: fan has no tmux mode: use --line-buffer --tag to watch every job"},
		{"sql", false, "--sql is GNU parallel's"},
		{"bn", false, ""}, // --bner or --bnr
		{"M", true, "-M is GNU parallel's, and fan does not have it: fan shares one ssh connection per host (ControlMaster) already"},
		{"e", true, ""},
		{"no-such-option", false, ""},
	} {
		got := lackingText(c.name, c.short)
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("lackingText(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestLackingNamesNoFlagOfFans: once fan gains an option, its entry in
// lacking goes, so that the table says only what is true.
func TestLackingNamesNoFlagOfFans(t *testing.T) {
	f := NewCommand(Streams{}, nil, nil).Flags()
	for name := range lacking {
		if f.Lookup(name) != nil || len(name) == 1 && f.ShorthandLookup(name) != nil {
			t.Errorf("lacking[%q]: fan has that flag now; delete the entry", name)
		}
	}
}
