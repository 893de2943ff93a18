package platform

import "context"

// NativeWindow is one window of the native window hierarchy (on X11 a
// window and, through QueryTree, its children): what the visual tree shows
// of an application, whether or not it has an accessibility tree.
type NativeWindow struct {
	ID WindowID `json:"-"`
	// Key is the backend's durable identity of the window: its id plus a
	// generation marker, so that an id the system hands to a new window
	// after the old one is gone never carries the old one's identity.
	Key string `json:"key"`
	// Pid is the process that created the window (0 when unknown): the
	// window manager's for a frame.
	Pid      int    `json:"pid,omitempty"`
	Class    string `json:"class,omitempty"`
	Instance string `json:"instance,omitempty"`
	Name     string `json:"name,omitempty"`
	// Bounds is the window's interior in screen pixels (its border left
	// out), wherever its ancestors are.
	Bounds Rect `json:"bounds"`
	// MapState is "viewable" (mapped, and its ancestors too), "unviewable"
	// (mapped under an unmapped ancestor) or "unmapped".
	MapState         string `json:"mapState"`
	OverrideRedirect bool   `json:"overrideRedirect,omitempty"`
	// InputOnly windows take input and draw nothing.
	InputOnly bool `json:"inputOnly,omitempty"`
	// Frame marks a window manager's frame around a client window; Client a
	// top-level window the window manager manages for the application.
	Frame  bool `json:"frame,omitempty"`
	Client bool `json:"client,omitempty"`
	// ChildCount is how many children the window has; Children holds those
	// the read reached, bottom to top in stacking order.
	ChildCount int             `json:"childCount"`
	Children   []*NativeWindow `json:"children,omitempty"`
}

// Map states of a NativeWindow.
const (
	MapViewable   = "viewable"
	MapUnviewable = "unviewable"
	MapUnmapped   = "unmapped"
)

// Viewable reports whether the window is mapped and all its ancestors are.
func (w *NativeWindow) Viewable() bool { return w.MapState == MapViewable }

// WindowTreeOptions shape a window-tree read.
type WindowTreeOptions struct {
	// MaxWindows bounds the read; 0 means the backend's default.
	MaxWindows int
}

// NativeTree is one read of an application's window hierarchy.
type NativeTree struct {
	// Roots are the application's top-level windows, each from the
	// outermost window holding it (its window-manager frame) down, and the
	// application's own popups (menus, tooltips), in stacking order.
	Roots []*NativeWindow
	// Truncated says the read stopped early (MaxWindows, the deadline)
	// and why; windows may be missing.
	Truncated bool
	Reason    string
	Windows   int // windows read
}

// WindowTree reads the native window hierarchy. It belongs to the windows
// side of the seam: a Windows part that can read the hierarchy also
// implements it, and the core finds it there (docs/platform.md).
type WindowTree interface {
	// WindowTree reads the hierarchy of pid's top-level windows. Windows
	// that vanish during the read are left out.
	WindowTree(ctx context.Context, pid int, opts WindowTreeOptions) (*NativeTree, error)
}
