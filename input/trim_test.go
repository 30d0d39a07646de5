package input

import "testing"

func TestTrim(t *testing.T) {
	cases := []struct{ how, in, want string }{
		{"n", " a \t", " a \t"},
		{"l", " \t\va b ", "a b "},
		{"r", " a b\r\n\f", " a b"},
		{"lr", "\r a b \r", "a b"},
		{"rl", "  ", ""},
	}
	for _, c := range cases {
		tr, err := ParseTrim(c.how)
		if err != nil {
			t.Fatalf("ParseTrim(%q): %v", c.how, err)
		}
		if got := tr.apply(c.in); got != c.want {
			t.Errorf("--trim %s of %q = %q; want %q", c.how, c.in, got, c.want)
		}
	}
	for _, bad := range []string{"", "x", "lrr", "L"} {
		if _, err := ParseTrim(bad); err == nil {
			t.Errorf("ParseTrim(%q) took it", bad)
		}
	}
}
