package runner

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/fan-run/fan/input"
)

// measure returns the size GNU parallel and xargs count for a job (the
// shell line plus its NUL; under Argv each argument plus its NUL) and what
// the kernel gets (each argument of the command that runs, plus its NUL).
func measure(t *Template, item *input.Item) (counted, real int) {
	c := t.Render(item, Slot{N: 1})
	for _, a := range c.Args {
		real += len(a) + 1
	}
	if t.argvMode {
		return real, real
	}
	if c.viaShell() {
		real = len(c.Args[2]) + 1 // the shell's own words are few and short
	}
	return len(t.line(item, &Slot{N: 1})) + 1, real
}

// TestSizeBoundsRender: what Size predicts for a job is never less than
// what the rendered command takes, and for plain templates it is exact (so
// -s packs as GNU parallel and xargs do).
func TestSizeBoundsRender(t *testing.T) {
	values := []string{"a", "bc", "a b", "it's", "$(x)", "", "dir/f.tar.gz", "-n"}
	tests := []struct {
		opts  TemplateOptions
		exact bool
	}{
		{TemplateOptions{Words: []string{"echo"}}, true},
		{TemplateOptions{Words: []string{"echo", "{}", "a", "{}"}}, true},
		{TemplateOptions{Words: []string{"echo", "x{}y"}, Context: true}, true},
		{TemplateOptions{Words: []string{"echo", "x{}y", "{}"}, Context: true}, true},
		{TemplateOptions{Words: []string{"echo", "{.}", "{/}"}, Context: true}, true},
		{TemplateOptions{Words: []string{"echo", "{#}", "{1}", "{%}:{}"}, Context: true}, false},
		{TemplateOptions{Words: []string{"echo", "{#}", "{2}"}}, false},
		{TemplateOptions{}, true},
		{TemplateOptions{Words: []string{"printf", "%s\\n"}, Argv: true}, true},
		{TemplateOptions{Words: []string{"sh", "-c", "echo $1", "_", "<{}>", "{}"}, Argv: true, Syntax: Syntax{Replace: "{}"}}, true},
		// New rows go last: the rows share one random stream, and a shifted
		// stream gives the raw template an empty item, whose empty shell
		// line viaShell (helpers_test.go) takes for a direct exec.
		{TemplateOptions{Words: []string{"echo", "{-1}", "x{-2//}y", "{}"}}, false},
		{TemplateOptions{Words: []string{"echo", "{-1}", "x{}y{-2/}"}, Context: true}, false},
	}
	rng := rand.New(rand.NewSource(1))
	for _, tt := range tests {
		tpl := NewTemplate(tt.opts)
		base, cost := tpl.Size()
		for round := 0; round < 50; round++ {
			n := 1 + rng.Intn(5)
			if tt.opts.Replace != "" {
				n = 1 // -I: one item per job
			}
			item := &input.Item{Seq: int64(rng.Intn(100000)) + 1}
			want := base
			for i := 0; i < n; i++ {
				v := values[rng.Intn(len(values))]
				item.Args = append(item.Args, v)
				want += cost(v, i == 0)
			}
			counted, real := measure(tpl, item)
			if counted > want || real > want || (tt.exact && counted != want) {
				t.Errorf("%+v with %q: size %d (really %d), Size says %d", tt.opts, item.Args, counted, real, want)
			}
		}
	}
}

func TestArgvTemplate(t *testing.T) {
	tests := []struct {
		opts TemplateOptions
		args []string
		want []string
	}{
		// the words are argv as given: no shell, no {} without -I
		{TemplateOptions{Words: []string{"printf", "%s {} $HOME\n"}, Argv: true}, []string{"a b", "c"},
			[]string{"printf", "%s {} $HOME\n", "a b", "c"}},
		{TemplateOptions{Words: []string{"echo"}, Argv: true}, nil, []string{"echo"}},
		// -I replaces in every word but the program, and appends nothing
		{TemplateOptions{Words: []string{"echo", "x%y%", "%", "{}"}, Argv: true, Syntax: Syntax{Replace: "%"}}, []string{"a b"},
			[]string{"echo", "xa bya b", "a b", "{}"}},
		{TemplateOptions{Words: []string{"{}", "{}"}, Argv: true, Syntax: Syntax{Replace: "{}"}}, []string{"a"}, []string{"{}", "a"}},
	}
	for _, tt := range tests {
		c := NewTemplate(tt.opts).Render(&input.Item{Seq: 1, Args: tt.args}, Slot{N: 1})
		if c.viaShell() {
			t.Errorf("%+v: runs through a shell", tt.opts)
		}
		if !reflect.DeepEqual(c.Args, tt.want) {
			t.Errorf("%+v with %q: argv %q, want %q", tt.opts, tt.args, c.Args, tt.want)
		}
	}
}

