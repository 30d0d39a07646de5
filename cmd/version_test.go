package cmd

import (
	"runtime/debug"
	"testing"
)

// What --version says for each way fan can be built.
func TestVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0c7244a2d8e1f00dfeedface0123456789abcdef"
	cases := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"go install @tag", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"go install @latest, untagged", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124193000-0c7244a2d8e1"}}, "v0.0.0-20261124193000-0c7244a2d8e1"},
		{"make build in a clone", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124193000-0c7244a2d8e1+dirty"}, Settings: vcs(rev, "true")}, "v0.0.0-20261124193000-0c7244a2d8e1+dirty"},
		{"a commit, no module version", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, "(devel) 0c7244a2d8e1"},
		{"with uncommitted changes", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, "(devel) 0c7244a2d8e1-dirty"},
		{"no version control", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)"},
		{"go test", &debug.BuildInfo{}, "(devel)"},
	}
	for _, c := range cases {
		if got := version(c.info, true); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	if got := version(nil, false); got != "(devel)" {
		t.Errorf("no build information: got %q", got)
	}
}
