//go:build linux

package linux

import (
	"reflect"
	"testing"

	"github.com/uiscope/uiscope/internal/platform/wayland"
)

// TestMatchToplevels: a window is an app's only when its title names a top
// level of that app alone (or, shared by apps, its app_id names one of
// them alone), and no other window has its title.
func TestMatchToplevels(t *testing.T) {
	tl := func(id wayland.ToplevelID, title, appID string) wayland.Toplevel {
		return wayland.Toplevel{ID: id, Title: title, AppID: appID}
	}
	tops := map[int][]string{10: {"Editor", "Find"}, 20: {"Viewer"}, 30: {"Viewer"}, 40: {"Twin"}, 50: {"Twin"}, 60: {""}}
	names := map[int]string{10: "editor", 20: "viewer", 30: "eog", 40: "twin", 50: "twin", 60: "blank"}
	got := matchToplevels([]wayland.Toplevel{
		tl(1, "Editor", "org.editor"),          // its title names 10's top level alone
		tl(2, "Find", ""),                      // a second window of 10
		tl(3, "Viewer", "eog"),                 // 20 and 30 have it; app_id picks 30
		tl(4, "Twin", "twin"),                  // 40 and 50 have it, and the same name: nobody's
		tl(5, "Same", "x"), tl(6, "Same", "x"), // two windows with one title: nobody's
		tl(7, "", "blank"),            // no title: nobody's
		tl(8, "Stranger", "stranger"), // no app has it
	}, tops, names)
	want := map[int][]wayland.Toplevel{10: {tl(1, "Editor", "org.editor"), tl(2, "Find", "")}, 30: {tl(3, "Viewer", "eog")}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("matchToplevels = %+v\nwant %+v", got, want)
	}
}
