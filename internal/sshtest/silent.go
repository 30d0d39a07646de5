package sshtest

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"
)

// Silent adds to the client configuration a host named name that takes
// every connection and never says a word: a TCP listener of the test's
// own on a free port of 127.0.0.1, which accepts connections and reads
// what comes without ever writing (as a machine still booting, a hung
// sshd, or a firewall that accepts and then drops everything would). Its
// ConnectTimeout is 0 (none, ssh's default), so that ssh waits for the
// host's banner for ever: whatever bounds the wait is the caller's.
// conns reports how many connections the host has taken so far, and how
// many of them are still open (their client has not closed them). The
// listener and its connections are closed when t ends.
func (hs *Hosts) Silent(t TB, name string) (conns func() (taken, open int)) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu          sync.Mutex
		held        []net.Conn
		taken, open int
		closed      bool
		wg          sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if closed { // taken as the test ended
				c.Close()
			}
			held = append(held, c)
			taken++
			open++
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				io.Copy(io.Discard, c) // until the client closes it
				mu.Lock()
				open--
				mu.Unlock()
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		closed = true
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	// ssh takes the first value it finds for an option: the host's own
	// block goes before the others' "Host *".
	old, err := os.ReadFile(hs.Config)
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	block := fmt.Sprintf("Host %s\n\tHostName 127.0.0.1\n\tPort %d\n\tConnectTimeout 0\n", name, port)
	if err := os.WriteFile(hs.Config, append([]byte(block), old...), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return taken, open
	}
}
