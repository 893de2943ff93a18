package platform

import "context"

// Desktop is one platform as the core receives it: small parts, each an
// interface a backend implements or leaves nil. The core asks for the part
// an operation needs and answers notSupported when the backend lacks it,
// so a backend can arrive with reading only and grow input later.
//
// Implementations bound every call by the context's deadline (a hung
// application never hangs the caller): a call that runs out of time fails
// with an error wrapping ErrTimeout. They are safe for concurrent use.
// Whoever opened the backend closes it; the Desktop value holds no
// resources of its own.
type Desktop struct {
	Accessibility Accessibility
	Processes     Processes
	Windows       Windows
	Input         Input
	Actions       Actions
	Events        Events
	Pixels        Pixels // captures of windows, for screenshots (pixels.go)
}

// Accessibility reads applications and their accessible trees.
type Accessibility interface {
	// Apps lists running applications with their top-level windows,
	// including those that have windows but no accessibility tree
	// (Accessible false).
	Apps(ctx context.Context) ([]App, error)
	// Tree reads an application's accessible tree.
	Tree(ctx context.Context, app App, opts TreeOptions) (*Node, TreeStats, error)
	// Element reads one element live, by the key a tree read gave it.
	Element(ctx context.Context, app App, key string) (*Details, error)
	// Owner returns the pid that owns the application's accessibility
	// connection now, so that a connection taken over by another process
	// is noticed (ErrTimeout when the bus did not answer in time).
	Owner(ctx context.Context, app App) (int, error)
}

// Process is what pins a running process: a pid is reused, a pid with the
// same start time and executable is the same process.
type Process struct {
	Pid int `json:"pid"`
	// StartTime is when the process started, in the platform's own units
	// (clock ticks since boot on Linux); only compared for equality.
	StartTime  uint64 `json:"startTime"`
	Executable string `json:"executable"`
}

// Framework is a UI toolkit or runtime found in a process.
type Framework struct {
	Name     string `json:"name"`
	Version  string `json:"version,omitempty"`
	Evidence string `json:"evidence"` // what it was read from (a library, an executable)
}

// Processes tells who a process is.
type Processes interface {
	// Process returns a running process's identity, or ErrProcessGone
	// when pid names no live process (an exited one awaiting its parent
	// included).
	Process(ctx context.Context, pid int) (Process, error)
	// Frameworks lists the toolkits and runtimes loaded in a process.
	Frameworks(ctx context.Context, pid int) ([]Framework, error)
}

// Windows finds and manages native top-level windows.
type Windows interface {
	// Window returns the window that shows an element of app.
	Window(ctx context.Context, app App, key string) (Window, error)
	// Activate raises and focuses a window and verifies it became active
	// (ErrNotActivated otherwise).
	Activate(ctx context.Context, win Window) error
	// ActiveWindow is the window that has the keyboard focus.
	ActiveWindow(ctx context.Context) (WindowID, error)
	// TopmostAt is the top-level window on top at a screen point.
	TopmostAt(ctx context.Context, x, y int) (WindowID, error)
	// WindowPid is the process behind a window (0 when unknown).
	WindowPid(ctx context.Context, id WindowID) (int, error)
	// WindowAction minimizes, maximizes, restores or closes a window.
	WindowAction(ctx context.Context, win Window, action string) error
	// Screen is the screen's rectangle in pixels.
	Screen(ctx context.Context) (Rect, error)
}

// Input sends real pointer and keyboard input, to whatever is under the
// pointer or has the focus: the core checks where it lands first.
// Implementations serialize input.
type Input interface {
	Click(ctx context.Context, x, y, button, count int) error
	Wheel(ctx context.Context, x, y, dx, dy int) error
	// ValidateChord parses a key chord ("Ctrl+S") without sending
	// anything (ErrInvalidKeys).
	ValidateChord(chord string) error
	KeyChord(ctx context.Context, chord string) error
	// TypeText types text and returns how many characters were sent.
	TypeText(ctx context.Context, text string) (int, error)
}

// Actions acts on elements through their accessibility interfaces, without
// real input.
type Actions interface {
	// DoAction runs the element's first action named in names.
	DoAction(ctx context.Context, app App, key string, names ...string) (used string, err error)
	// SetText replaces an editable element's text and reads it back.
	SetText(ctx context.Context, app App, key, text string) (effective, method string, err error)
	// SetValue sets a Value element and reads it back.
	SetValue(ctx context.Context, app App, key string, v float64) (float64, error)
	GrabFocus(ctx context.Context, app App, key string) error
	ScrollTo(ctx context.Context, app App, key string) error
	// Select changes a selectable child's selection through its
	// container; clear first empties the selection (replace).
	Select(ctx context.Context, app App, containerKey string, index int, selected bool, clear bool) error
	IsSelected(ctx context.Context, app App, containerKey string, index int) (bool, error)
	SelectText(ctx context.Context, app App, key string, start, end int) error
}

// Events reports changes as they happen.
type Events interface {
	// Watch sends a value (coalesced) on changes whenever the application
	// emits an accessibility event; stop ends the watch.
	Watch(ctx context.Context, app App) (changes <-chan struct{}, stop func(), err error)
}

