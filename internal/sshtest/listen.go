package sshtest

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// A listening socket outlives the sshd that opened it while a process it
// forked still holds a copy: sshd forks a child for each connection it
// accepts, and the child closes its copy of the listening socket only
// once it first runs. On a loaded machine that can be many milliseconds
// after the fork, so a child forked just before its sshd was killed keeps
// the address listening after the sshd has been reaped: connections are
// then taken into the socket's queue and reset when the child closes it,
// and an sshd started at the address meanwhile cannot bind it. So that
// neither fools a test, a host is up only when its own sshd holds the
// socket that listens at its address, and down only when no socket
// listens there.

// listening returns the inode of the TCP socket that listens at addr
// (IPv4) and port, 0 when none does. It reads /proc/net/tcp, which holds
// the sockets of the test's network namespace.
func listening(addr string, port int) (uint64, error) {
	ip := net.ParseIP(addr).To4()
	if ip == nil {
		return 0, fmt.Errorf("sshtest: %q is not an IPv4 address", addr)
	}
	socks, err := listeners("/proc/net/tcp")
	if err != nil {
		return 0, err
	}
	for _, s := range socks {
		if s.ip.Equal(ip) && s.port == port {
			return s.inode, nil
		}
	}
	return 0, nil
}

// socket is one listening socket of /proc/net/tcp or /proc/net/tcp6.
type socket struct {
	ip    net.IP
	port  int
	inode uint64
}

// listeners reads the listening sockets of file, a /proc/net/tcp or tcp6.
// Its addresses are written as hexadecimal 32-bit words in the machine's
// byte order (so 127.0.0.11 is 0B00007F on amd64), its ports as
// hexadecimal numbers.
func listeners(file string) ([]socket, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []socket
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		fs := strings.Fields(sc.Text())
		const listen = "0A"
		if len(fs) < 10 || fs[3] != listen {
			continue
		}
		hexIP, hexPort, ok := strings.Cut(fs[1], ":")
		if !ok {
			continue
		}
		raw, err := hex.DecodeString(hexIP)
		if err != nil || len(raw)%4 != 0 {
			continue
		}
		ip := make(net.IP, len(raw))
		for i := 0; i < len(raw); i += 4 {
			binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
		}
		port, err1 := strconv.ParseUint(hexPort, 16, 16)
		inode, err2 := strconv.ParseUint(fs[9], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, socket{ip: ip, port: int(port), inode: inode})
	}
	return out, sc.Err()
}

// holds reports whether process pid has the socket inode open.
func holds(pid int, inode uint64) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	want := "socket:[" + strconv.FormatUint(inode, 10) + "]"
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && l == want {
			return true
		}
	}
	return false
}

// holders returns the processes that have the socket inode open.
func holders(inode uint64) []Proc {
	var out []Proc
	for _, p := range scan() {
		if holds(p.PID, inode) {
			out = append(out, p)
		}
	}
	return out
}

// whoListens describes what listens at addr and port, or at port on every
// address (which takes addr too), and the processes that hold each
// socket: the evidence when a host's address is not its sshd's alone.
func whoListens(addr string, port int) string {
	ip := net.ParseIP(addr)
	var b strings.Builder
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		socks, err := listeners(file)
		if err != nil {
			fmt.Fprintf(&b, "\n\t%v", err)
			continue
		}
		for _, s := range socks {
			if s.port != port || !s.ip.Equal(ip) && !s.ip.IsUnspecified() {
				continue
			}
			fmt.Fprintf(&b, "\n\t%s held by:", net.JoinHostPort(s.ip.String(), strconv.Itoa(port)))
			procs := holders(s.inode)
			for _, p := range procs {
				b.WriteString("\n\t\t" + p.String())
			}
			if len(procs) == 0 {
				b.WriteString(" no process (closing)")
			}
		}
	}
	if b.Len() == 0 {
		return "nothing listens there now"
	}
	return "listening there:" + b.String()
}
