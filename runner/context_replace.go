package runner

import "github.com/fan-run/fan/input"

// hasAllArgs reports whether a word holds {} (in any of its forms) beside
// other text or tokens: the word -X repeats for each argument.
func hasAllArgs(w []part) bool {
	if len(w) < 2 {
		return false
	}
	for _, p := range w {
		if p.tok != nil && p.tok.what == allArgs {
			return true
		}
	}
	return false
}

// appendContext appends the word w once for each argument of the job, {}
// standing for that argument alone (-X). A job with no arguments (-n 0)
// gets the word once, {} standing for nothing, as in GNU parallel.
func appendContext(argv []string, w []part, item *input.Item, slot *Slot) []string {
	if len(item.Args) == 0 {
		return append(argv, string(renderParts(nil, w, item, slot, -1, false)))
	}
	for i := range item.Args {
		argv = append(argv, string(renderParts(nil, w, item, slot, i, false)))
	}
	return argv
}

// contextLine renders the template as a shell command line under -X: words
// are joined with single spaces, and a word holding {} beside other text is
// repeated for each argument (or given once, as appendContext does).
func (t *Template) contextLine(item *input.Item, slot *Slot) []byte {
	b := make([]byte, 0, 64)
	for k, w := range t.lwords {
		if k > 0 {
			b = append(b, ' ')
		}
		if !hasAllArgs(w) || len(item.Args) == 0 {
			b = renderParts(b, w, item, slot, -1, true)
			continue
		}
		for i := range item.Args {
			if i > 0 {
				b = append(b, ' ')
			}
			b = renderParts(b, w, item, slot, i, true)
		}
	}
	return b
}
