package remote

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseLogins(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Login
		str  []string // String() of each
	}{
		{"host", []Login{{Host: "host"}}, []string{"host"}},
		{":", []Login{{Local: true}}, []string{":"}},
		{"16/:", []Login{{Slots: 16, Local: true}}, []string{":"}},
		{"4/user@server.example.com", []Login{{Slots: 4, User: "user", Host: "server.example.com"}}, []string{"user@server.example.com"}},
		{"user@host:2222", []Login{{User: "user", Host: "host", Port: "2222"}}, []string{"user@host:2222"}},
		{"h1,2/h2, 3/h3 ", []Login{{Host: "h1"}, {Slots: 2, Host: "h2"}, {Slots: 3, Host: "h3"}}, []string{"h1", "h2", "h3"}},
		{"h1\nh2,", []Login{{Host: "h1"}, {Host: "h2"}}, []string{"h1", "h2"}},
		{"ssh -p 2222 server.example.net", []Login{{SSH: []string{"ssh", "-p", "2222"}, Host: "server.example.net", sshText: "ssh -p 2222"}}, []string{"ssh -p 2222 server.example.net"}},
		{"4/ssh -p 2222 quadserver", []Login{{Slots: 4, SSH: []string{"ssh", "-p", "2222"}, Host: "quadserver", sshText: "ssh -p 2222"}}, []string{"ssh -p 2222 quadserver"}},
		{"6//usr/local/bin/myssh -p 2222 -l me hexacpu", []Login{{Slots: 6, SSH: []string{"/usr/local/bin/myssh", "-p", "2222", "-l", "me"}, Host: "hexacpu", sshText: "/usr/local/bin/myssh -p 2222 -l me"}}, []string{"/usr/local/bin/myssh -p 2222 -l me hexacpu"}},
		{"ssh -J jump1,,jump2 host1,host2", []Login{{SSH: []string{"ssh", "-J", "jump1,jump2"}, Host: "host1", sshText: "ssh -J jump1,jump2"}, {Host: "host2"}}, []string{"ssh -J jump1,jump2 host1", "host2"}},
		{`ssh -J a\,b h`, []Login{{SSH: []string{"ssh", "-J", "a,b"}, Host: "h", sshText: "ssh -J a,b"}}, nil},
		{"[::1]:2222", []Login{{Host: "::1", Port: "2222"}}, []string{"::1:2222"}},
		{"::1p2222", []Login{{Host: "::1", Port: "2222"}}, nil},
		{"u@::1#22", []Login{{User: "u", Host: "::1", Port: "22"}}, nil},
		{"2001:db8::1", []Login{{Host: "2001:db8::1"}}, nil},
		{"127.0.0.11", []Login{{Host: "127.0.0.11"}}, nil},
		{"..", []Login{{File: ".."}}, nil},
		{"-", []Login{{File: "-"}}, nil},
		{"", nil, nil},
	} {
		got, err := ParseLogins(tc.in)
		if err != nil {
			t.Errorf("ParseLogins(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseLogins(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
		for i, s := range tc.str {
			if i < len(got) && got[i].String() != s {
				t.Errorf("ParseLogins(%q)[%d].String() = %q, want %q", tc.in, i, got[i].String(), s)
			}
		}
	}
}

func TestParseLoginsRefuses(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"0/host", `-S: "0/host": 0 job slots`},
		{"+2/host", `-S: "+2/host": N/ takes a plain number`},
		{"-1/host", `N/ takes a plain number`},
		{"user@", "no host name"},
		{"@grp/host", "host groups"},
		{"user:secret@host", "passwords in logins are not supported"},
		{"@host", "host groups"},
		{"-oProxyCommand=x", "cannot start with -"},
		{"-v", "cannot start with -"},
		{"host:99999", "not a port number"},
		{"host:ssh", "not a port number"},
		{"host/path", "cannot read"},
		{"ho$t", "cannot read"},
		{"ssh 'unclosed host", "not closed"},
		{"ssh;rm host", "needs a shell"},
		{"h1,bad login!,h3", `-S: "bad login!"`},
	} {
		_, err := ParseLogins(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseLogins(%q): %v, want one line saying %q", tc.in, err, tc.msg)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "-S: ") {
			t.Errorf("ParseLogins(%q): %q does not begin with -S:", tc.in, err)
		}
	}
}

func TestReadLoginFile(t *testing.T) {
	file := `server.example.com
username@server2.example.com
   # This server has SSH running on port 2222

8/my-8-cpu-server.example.com
ssh -p 2222 server.example.net
16/:
a,b
`
	got, err := ReadLoginFile("hosts", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range got {
		names = append(names, l.String())
	}
	want := "server.example.com|username@server2.example.com|my-8-cpu-server.example.com|ssh -p 2222 server.example.net|:|a|b"
	if strings.Join(names, "|") != want || got[2].Slots != 8 || got[4].Slots != 16 {
		t.Errorf("got %q (%+v)", names, got)
	}
	_, err = ReadLoginFile("hosts", strings.NewReader("ok\n\n0/bad\n"))
	if err == nil || !strings.HasPrefix(err.Error(), `--sshloginfile hosts, line 3: "0/bad": `) {
		t.Errorf("bad line: %v", err)
	}
}

func TestLoginCommand(t *testing.T) {
	l, _ := ParseLogin("u@h:2222")
	if got := strings.Join(l.Command([]string{"ssh", "-F", "cfg"}), " "); got != "ssh -F cfg -p 2222 -l u" {
		t.Errorf("Command = %q", got)
	}
	l, _ = ParseLogin("myssh -x h")
	if got := strings.Join(l.Command([]string{"ssh", "-F", "cfg"}), " "); got != "myssh -x" {
		t.Errorf("a login's own ssh: Command = %q", got)
	}
	if got := strings.Join((Login{Host: "h"}).Command(nil), " "); got != "ssh" {
		t.Errorf("default: Command = %q", got)
	}
}

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"ssh", []string{"ssh"}, ""},
		{"  ssh  -F   cfg ", []string{"ssh", "-F", "cfg"}, ""},
		{`ssh -F '/my dir/cfg'`, []string{"ssh", "-F", "/my dir/cfg"}, ""},
		{`ssh -o "ProxyCommand=nc %h %p"`, []string{"ssh", "-o", "ProxyCommand=nc %h %p"}, ""},
		{`ssh -o ProxyCommand=nc\ %h\ %p`, []string{"ssh", "-o", "ProxyCommand=nc %h %p"}, ""},
		{`ssh -F "a\"b"`, []string{"ssh", "-F", `a"b`}, ""},
		{`ssh ''`, []string{"ssh", ""}, ""},
		{`a#b`, []string{"a#b"}, ""},
		{"", nil, "empty"},
		{"ssh $OPTS", nil, "needs a shell"},
		{`ssh "$OPTS"`, nil, "needs a shell"},
		{"ssh | tee", nil, "needs a shell"},
		{"~/bin/ssh", nil, "needs a shell"},
		{"ssh #comment", nil, "needs a shell"},
		{`ssh "open`, nil, "not closed"},
	} {
		got, err := SplitCommand(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("SplitCommand(%q) = %q, %v; want an error saying %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
