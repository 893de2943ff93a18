// Package platform holds the types and interfaces the core speaks to a desktop
// backend through: applications, windows, accessible nodes and their states.
// It knows nothing of MCP and holds no OS code; backends live in subpackages
// (atspi, x11) and return these types.
package platform

import (
	"context"
	"errors"
	"strings"
	"time"
)

// Rect is a rectangle in screen pixels.
type Rect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Contains reports whether the point lies inside r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && y >= r.Y && x < r.X+r.Width && y < r.Y+r.Height
}

// Empty reports whether r covers no pixel.
func (r Rect) Empty() bool { return r.Width <= 0 || r.Height <= 0 }

// Window is a top-level native window.
type Window struct {
	ID       uint32 `json:"-"`
	Pid      int    `json:"pid,omitempty"`
	Title    string `json:"title"`
	Class    string `json:"class,omitempty"`
	Instance string `json:"instance,omitempty"`
	Bounds   Rect   `json:"bounds"`
	Mapped   bool   `json:"mapped"`
}

// App is a running application as the backends see it.
type App struct {
	Pid            int      `json:"pid"`
	Name           string   `json:"name"`
	Executable     string   `json:"executable"`
	Toolkit        string   `json:"toolkit"`
	ToolkitVersion string   `json:"toolkitVersion"`
	Accessible     bool     `json:"accessible"`
	BusName        string   `json:"-"`
	Windows        []Window `json:"windows"`
}

// Role is an AT-SPI role number (AtspiRole).
type Role uint32

// Well-known roles used by the core.
const (
	RoleInvalid      Role = 0
	RoleFiller       Role = 20
	RoleFrame        Role = 23
	RolePanel        Role = 39
	RolePasswordText Role = 40
	RoleScrollBar    Role = 48
	RoleUnknown      Role = 67
	RoleWindow       Role = 69
	RoleApplication  Role = 75
	RoleSection      Role = 85
)

// String returns the canonical libatspi name of the role ("push button").
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "unknown"
}

// RoleByName resolves a canonical role name (or its dashed/underscored form,
// case-insensitive) to a Role.
func RoleByName(name string) (Role, bool) {
	n := strings.ToLower(strings.NewReplacer("-", " ", "_", " ").Replace(strings.TrimSpace(name)))
	for i, rn := range roleNames {
		if rn == n {
			return Role(i), true
		}
	}
	return 0, false
}

// State is an AT-SPI state number (AtspiStateType).
type State uint

// Well-known states.
const (
	StateActive             State = 1
	StateChecked            State = 4
	StateDefunct            State = 6
	StateEditable           State = 7
	StateEnabled            State = 8
	StateExpandable         State = 9
	StateExpanded           State = 10
	StateFocusable          State = 11
	StateFocused            State = 12
	StateSelected           State = 23
	StateSensitive          State = 24
	StateShowing            State = 25
	StateVisible            State = 30
	StateManagesDescendants State = 31
)

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// StateByName resolves a lower-case state name ("focused") to a State.
func StateByName(name string) (State, bool) {
	n := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), "_", "-"))
	for i, sn := range stateNames {
		if sn == n {
			return State(i), true
		}
	}
	return 0, false
}

// StateSet is a bit set of states, as AT-SPI's two 32-bit words.
type StateSet uint64

// StateSetFromWords builds a set from GetState's word list.
func StateSetFromWords(words []uint32) StateSet {
	var s StateSet
	for i, w := range words {
		if i > 1 {
			break
		}
		s |= StateSet(w) << (32 * i)
	}
	return s
}

// Has reports whether st is in the set.
func (s StateSet) Has(st State) bool { return st < 64 && s&(1<<st) != 0 }

// Names lists the set's states by name, in numeric order.
func (s StateSet) Names() []string {
	names := []string{}
	for i := State(1); i < 64; i++ {
		if s.Has(i) {
			names = append(names, i.String())
		}
	}
	return names
}

// Node is one accessible element as a backend read it. Children is complete
// when the walk reached every child; ChildCount is what the element reported.
type Node struct {
	Key          string   `json:"key"`
	Role         Role     `json:"role"`
	Name         string   `json:"name"`
	Description  string   `json:"description,omitempty"`
	AccessibleID string   `json:"accessibleId,omitempty"`
	States       StateSet `json:"states"`
	Bounds       *Rect    `json:"bounds,omitempty"`
	Interfaces   []string `json:"interfaces,omitempty"`
	Actions      []string `json:"actions,omitempty"`
	ChildCount   int      `json:"childCount"`
	Children     []*Node  `json:"children,omitempty"`
	Redacted     bool     `json:"redacted,omitempty"`
	Err          string   `json:"error,omitempty"` // why this node's details are incomplete
}

// IsPassword reports whether the node is a password field, whose text must
// never be read and whose name is redacted.
func (n *Node) IsPassword() bool { return n.Role == RolePasswordText }

