package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

const fakePid = 4242

// withFake makes the commands read a fake desktop with one application:
//
//	e0 application "editor"
//	e1   frame "Editor"
//	e2     push button "Save"
//	e3     text "Notes"
func withFake(t *testing.T) *fake.Desktop {
	t.Helper()
	nd := func(key, r, name string, kids ...*platform.Node) *platform.Node {
		return &platform.Node{Key: key, Role: fake.Role(r), Name: name, ChildCount: len(kids), Children: kids}
	}
	f := fake.New()
	f.AddApp(fake.App{Pid: fakePid, Name: "editor", Tree: nd("fake:app", "application", "editor",
		nd("fake:frame", "frame", "Editor",
			nd("fake:save", "push button", "Save"),
			nd("fake:notes", "text", "Notes")))})
	f.AddWindow(fakePid, "Editor", platform.Rect{Width: 400, Height: 300})
	old := desktopOpener
	desktopOpener = func(context.Context) (platform.Desktop, func(), error) { return f.Platform(), func() {}, nil }
	t.Cleanup(func() { desktopOpener = old })
	return f
}

func runCmd(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(context.Background(), &cli{stdout: &out, stderr: &errb}, args)
	return out.String(), errb.String(), code
}

// TestCommandsReadThroughSessions: tree, find and props read the fake
// desktop through core sessions, with refs as positions in a fresh read and
// props taking a key too.
func TestCommandsReadThroughSessions(t *testing.T) {
	withFake(t)
	pid := fmt.Sprint(fakePid)
	out, errs, code := runCmd("tree", "--pid", pid)
	if code != 0 || !strings.Contains(out, `push button "Save" [a11y:e2]`) || !strings.Contains(errs, "# 4 nodes (4 shown)") {
		t.Errorf("tree: exit %d\n%s%s", code, out, errs)
	}
	out, _, code = runCmd("tree", "--pid", pid, "--element", "a11y:e3", "--format", "json")
	var tj struct {
		Root struct {
			Name string `json:"name"`
			Key  string `json:"key"`
		} `json:"root"`
		Shown int `json:"shown"`
	}
	if err := json.Unmarshal([]byte(out), &tj); code != 0 || err != nil || tj.Root.Name != "Notes" || tj.Shown != 1 || tj.Root.Key != "" {
		t.Errorf("tree --element a11y:e3: exit %d, %v\n%s", code, err, out)
	}
	// The key, which props takes, only with --fields key.
	out, _, code = runCmd("tree", "--pid", pid, "--element", "a11y:e3", "--format", "json", "--fields", "key")
	if err := json.Unmarshal([]byte(out), &tj); code != 0 || err != nil || tj.Root.Key != "fake:notes" {
		t.Errorf("tree --fields key: exit %d, %v\n%s", code, err, out)
	}
	out, _, code = runCmd("find", "--pid", pid, "--name", "notes", "--json", "--fields", "key")
	if code != 0 || !strings.Contains(out, `"key": "fake:notes"`) {
		t.Errorf("find --json --fields key: exit %d\n%s", code, out)
	}
	if _, errs, code = runCmd("tree", "--pid", pid, "--fields", "colour"); code != 1 || !strings.Contains(errs, `not "colour"`) {
		t.Errorf("tree --fields colour: exit %d\n%s", code, errs)
	}
	out, _, code = runCmd("find", "--pid", pid, "--name", "save")
	if code != 0 || strings.TrimSpace(out) != `push button "Save" [a11y:e2]` {
		t.Errorf("find: exit %d\n%s", code, out)
	}
	for _, el := range []string{"a11y:e3", "fake:notes"} {
		out, errs, code = runCmd("props", "--pid", pid, "--element", el)
		if code != 0 || !strings.Contains(out, `name:          "Notes"`) || !strings.Contains(out, `ref:           "a11y:e3"`) {
			t.Errorf("props %s: exit %d\n%s%s", el, code, out, errs)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"props", "--pid", pid, "--element", "fake:gone"}, 1, "[elementGone]"},
		{[]string{"props", "--pid", pid, "--element", "a11y:e9"}, 1, "[unknownRef]"},
		{[]string{"tree", "--pid", pid, "--depth", "-5"}, 1, "[invalidArgument]"},
		{[]string{"find", "--pid", pid, "--name", "nothing"}, 1, ""},
		{[]string{"tree", "--pid", "999"}, 1, "[notFound]"},
	} {
		_, errs, code := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// TestCommandsCheckIdentity: a command whose read fails because the
// application was replaced (same pid, another process) says the
// application is gone, through the session's identity check, as the MCP
// tools do. Before the commands read through core sessions they reported
// the backend's error for the read ([elementGone]) instead.
func TestCommandsCheckIdentity(t *testing.T) {
	for _, tc := range []struct {
		call string
		args []string
	}{
		{"Tree", []string{"tree", "--pid", fmt.Sprint(fakePid)}},
		{"Tree", []string{"find", "--pid", fmt.Sprint(fakePid), "--name", "Save"}},
		{"Element", []string{"props", "--pid", fmt.Sprint(fakePid), "--element", "fake:save"}},
	} {
		f := withFake(t)
		f.SetHook(func(_ context.Context, c fake.Call) error {
			if c.Name != tc.call {
				return nil
			}
			f.Restart(fakePid)
			return fmt.Errorf("%w: the application's connection closed", platform.ErrElementGone)
		})
		_, errs, code := runCmd(tc.args...)
		if code != 1 || !strings.Contains(errs, "[ownershipLost]") {
			t.Errorf("%v with the app replaced during its %s read: exit %d, stderr %q; want exit 1, ownershipLost", tc.args, tc.call, code, errs)
		}
	}
}
