// Package remote runs jobs on other hosts over OpenSSH: it reads GNU
// parallel's logins (-S, --sshloginfile), keeps one shared connection per
// host through the system's ssh client (ControlMaster), asks a host for its
// CPU count, and runs a job's command there as a runner.Executor, in a
// process group of its own that is terminated and swept over the same
// connection.
package remote

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Login is one host to run jobs on, as -S names it: GNU parallel's
// [N/][sshcommand ][user@]host[:port], or ":" for this machine.
type Login struct {
	// Slots is the N of N/LOGIN: how many jobs run there at once. 0
	// leaves it to the host's CPU count (Host.CPUs).
	Slots int
	// Local is ":": this machine, without ssh.
	Local bool
	// SSH is the login's own ssh command and options ("ssh -p 2222
	// host" gives [ssh -p 2222]); nil runs the run's ssh (--ssh).
	SSH []string
	// User, Host and Port are where to log in; User and Port may be "".
	// Host is an IPv6 address without brackets.
	User, Host, Port string
	// File is set, alone, for the logins ".." and "-", which stand for
	// the logins of ~/.parallel/sshloginfile and of standard input: the
	// caller reads those.
	File string

	sshText string // the ssh command as written, for String
}

// String is the login as GNU parallel names it, in the joblog's Host column
// among other places: ":" or [sshcommand ][user@]host[:port], without N/.
func (l Login) String() string {
	switch {
	case l.Local:
		return ":"
	case l.File != "":
		return l.File
	}
	var b strings.Builder
	if l.sshText != "" {
		b.WriteString(l.sshText + " ")
	}
	if l.User != "" {
		b.WriteString(l.User + "@")
	}
	b.WriteString(l.Host)
	if l.Port != "" {
		b.WriteString(":" + l.Port)
	}
	return b.String()
}

// Addr is the login's host alone, without user, port or ssh command (a
// job's PARALLEL_SSHHOST), or "" for this machine.
func (l Login) Addr() string {
	if l.Local {
		return ""
	}
	return l.Host
}

// Command is the ssh command that reaches the login's host, without the
// destination: the login's own ssh command, or else ssh (the run's, from
// --ssh or $PARALLEL_SSH), then -p PORT and -l USER when the login gives
// them. The destination is l.Host.
func (l Login) Command(ssh []string) []string {
	if l.SSH != nil {
		ssh = l.SSH
	}
	if len(ssh) == 0 {
		ssh = []string{"ssh"}
	}
	argv := append([]string(nil), ssh...)
	if l.Port != "" {
		argv = append(argv, "-p", l.Port)
	}
	if l.User != "" {
		argv = append(argv, "-l", l.User)
	}
	return argv
}

// A LoginError is a login that cannot be read. Its message names where the
// login came from and says what is wrong.
type LoginError struct {
	Where  string // "-S", or "--sshloginfile FILE, line N"
	Login  string
	Reason string
}

func (e *LoginError) Error() string {
	return fmt.Sprintf("%s: %q: %s", e.Where, e.Login, e.Reason)
}

// ParseLogins reads one -S value: logins separated by commas or newlines
// (a comma inside a login is written ,, or \,). Empty logins are skipped.
// Errors are *LoginError, whose message begins with "-S: ".
func ParseLogins(value string) ([]Login, error) {
	return parseList(value, "-S")
}

func parseList(value, where string) ([]Login, error) {
	const comma = "\x00" // no login holds a NUL: it stands for a kept comma
	value = strings.NewReplacer(`\,`, comma, ",,", comma).Replace(value)
	var logins []Login
	for _, s := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == '\n' }) {
		s = strings.TrimSpace(strings.ReplaceAll(s, comma, ","))
		if s == "" {
			continue
		}
		l, err := ParseLogin(s)
		if err != nil {
			err.(*LoginError).Where = where
			return nil, err
		}
		logins = append(logins, l)
	}
	return logins, nil
}

