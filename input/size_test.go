package input

import (
	"strconv"
	"strings"
	"testing"

	"github.com/fan-run/fan/internal/gnusub"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"1", 1}, {"100", 100}, {"0", 0}, {"+5", 5}, {" 7 ", 7},
		{"1k", 1000}, {"1K", 1024}, {"1m", 1000000}, {"1M", 1 << 20},
		{"2g", 2e9}, {"2G", 2 << 30}, {"1t", 1e12}, {"1T", 1 << 40},
		{"1p", 1e15}, {"1P", 1 << 50}, {"1e", 1e18}, {"1E", 1 << 60},
		{"1ki", 1024}, {"1Ki", 1024}, {"1KI", 1024}, {"3mi", 3 << 20}, {"1Gi", 1 << 30},
		{"1.5k", 1500}, {"1.5M", 1572864}, {"0.5K", 512}, {"1.1K", 1126}, {".5k", 500}, {"2.", 2},
		{"10M", 10 << 20}, {"-10", -10}, {"-1", -1}, {"-2k", -2000}, {"-0.5K", -512},
		{"9223372036854775807", 1<<63 - 1},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "k", "-", ".", "1.2.3", "1x", "1KB", "1kk", "1 k", "1e3", "abc", "--1", "8E", "10e", "1Z", "99999999999999999999"} {
		if got, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", bad, got)
		}
	}
	if _, err := ParseSize("1x"); err == nil || !strings.Contains(err.Error(), "try 1M") {
		t.Errorf("ParseSize error %q does not say what to try", err)
	}
}

// TestParseSizeMatchesParallel reads each size with GNU parallel's own
// multiply_binary_prefix, taken from its script, and int() as --block
// does, and with ParseSize.
func TestParseSizeMatchesParallel(t *testing.T) {
	sizes := []string{
		"1", "100", "1k", "1K", "1m", "1M", "2g", "2G", "1t", "1T", "1p", "1P", "1e", "1E",
		"1ki", "1Ki", "1KI", "3mi", "1Gi", "1.5k", "1.5M", "0.5K", "1.1K", ".5k", "10M",
		"1.0001k", "2.7m", "0.3G", "1.9999K", "-10", "-1", "-2k", "-0.5K", "123.456T",
	}
	lines := gnusub.Eval(t, "multiply_binary_prefix", `sprintf("%d", int(multiply_binary_prefix($_)))`, sizes)
	for i, in := range sizes {
		want, err := strconv.ParseInt(lines[i], 10, 64)
		if err != nil {
			t.Fatalf("perl printed %q for %q", lines[i], in)
		}
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; GNU parallel reads %d", in, got, err, want)
		}
	}
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 1: "1 byte", 1023: "1023 bytes", 1024: "1K", 1536: "1.5K",
		300 << 20: "300M", 3 << 29: "1.5G", 5 << 40: "5T",
	} {
		if got := SizeText(n); got != want {
			t.Errorf("SizeText(%d) = %q, want %q", n, got, want)
		}
		if n >= 1024 {
			// What it writes reads back as the same size, give or take
			// the rounding to one decimal.
			back, err := ParseSize(SizeText(n))
			if err != nil || back < n*99/100 || back > n*101/100 {
				t.Errorf("ParseSize(SizeText(%d)) = %d, %v", n, back, err)
			}
		}
	}
}
