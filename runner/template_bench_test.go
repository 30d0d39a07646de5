package runner

import (
	"testing"

	"github.com/fan-run/fan/input"
)

// Rendering is done once per job; these measure it for the common shapes:
// a direct exec with the argument appended, a template with {} inside a
// word, and a shell command line.

func benchRender(b *testing.B, words ...string) {
	t := NewTemplate(TemplateOptions{Words: words})
	item := input.Item{Seq: 1234, Args: []string{"some/dir/file.txt"}}
	b.ReportAllocs()
	for b.Loop() {
		c := t.Render(&item, Slot{N: 1})
		if len(c.Args) == 0 {
			b.Fatal("empty command")
		}
	}
}

func BenchmarkRenderDirect(b *testing.B)     { benchRender(b, "true") }
func BenchmarkRenderDirectWord(b *testing.B) { benchRender(b, "true", "--in={}", "{#}") }
func BenchmarkRenderShell(b *testing.B)      { benchRender(b, "true", "{}", "|", "cat") }
