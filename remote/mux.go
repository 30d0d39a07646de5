package remote

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
)

// A channel runs one command on the host as a channel of a master
// connection, asked for over the master's control socket in OpenSSH's
// multiplexing protocol (PROTOCOL.mux in OpenSSH's sources): fan hands
// the command's stdin, stdout and stderr to the master itself, so no ssh
// client process runs per job. (Such a client, ssh -S, costs about 6 ms of
// CPU to start; a channel asked for here, a tenth of a millisecond.)
//
// The master keeps the channel for as long as the control connection is
// open: closing it (Kill) closes the channel, as killing an ssh -S client
// would.
type channel struct {
	conn *net.UnixConn
	done chan struct{} // closed once the master has closed the connection
	// status is the command's exit status, set before done is closed;
	// 255 when the master sent none (the connection to the host was
	// lost), as ssh reports it.
	status int
}

// The messages fan sends and reads (PROTOCOL.mux).
const (
	muxHello         = 0x00000001
	muxNewSession    = 0x10000002
	muxDenied        = 0x80000002
	muxFailure       = 0x80000003
	muxExit          = 0x80000004
	muxSessionOpened = 0x80000006
	muxVersion       = 4
	maxPacket        = 256 << 10
)

// errChannel is a channel that the master could not open; its message is
// the master's (or the system's) reason.
type errChannel struct{ msg string }

func (e *errChannel) Error() string { return e.msg }

// openChannel asks the master at sock to run command (a line for the
// login shell) with stdin, stdout and stderr, and returns once the host
// has opened the channel. When ctx ends first, the request is given up.
// An error is an *errChannel.
func openChannel(ctx context.Context, sock, command string, stdin, stdout, stderr *os.File) (*channel, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, &errChannel{fmt.Sprintf("cannot reach the master connection: %v", err)}
	}
	conn := c.(*net.UnixConn)
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	ch, err := request(conn, command, stdin, stdout, stderr)
	if !stop() || err != nil {
		conn.Close()
		if ctx.Err() != nil {
			return nil, &errChannel{context.Cause(ctx).Error()}
		}
		return nil, err
	}
	go ch.wait()
	return ch, nil
}

// request says hello, asks for the session, passes the descriptors and
// reads the master's answer.
func request(conn *net.UnixConn, command string, stdin, stdout, stderr *os.File) (*channel, error) {
	broken := func(err error) error {
		return &errChannel{fmt.Sprintf("the master connection went away: %v", err)}
	}
	if err := writePacket(conn, u32(u32(nil, muxHello), muxVersion)); err != nil {
		return nil, broken(err)
	}
	if m, err := readPacket(conn); err != nil {
		return nil, broken(err)
	} else if t, _ := get32(m); t != muxHello {
		return nil, &errChannel{fmt.Sprintf("the master said %#x, not hello", t)}
	}
	m := u32(nil, muxNewSession)
	m = u32(m, 1)          // request id
	m = text(m, "")        // reserved
	m = u32(m, 0)          // no tty
	m = u32(m, 0)          // no X11
	m = u32(m, 0)          // no agent
	m = u32(m, 0)          // not a subsystem
	m = u32(m, ^uint32(0)) // no escape character
	m = text(m, "")        // TERM
	m = text(m, command)
	if err := writePacket(conn, m); err != nil {
		return nil, broken(err)
	}
	for _, f := range []*os.File{stdin, stdout, stderr} {
		if _, _, err := conn.WriteMsgUnix([]byte{0}, syscall.UnixRights(int(f.Fd())), nil); err != nil {
			return nil, broken(err)
		}
	}
	reply, err := readPacket(conn)
	if err != nil {
		return nil, broken(err)
	}
	switch t, rest := get32(reply); t {
	case muxSessionOpened:
		return &channel{conn: conn, done: make(chan struct{}), status: 255}, nil
	case muxDenied, muxFailure:
		_, rest = get32(rest) // request id
		msg, _ := getText(rest)
		return nil, &errChannel{msg}
	default:
		return nil, &errChannel{fmt.Sprintf("the master said %#x to a session request", t)}
	}
}

// wait reads the master's messages until it closes the connection, and
// keeps the command's exit status.
func (ch *channel) wait() {
	defer close(ch.done)
	defer ch.conn.Close()
	for {
		m, err := readPacket(ch.conn)
		if err != nil {
			return
		}
		if t, rest := get32(m); t == muxExit {
			_, rest = get32(rest) // session id
			if s, rest2 := get32(rest); len(rest2) < len(rest) {
				ch.status = int(s)
			}
		}
	}
}

// Kill closes the channel: the master closes it on the host.
func (ch *channel) Kill() { ch.conn.Close() }

func writePacket(w io.Writer, body []byte) error {
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(body)), uint32(len(body)))
	_, err := w.Write(append(b, body...))
	return err
}

func readPacket(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxPacket {
		return nil, errors.New("a message too large")
	}
	b := make([]byte, size)
	_, err := io.ReadFull(r, b)
	return b, err
}

func u32(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }

func text(b []byte, s string) []byte { return append(u32(b, uint32(len(s))), s...) }

// get32 reads a uint32 from b; short input reads as 0 and leaves b.
func get32(b []byte) (uint32, []byte) {
	if len(b) < 4 {
		return 0, b
	}
	return binary.BigEndian.Uint32(b), b[4:]
}

// getText reads a string from b.
func getText(b []byte) (string, []byte) {
	n, rest := get32(b)
	if uint32(len(rest)) < n {
		return string(rest), nil
	}
	return string(rest[:n]), rest[n:]
}
