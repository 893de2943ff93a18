package core

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// AppSpec names an application the way a person or an agent does: exactly
// one of pid, process name, window title substring or window id.
type AppSpec struct {
	Pid    int    `json:"pid,omitempty"`
	Name   string `json:"name,omitempty"`
	Title  string `json:"title,omitempty"`
	Window string `json:"window,omitempty"` // "0x1a00003" or decimal (platform.ParseWindowID)
}

// Candidate is one application or window a spec could mean.
type Candidate struct {
	Pid    int    `json:"pid"`
	Name   string `json:"name"`
	Window string `json:"window,omitempty"`
	Title  string `json:"title,omitempty"`
}

func (t AppSpec) count() int {
	n := 0
	for _, set := range []bool{t.Pid != 0, t.Name != "", t.Title != "", t.Window != ""} {
		if set {
			n++
		}
	}
	return n
}

// String describes the spec for messages.
func (t AppSpec) String() string {
	switch {
	case t.Pid != 0:
		return fmt.Sprintf("pid %d", t.Pid)
	case t.Name != "":
		return "name " + Quote(t.Name)
	case t.Title != "":
		return "title " + Quote(t.Title)
	default:
		return "window " + t.Window
	}
}

// Resolve picks the one application a spec means. A name or title that
// matches several windows is an ambiguous error carrying the candidates,
// never a guess. The window is set when the spec named one.
func Resolve(apps []platform.App, t AppSpec) (platform.App, *platform.Window, error) {
	if t.count() != 1 {
		return platform.App{}, nil, Errorf(CodeInvalidArgument, "give exactly one of pid, name, title or window")
	}
	if t.Pid < 0 {
		return platform.App{}, nil, Errorf(CodeInvalidArgument, "pid must be positive")
	}
	var wantWin platform.WindowID
	if t.Window != "" {
		id, err := platform.ParseWindowID(t.Window)
		if err != nil {
			return platform.App{}, nil, &Error{Code: CodeInvalidArgument, Err: err, Msg: err.Error()}
		}
		wantWin = id
	}
	type hit struct {
		app platform.App
		win *platform.Window
	}
	var hits []hit
	for _, a := range apps {
		switch {
		case t.Pid != 0:
			if a.Pid == t.Pid {
				hits = append(hits, hit{a, nil})
			}
		case t.Name != "":
			if nameMatches(a, t.Name) {
				if len(a.Windows) > 1 {
					// One process, several windows: still one app.
					hits = append(hits, hit{a, nil})
				} else {
					hits = append(hits, hit{a, firstWindow(a)})
				}
			}
		case t.Title != "":
			for i := range a.Windows {
				if strings.Contains(strings.ToLower(a.Windows[i].Title), strings.ToLower(t.Title)) {
					hits = append(hits, hit{a, &a.Windows[i]})
				}
			}
		default:
			for i := range a.Windows {
				if a.Windows[i].ID == wantWin {
					hits = append(hits, hit{a, &a.Windows[i]})
				}
			}
		}
	}
	switch len(hits) {
	case 0:
		return platform.App{}, nil, Errorf(CodeNotFound, "no application matches %s; list applications with list_apps / 'uiscope apps'", t)
	case 1:
		return hits[0].app, hits[0].win, nil
	}
	// Several windows of one process matched by title are one app.
	same := true
	for _, h := range hits[1:] {
		same = same && h.app.Pid == hits[0].app.Pid
	}
	if same && t.Title != "" {
		return hits[0].app, nil, nil
	}
	e := Errorf(CodeAmbiguous, "%s matches %d windows; connect by pid or window instead (candidates listed)", t, len(hits))
	for _, h := range hits {
		c := Candidate{Pid: h.app.Pid, Name: h.app.Name}
		if h.win != nil {
			c.Window, c.Title = h.win.ID.String(), h.win.Title
		}
		e.Candidates = append(e.Candidates, c)
	}
	return platform.App{}, nil, e
}

func firstWindow(a platform.App) *platform.Window {
	if len(a.Windows) == 0 {
		return nil
	}
	return &a.Windows[0]
}

// nameMatches compares a process name with what a person may type: the
// display name, the executable's base name, with or without extension.
func nameMatches(a platform.App, name string) bool {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, n := range []string{a.Name, filepath.Base(a.Executable)} {
		n = strings.ToLower(n)
		if n != "" && n != "." && (n == name || strings.TrimSuffix(n, filepath.Ext(n)) == name) {
			return true
		}
	}
	return false
}
