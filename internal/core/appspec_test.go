package core

import (
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

func TestResolve(t *testing.T) {
	apps := []platform.App{
		{Pid: 10, Name: "editor.py", Executable: "/usr/bin/python3.11", Windows: []platform.Window{{ID: 0x100, Title: "Notes - Editor"}}},
		{Pid: 11, Name: "editor.py", Executable: "/usr/bin/python3.11", Windows: []platform.Window{{ID: 0x200, Title: "Todo - Editor"}}},
		{Pid: 12, Name: "gtk3-widget-factory", Executable: "/usr/bin/gtk3-widget-factory", Windows: []platform.Window{
			{ID: 0x300, Title: "Widget Factory"}, {ID: 0x301, Title: "About Widget Factory"}}},
	}
	cases := []struct {
		target   AppSpec
		wantPid  int
		wantCode string
		cands    int
	}{
		{AppSpec{Pid: 12}, 12, "", 0},
		{AppSpec{Name: "gtk3-widget-factory"}, 12, "", 0},
		{AppSpec{Name: "editor"}, 0, CodeAmbiguous, 2},
		{AppSpec{Name: "editor.py"}, 0, CodeAmbiguous, 2},
		{AppSpec{Title: "todo"}, 11, "", 0},
		{AppSpec{Title: "Editor"}, 0, CodeAmbiguous, 2},
		{AppSpec{Title: "Widget Factory"}, 12, "", 0}, // two windows, one process
		{AppSpec{Window: "0x200"}, 11, "", 0},
		{AppSpec{Window: "512"}, 11, "", 0},
		{AppSpec{Window: "0xnope"}, 0, CodeInvalidArgument, 0},
		{AppSpec{Pid: 99}, 0, CodeNotFound, 0},
		{AppSpec{}, 0, CodeInvalidArgument, 0},
		{AppSpec{Pid: 10, Name: "x"}, 0, CodeInvalidArgument, 0},
		{AppSpec{Pid: -3}, 0, CodeInvalidArgument, 0},
	}
	for _, c := range cases {
		app, _, err := Resolve(apps, c.target)
		if c.wantCode != "" {
			if err == nil {
				t.Errorf("Resolve(%+v) succeeded, want %s", c.target, c.wantCode)
				continue
			}
			if e := AsError(err); e.Code != c.wantCode || len(e.Candidates) != c.cands {
				t.Errorf("Resolve(%+v): %v (code %v, %d candidates), want %s with %d", c.target, err, e.Code, len(e.Candidates), c.wantCode, c.cands)
			}
			continue
		}
		if err != nil || app.Pid != c.wantPid {
			t.Errorf("Resolve(%+v) = pid %d, %v; want pid %d", c.target, app.Pid, err, c.wantPid)
		}
	}
}
