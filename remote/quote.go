package remote

import "strings"

// What ssh does to a command: it joins its words with spaces, sends the line
// to the host, and sshd hands it to the user's login shell (sh, bash, zsh,
// but also csh, tcsh or fish) as one string to parse. So fan sends one
// fixed line that every such shell reads alike, and carries the script it
// means inside it encoded:
//
//	exec /bin/sh -c 'eval "$(printf %b "$1")"' fan 'ENCODED'
//
// ENCODED is the script with every byte that some login shell would read
// inside single quotes (', \, ! and newlines for csh), and every byte that
// is not printable ASCII, written as printf's \0ooo. /bin/sh decodes it and
// runs it, so the script itself is plain POSIX sh, quoted for sh only.

// remoteCommand is the line that makes the host's /bin/sh run script,
// whatever the user's login shell.
func remoteCommand(script string) string {
	var b strings.Builder
	b.Grow(len(script) + len(script)/4 + 64)
	b.WriteString(`exec /bin/sh -c 'eval "$(printf %b "$1")"' fan '`)
	encode(&b, script)
	b.WriteByte('\'')
	return b.String()
}

// encode writes s with the bytes that are not plainly safe inside single
// quotes of any login shell written as \0ooo, which printf %b decodes.
func encode(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= ' ' && c < 0x7f && c != '\'' && c != '\\' && c != '!' {
			b.WriteByte(c)
			continue
		}
		b.WriteString(`\0`)
		b.WriteByte('0' + c>>6)
		b.WriteByte('0' + c>>3&7)
		b.WriteByte('0' + c&7)
	}
}

// quote is s as one word of a POSIX shell: bare when it holds only
// characters that no shell treats specially, in single quotes otherwise.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
