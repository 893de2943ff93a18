package core

import "github.com/uiscope/uiscope/internal/platform"

// AppSummary is an application as list_apps and 'uiscope apps --json' show it.
type AppSummary struct {
	Pid            int             `json:"pid"`
	Name           string          `json:"name"`
	Executable     string          `json:"executable"`
	Toolkit        string          `json:"toolkit"`
	ToolkitVersion string          `json:"toolkitVersion"`
	Accessible     bool            `json:"accessible"`
	Windows        []WindowSummary `json:"windows"`
	WindowsUnknown string          `json:"windowsUnknown,omitempty"`
}

// WindowSummary is one top-level window.
type WindowSummary struct {
	Window string        `json:"window"`
	Title  string        `json:"title"`
	Bounds platform.Rect `json:"bounds"`
	Mapped bool          `json:"mapped"`
	// BoundsUnknown: the desktop lists the window without its place
	// (bounds are zero and mean nothing).
	BoundsUnknown bool     `json:"boundsUnknown,omitempty"`
	AppID         string   `json:"appId,omitempty"`
	States        []string `json:"states,omitempty"`
}

// Summarize shapes an application for output.
func Summarize(a platform.App) AppSummary {
	s := AppSummary{Pid: a.Pid, Name: a.Name, Executable: a.Executable, Toolkit: a.Toolkit,
		ToolkitVersion: a.ToolkitVersion, Accessible: a.Accessible, Windows: []WindowSummary{}, WindowsUnknown: a.WindowsUnknown}
	for _, w := range a.Windows {
		ws := WindowSummary{Window: w.ID.String(), Title: w.Title, Bounds: w.Bounds, Mapped: w.Mapped, BoundsUnknown: w.BoundsUnknown, States: w.States.Names()}
		if w.BoundsUnknown {
			ws.AppID = w.Class // the compositor's app_id, which says what else it knows
		}
		s.Windows = append(s.Windows, ws)
	}
	return s
}
