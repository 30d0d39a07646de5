package runner

import "strings"

// parseArgv sets t up for xargs's way of building commands (--xargs): each
// word is one argument, exec'd directly, never read by a shell. Only
// replace, when set, is substituted in the words (-I); otherwise the
// arguments are appended, one word each.
func (t *Template) parseArgv(words []string, replace string) *Template {
	t.argvMode = true
	for i, w := range words {
		if replace == "" || i == 0 { // xargs -I never replaces in the program

			t.words = append(t.words, []part{{lit: w}})
			continue
		}
		t.words = append(t.words, literalParts(w, replace))
	}
	if replace == "" {
		t.words = append(t.words, []part{{tok: &token{what: allArgs}}})
		t.appendArgs = true
	}
	t.path, t.look = lookPath(words[0])
	return t
}

// literalParts splits s at every occurrence of replace, and only there:
// xargs -I knows no other replacement string.
func literalParts(s, replace string) []part {
	var parts []part
	for {
		i := strings.Index(s, replace)
		if i < 0 {
			break
		}
		if i > 0 {
			parts = append(parts, part{lit: s[:i]})
		}
		parts = append(parts, part{tok: &token{what: allArgs}})
		s = s[i+len(replace):]
	}
	if s != "" {
		parts = append(parts, part{lit: s})
	}
	return parts
}
