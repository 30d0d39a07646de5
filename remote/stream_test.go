package remote

import (
	"bytes"
	"os"
	"testing"
)

// demuxed feeds stream to a demux in chunks of size n and returns what it
// made of it.
func demuxed(t *testing.T, stream string, n int) (out string, pgid, status int, pre string, started bool) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	d := newDemux("n0nce", r, &buf)
	go d.run()
	for i := 0; i < len(stream); i += n {
		w.Write([]byte(stream[i:min(i+n, len(stream))]))
	}
	w.Close()
	<-d.done
	pgid, status, pre = d.result()
	return buf.String(), pgid, status, pre, d.begun()
}

func TestDemux(t *testing.T) {
	for _, tc := range []struct {
		name, stream, out, pre string
		pgid, status           int
		started                bool
	}{
		{"plain", "\x1fn0nce P 42\nerr 1\nerr 2\n\x1fn0nce E 3\n", "err 1\nerr 2\n", "", 42, 3, true},
		{"noise first", "Warning: motd\n\x1fn0nce P 7\n\x1fn0nce E 0\n", "", "Warning: motd\n", 7, 0, true},
		{"no newline", "\x1fn0nce P 7\npartial\x1fn0nce E 255\n", "partial", "", 7, 255, true},
		{"no end", "\x1fn0nce P 7\nlost", "lost", "", 7, -1, true},
		{"cut end", "\x1fn0nce P 7\nlost\x1fn0nce E 1", "lost\x1fn0nce E 1", "", 7, -1, true},
		{"never started", "ssh: connect to host h: Connection refused\n", "", "ssh: connect to host h: Connection refused\n", 0, -1, false},
		{"other nonce", "\x1fn0nce P 7\n\x1fother E 1\n\x1fn0nce E 2\n", "\x1fother E 1\n", "", 7, 2, true},
		{"0x1f in output", "\x1fn0nce P 7\na\x1fb\x1f\n\x1fn0nce E 0\n", "a\x1fb\x1f\n", "", 7, 0, true},
		{"end line mid-stream", "\x1fn0nce P 7\n\x1fn0nce E 0\nmore\n", "\x1fn0nce E 0\nmore\n", "", 7, -1, true},
	} {
		for _, n := range []int{1, 2, 3, 5, 7, 1000} {
			out, pgid, status, pre, started := demuxed(t, tc.stream, n)
			if out != tc.out || pgid != tc.pgid || status != tc.status || pre != tc.pre || started != tc.started {
				t.Errorf("%s, chunks of %d: out %q pgid %d status %d pre %q started %v; want %q %d %d %q %v",
					tc.name, n, out, pgid, status, pre, started, tc.out, tc.pgid, tc.status, tc.pre, tc.started)
			}
		}
	}
}

func TestDemuxKeepsTheLastOfLongNoise(t *testing.T) {
	noise := bytes.Repeat([]byte("x"), 3*tailLimit)
	_, _, _, pre, _ := demuxed(t, string(noise)+"the reason\n", 512)
	if len(pre) != tailLimit || !bytes.HasSuffix([]byte(pre), []byte("the reason\n")) {
		t.Errorf("pre: %d bytes ending %q", len(pre), pre[max(0, len(pre)-20):])
	}
}