// Errors shared by backends; the core maps them to error codes.
var (
	ErrNoBus         = errors.New("accessibility bus not found")
	ErrAppNotFound   = errors.New("application not found")
	ErrNotAccessible = errors.New("application is not on the accessibility bus")
	ErrElementGone   = errors.New("element no longer exists")
	ErrNotSupported  = errors.New("not supported by this element")
	ErrTimeout       = errors.New("the application did not answer in time")
)

// TextContent is what an element's Text interface holds, bounded.
type TextContent struct {
	Text      string `json:"text"`
	Length    int    `json:"length"`
	Truncated bool   `json:"truncated,omitempty"`
	Caret     int    `json:"caret"`
}

// ValueInfo is an element's Value interface.
type ValueInfo struct {
	Current   float64 `json:"current"`
	Minimum   float64 `json:"minimum"`
	Maximum   float64 `json:"maximum"`
	Increment float64 `json:"increment"`
	Text      string  `json:"text,omitempty"`
}

// Details is one element read live, with what a tree read leaves out.
type Details struct {
	Node          Node              `json:"node"`
	ParentKey     string            `json:"parentKey,omitempty"`
	IndexInParent int               `json:"indexInParent"`
	Attributes    map[string]string `json:"attributes,omitempty"`
	Text          *TextContent      `json:"text,omitempty"`
	Value         *ValueInfo        `json:"value,omitempty"`
}

// TreeStats describes how a tree was read: strategy, round trips, and
// whether the result is partial (deadline, node limit) and why.
type TreeStats struct {
	Strategy   string        `json:"strategy"`
	CacheItems int           `json:"cacheItems"`
	CacheUsed  int           `json:"cacheUsed"`
	Calls      int           `json:"calls"`
	Nodes      int           `json:"nodes"`
	Truncated  bool          `json:"truncated"`
	Reason     string        `json:"reason,omitempty"`
	Elapsed    time.Duration `json:"-"`
}

// TreeOptions shape a tree read.
type TreeOptions struct {
	MaxNodes int  // walk limit; 0 means the backend's default
	Actions  bool // also read action names (costs a call per actionable element)
}

// Desktop is what the core needs of a platform: applications with their
// windows, their accessible trees and single elements. Implementations
// bound every call by the context's deadline.
type Desktop interface {
	Apps(ctx context.Context) ([]App, error)
	Tree(ctx context.Context, app App, opts TreeOptions) (*Node, TreeStats, error)
	Element(ctx context.Context, app App, key string) (*Details, error)
	Close() error
}

// Watcher is implemented by desktops that report changes as they happen:
// the channel receives a value (coalesced) whenever the application emits
// an accessibility event; stop ends the watch.
type Watcher interface {
	Watch(ctx context.Context, app App) (changes <-chan struct{}, stop func(), err error)
}

// Actor is what acting on applications needs of a platform: semantic
// actions on elements first, real input as the fallback. Implementations
// bound every call by the context's deadline and serialize input.
type Actor interface {
	// DoAction runs the element's first action named in names.
	DoAction(ctx context.Context, app App, key string, names ...string) (used string, err error)
	// SetText replaces an editable element's text and reads it back.
	SetText(ctx context.Context, app App, key, text string) (effective, method string, err error)
	// SetValue sets a Value element and reads it back.
	SetValue(ctx context.Context, app App, key string, v float64) (float64, error)
	GrabFocus(ctx context.Context, app App, key string) error
	ScrollTo(ctx context.Context, app App, key string) error
	// Select changes a selectable child's selection through its container.
	Select(ctx context.Context, app App, containerKey string, index int, selected bool, clear bool) error
	IsSelected(ctx context.Context, app App, containerKey string, index int) (bool, error)
	SelectText(ctx context.Context, app App, key string, start, end int) error

	// Window returns the native window showing the element.
	Window(ctx context.Context, app App, key string) (Window, error)
	// Activate raises and focuses a window and verifies it became active.
	Activate(ctx context.Context, win Window) error
	ActiveWindow(ctx context.Context) (uint32, error)
	// TopmostAt is the top-level window on top at a screen point.
	TopmostAt(ctx context.Context, x, y int) (uint32, error)
	// WindowPid is the process behind a window (0 when unknown).
	WindowPid(ctx context.Context, id uint32) (int, error)
	Click(ctx context.Context, x, y, button, count int) error
	Wheel(ctx context.Context, x, y, dx, dy int) error
	// ValidateChord parses a chord without sending anything.
	ValidateChord(chord string) error
	KeyChord(ctx context.Context, chord string) error
	TypeText(ctx context.Context, text string) (int, error)
	WindowAction(ctx context.Context, win Window, action string) error
	Screen() Rect
}

// Errors of acting.
var (
	ErrNoEffect        = errors.New("the call succeeded but changed nothing")
	ErrNotActivated    = errors.New("the window could not be brought to the front")
	ErrNoWindowManager = errors.New("no window manager is running")
	ErrOffscreen       = errors.New("the point is outside the screen")
	ErrInvalidKeys     = errors.New("invalid key chord")
)