// ReadLoginFile reads an --sshloginfile: a login (or several, comma
// separated) on each line; blank lines and lines starting with # are
// skipped. name is the file's name for messages. Errors reading logins are
// *LoginError, whose message begins with "--sshloginfile NAME, line N: ".
func ReadLoginFile(name string, r io.Reader) ([]Login, error) {
	var logins []Login
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ls, err := parseList(line, fmt.Sprintf("--sshloginfile %s, line %d", name, n))
		if err != nil {
			return nil, err
		}
		logins = append(logins, ls...)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--sshloginfile %s: %w", name, err)
	}
	return logins, nil
}

// loginRes are the parts of a login ParseLogin reads, compiled when first
// used.
var loginRes = sync.OnceValue(func() (r struct{ slots, host, ipv6, port *regexp.Regexp }) {
	r.slots = regexp.MustCompile(`^(\d+)/`)
	r.host = regexp.MustCompile(`(?i)^[-a-z0-9._]+`)
	r.ipv6 = regexp.MustCompile(`(?i)^(?:\[([0-9a-f:]+)\]|([0-9a-f:]+))`)
	r.port = regexp.MustCompile(`^(?:[:p.#])(\w+)`)
	return r
})

// ParseLogin reads one login: [N/][sshcommand ][user@]host[:port], or
// [N/]: for this machine, as GNU parallel reads it; an IPv6 address is
// written [::1]:2222, ::1p2222 or ::1#2222. Host groups (@group/) and
// passwords (user:password@) are refused, as are host names that start
// with "-". The error is a *LoginError with Where "-S".
func ParseLogin(s string) (Login, error) {
	re := loginRes()
	orig := s
	bad := func(format string, a ...any) (Login, error) {
		return Login{}, &LoginError{Where: "-S", Login: orig, Reason: fmt.Sprintf(format, a...)}
	}
	var l Login
	if s == ".." || s == "-" {
		l.File = s
		return l, nil
	}
	if strings.HasPrefix(s, "@") {
		return bad("host groups (@group/) are not supported")
	}
	if m := re.slots.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 {
			return bad("%s job slots: give at least 1 (4/host), or leave N/ out to use the host's CPU count", m[1])
		}
		l.Slots = n
		s = s[len(m[0]):]
	} else if i := strings.Index(s, "/"); i > 0 && strings.Trim(s[:i], "+-0123456789") == "" {
		return bad("N/ takes a plain number of job slots (4/host)")
	}
	if s == ":" {
		l.Local = true
		return l, nil
	}
	if i := strings.LastIndexAny(s, " \t"); i >= 0 {
		l.sshText = strings.TrimSpace(s[:i])
		words, err := SplitCommand(l.sshText)
		if err != nil {
			return bad("its ssh command: %v", err)
		}
		l.SSH, s = words, s[i+1:]
	}
	if i := strings.Index(s, "@"); i >= 0 {
		l.User, s = s[:i], s[i+1:]
		if l.User == "" {
			return bad("no user name before the @ (try user@host)")
		}
		if strings.Contains(l.User, ":") {
			return bad("passwords in logins are not supported: log in with a key (ssh-copy-id) or an agent")
		}
	}
	if strings.Count(s, ":") < 2 {
		l.Host = re.host.FindString(s)
		s = s[len(l.Host):]
	} else if m := re.ipv6.FindStringSubmatch(s); m != nil {
		l.Host = m[1] + m[2]
		s = s[len(m[0]):]
	}
	if l.Host == "" {
		if s == "" || s == ":" {
			return bad("no host name (try host, user@host, host:port, 4/host or :)")
		}
		return bad("cannot read a host name in %q (try host, user@host, host:port, 4/host or :)", s)
	}
	if strings.HasPrefix(l.Host, "-") {
		return bad("a host name cannot start with -")
	}
	if m := re.port.FindStringSubmatch(s); m != nil {
		p, err := strconv.Atoi(m[1])
		if err != nil || p < 1 || p > 65535 {
			return bad("port %q is not a port number (1-65535)", m[1])
		}
		l.Port, s = m[1], s[len(m[0]):]
	}
	if s != "" {
		return bad("cannot read %q after the host name (try host, user@host, host:port, 4/host or :)", s)
	}
	return l, nil
}