func TestContextReplace(t *testing.T) {
	item := &input.Item{Seq: 7, Args: []string{"a b", "c"}}
	tests := []struct {
		words   []string
		context bool
		want    string
	}{
		{[]string{"echo", "pre{}post"}, true, "echo 'prea bpost' precpost"},
		{[]string{"echo", "pre{}post"}, false, "echo 'prea b' cpost"}, // -m: direct exec, argv quoted for display
		{[]string{"echo", "{#}-{}", "{}"}, true, "echo '7-a b' 7-c 'a b' c"},
		{[]string{"echo", "{.}.x", "|", "wc"}, true, "echo 'a b'.x c.x | wc"}, // through the shell
		{[]string{"echo", "{.}.x", "|", "wc"}, false, "echo 'a b' c.x | wc"},
	}
	for _, tt := range tests {
		tpl := NewTemplate(TemplateOptions{Words: tt.words, Context: tt.context})
		c := tpl.Render(item, Slot{N: 1})
		if got := c.String(); got != tt.want {
			t.Errorf("%q (context %v): %s, want %s", tt.words, tt.context, got, tt.want)
		}
	}
}

// TestSizeRoomForHost: Size leaves room for {host} and {sshlogin}, whose
// values are known only when the job starts, on whichever host.
func TestSizeRoomForHost(t *testing.T) {
	tpl := NewTemplate(TemplateOptions{Syntax: Syntax{Plus: true}, Words: []string{"echo", "{sshlogin}", "{host}", "{}"}})
	base, cost := tpl.Size()
	long := strings.Repeat("h", 200)
	item := &input.Item{Seq: 1, Args: []string{"it's"}}
	for _, slot := range []Slot{{N: 1}, {N: 1, Host: "ssh -o 'A B' me@" + long + ":2222", Addr: long}} {
		line := tpl.line(item, &slot)
		if want := base + cost("it's", true); len(line)+1 > want {
			t.Errorf("in %+v: %q is %d bytes, Size says %d", slot, line, len(line)+1, want)
		}
	}
	// Under -X a word holding {} repeats its {host} and {sshlogin} for
	// every argument: each repetition is counted at its largest.
	ctx := NewTemplate(TemplateOptions{Syntax: Syntax{Plus: true}, Context: true, Words: []string{"echo", "x{host}{sshlogin}{}"}})
	base, cost = ctx.Size()
	args := []string{"a", "b", "c"}
	packed := &input.Item{Seq: 123456, Args: args}
	slot := Slot{N: 99, Host: "me@" + long, Addr: long}
	want := base
	for i, a := range args {
		want += cost(a, i == 0)
	}
	if line := ctx.line(packed, &slot); len(line)+1 > want {
		t.Errorf("-X: %q is %d bytes, Size says %d", line, len(line)+1, want)
	}
}

// TestSizeDryRunHost: a dry run's {host} is the text ${PARALLEL_SSHHOST},
// sized as GNU parallel sizes it, so that -s, -m and -X take the jobs it
// takes: the line, plus, for each argument after the first, the text and
// a blank again (under -X the run of text between blanks that holds it).
// The wants are GNU parallel 20221122's sizes plus one (this Size's NUL),
// read off the smallest -s that packs the arguments into one line.
func TestSizeDryRunHost(t *testing.T) {
	tests := []struct {
		words   []string
		context bool
		args    []string
		want    int
	}{
		{[]string{"echo", "{host}"}, false, nil, 25},
		{[]string{"echo", "{host}", "{}"}, false, []string{"a"}, 27},
		{[]string{"echo", "{host}", "{}"}, false, []string{"a", "bb", "c"}, 72},
		{[]string{"echo", "x{host}y", "p{}"}, true, []string{"a", "bb", "c"}, 81},
	}
	for _, tt := range tests {
		tpl := NewTemplate(TemplateOptions{Syntax: Syntax{Plus: true, DryRun: true}, Words: tt.words, Context: tt.context})
		size, cost := tpl.Size()
		for i, a := range tt.args {
			size += cost(a, i == 0)
		}
		if size != tt.want {
			t.Errorf("%q (-X %v) with %q: Size says %d, GNU parallel %d", tt.words, tt.context, tt.args, size, tt.want)
		}
	}
}