// Diagnoser is the optional part of Accessibility that says why an
// application has windows but no accessibility tree, and what gives it
// one, in words an agent can act on without a terminal ("GTK 2 loads its
// accessibility only as modules: restart it with GTK_MODULES=…"); "" when
// it cannot tell.
type Diagnoser interface {
	WhyInaccessible(ctx context.Context, app App) string
}

// StillReader is the optional part of Accessibility that tells an
// application whose events do not say when it is done (GTK 4.8 announces
// almost nothing: a text view's text changes silently), and sums up what
// one shows now: after an action on such an app the core waits until two
// fingerprints agree (only compared for equality) before it reads back.
// Without it every app's quiet on the bus counts as settled.
type StillReader interface {
	EventPoor(app App) bool
	Fingerprint(ctx context.Context, app App) (uint64, error)
}

// TopLevelReader is the optional part of Accessibility that reads an
// application's top-level accessibles alone (role, name, states, bounds):
// what an action's effects name a window opened or closed by. Without it
// effects say less, never something wrong.
type TopLevelReader interface {
	TopLevels(ctx context.Context, app App) ([]Node, error)
}

// AttachedReader is the optional part of Accessibility that tells whether
// an element is still in its application's tree: the top level holding it
// among the application's top levels. A toolkit may keep answering for the
// widgets of a window it destroyed (GTK 4, while the app holds a reference
// to the window): an action's effects call such an element gone once its
// window closed, and on such a toolkit (KeepsDetached) an action on one is
// refused as gone. Without it neither is known.
type AttachedReader interface {
	Attached(ctx context.Context, app App, key string) (bool, error)
	KeepsDetached(app App) bool
}

// TextReader is the optional part of Accessibility that reads the text of
// many elements at once, as a tree read found them (a search by text): at
// most maxRunes runes each, in pipelined rounds rather than a call and a
// wait per element. The answer is aligned with nodes, nil where nothing
// was read: a password or redacted field (never read), an element without
// the Text interface, one that failed or hides its text, or one the
// deadline left unread (then the error wraps ErrTimeout). Without it a
// text search matches what the tree read holds (values).
type TextReader interface {
	Texts(ctx context.Context, app App, nodes []*Node, maxRunes int) ([]*string, error)
}

// FocusTracker is the optional part of Accessibility that tells the
// element that last announced it took the keyboard focus while the app was
// watched, and how many times the focus moved: an action's effects report
// a focus move by it, and typing into an element finds the descendant that
// has the keys. Without it effects say less.
type FocusTracker interface {
	Focus(ctx context.Context, app App) (key string, moves uint64)
}

// FocusedChildReader is the optional part of Accessibility that reads which
// child of an element has the keyboard focus ("" when none has), the
// second way the core finds where typed keys went.
type FocusedChildReader interface {
	FocusedChild(ctx context.Context, app App, key string) (string, error)
}

// ActionStarter is the optional part of Actions that sends an element's
// action without waiting for the reply, which then arrives on the channel
// (by ctx's deadline): the core stops waiting early when a window of the
// app opens meanwhile (a modal dialog whose toolkit answers the action
// only when it closes, as Qt does). Without it the core calls DoAction and
// waits for the reply.
type ActionStarter interface {
	StartAction(ctx context.Context, app App, key string, names ...string) (used string, reply <-chan error, err error)
}

// WindowLister is the optional part of Windows that lists one process's
// top-level windows as the display server has them now, and its open
// menus (Popup set), without reading the rest of the desktop's
// applications. Without it the core finds the app's windows through
// Accessibility.Apps.
type WindowLister interface {
	AppWindows(ctx context.Context, pid int) ([]Window, error)
}

// LengthChecker is the optional part of Actions that tells whether an
// element's text has n characters without reading them: the one read-back
// a password field allows. Without it the core cannot verify typing into a
// password field, and set_value on one answers noEffect.
type LengthChecker interface {
	TextLengthIs(ctx context.Context, app App, key string, n int) (bool, error)
}

// CheckedTyper is the optional part of Input that types a whole text as one
// sequence, calling check before the first character and before every
// every characters after, and stopping (with check's error, as is, and the
// count typed) when it fails: the core's "is the target window still in
// front" between batches. Keys bound for characters the layout lacks stay
// bound for the whole text. Without it the core types the text in batches
// through TypeText and checks between them.
type CheckedTyper interface {
	TypeTextChecked(ctx context.Context, text string, every int, check func(ctx context.Context) error) (int, error)
}

// WindowLayout is which of an application's windows shows which part of
// its accessible tree, read at one moment.
type WindowLayout struct {
	// Windows are the application's windows at that moment, bottom to top
	// in the screen's stacking order: its top-level windows and its popups
	// (Popup set).
	Windows []Window
	// Shows maps the key of an element to the window that shows it and
	// its descendants, down to the next element listed: each top level
	// (frame, dialog) whose window could be told, and each popup (a
	// menu) inside one. An element with no listed ancestor-or-self is
	// shown by no window that could be told.
	Shows map[string]WindowID
}

// WindowLayouts tells which window shows which element: a Windows part
// that can tell implements it, and the core finds it there (screenshots
// capture the window an element is in, a dialog or a popup menu).
type WindowLayouts interface {
	// WindowLayout maps the top levels of root (the application's tree
	// as just read, bounds in screen pixels) and the popups inside them
	// to the application's windows as they are now.
	WindowLayout(ctx context.Context, app App, root *Node) (*WindowLayout, error)
}
