package input

import "testing"

// The parsers of flag values (--block sizes, -d delimiters) take anything
// a user may type: none may panic, and what they accept must be usable.

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1M", "10k", "1.5G", "-2", "0", "1e3", "1P", "99999999999999999999", "K", ".5m", "1Mi"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ParseSize(s)
	})
}

func FuzzParseDelimiter(f *testing.F) {
	for _, s := range []string{`\n`, `\t`, `\0`, `\\`, `\x41`, `\101`, `\`, `\x`, `\777`, "ab", "", `\u00e9`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseDelimiter(s); err == nil && len(d) == 0 {
			t.Fatalf("ParseDelimiter(%q) accepted an empty delimiter", s)
		}
		ParseXargsDelimiter(s)
	})
}
