// Package platform is the seam between the core and a desktop backend: the
// types a backend returns (applications, windows, accessible nodes, their
// roles and states) and the small interfaces it implements (seam.go),
// composed into one Desktop. It knows nothing of MCP and holds no OS code.
//
// The vocabulary is AT-SPI's: Role and State are AtspiRole and
// AtspiStateType numbers with libatspi's names (names.go). Other backends
// (UI Automation, AX) map their roles and states onto it, so that core,
// the MCP tools and agents see one set of words whatever the platform.
// docs/platform.md describes the seam and how a backend plugs in.
//
// Backends live in subpackages:
//   - atspi: accessibility over D-Bus;
//   - x11: windows, input, captures;
//   - linux: the two and /proc joined into one Desktop;
//   - fake: an in-memory desktop for tests;
//   - unsupported: every part answering notSupported, for systems without
//     a backend.
package platform

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/quote"
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

// MaxCSDBorder bounds the invisible border (a shadow) a client-side
// decorated window may draw around its content: GTK 4 without a
// compositor draws 5 px; shadows of composited windows are a few tens.
const MaxCSDBorder = 64

// Borders reports whether r is win's box with an invisible client-side
// border of at most MaxCSDBorder around it: as deep left as right, and in
// all as deep down as across, its top part anywhere in that (a shadow
// cast downwards is deeper below than above). A box that is win's exactly
// has no border.
func (r Rect) Borders(win Rect) bool {
	m, top := win.X-r.X, win.Y-r.Y
	return m > 0 && m <= MaxCSDBorder && top >= 0 && top <= 2*m && r.Width-win.Width == 2*m && r.Height-win.Height == 2*m
}

// Empty reports whether r covers no pixel.
func (r Rect) Empty() bool { return r.Width <= 0 || r.Height <= 0 }

// Intersect is the part of r inside o; the zero Rect when they do not
// overlap.
func (r Rect) Intersect(o Rect) Rect {
	x0, y0 := max(r.X, o.X), max(r.Y, o.Y)
	x1, y1 := min(r.X+r.Width, o.X+o.Width), min(r.Y+r.Height, o.Y+o.Height)
	if x1 <= x0 || y1 <= y0 {
		return Rect{}
	}
	return Rect{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}
}

// Window is a top-level native window.
type Window struct {
	ID       WindowID `json:"-"`
	Pid      int      `json:"pid,omitempty"`
	Title    string   `json:"title"`
	Class    string   `json:"class,omitempty"`
	Instance string   `json:"instance,omitempty"`
	Bounds   Rect     `json:"bounds"`
	Mapped   bool     `json:"mapped"`
	// Popup marks a window no window manager manages (an X
	// override-redirect window: a menu, a tooltip, a GTK 4 popover),
	// which cannot be activated.
	Popup bool `json:"popup,omitempty"`
	// BoundsUnknown: the window's place is not known (a compositor that
	// lists windows without geometry); Bounds is zero and means nothing.
	BoundsUnknown bool `json:"boundsUnknown,omitempty"`
	// States are what such a compositor says of the window.
	States WindowStates `json:"-"`
}

// WindowStates are the states a compositor that lists windows without
// geometry reports (zwlr_foreign_toplevel_handle_v1's).
type WindowStates uint8

// The window states.
const (
	WindowActive WindowStates = 1 << iota
	WindowMaximized
	WindowMinimized
	WindowFullscreen
)

// Names lists the states set, as the API shows them.
func (s WindowStates) Names() []string {
	var out []string
	for i, n := range []string{"active", "maximized", "minimized", "fullscreen"} {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// WindowID names a native top-level window: an X window id on Linux, a
// sway container (SwayWindowID), what the platform uses elsewhere (an
// HWND, a CGWindowID), zero for none. The API shows it as "0x1a00003" or
// "sway:42" (String) and reads it back with ParseWindowID.
type WindowID uint64

// swayHigh is the high 32 bits of a WindowID that names a sway container:
// X window ids (29 bits) never reach them.
const swayHigh = 0x7377 // "sw"

// SwayWindowID is the id of sway's container con (0 when con is out of
// range: sway's ids are small positive integers).
func SwayWindowID(con int64) WindowID {
	if con <= 0 || con > math.MaxUint32 {
		return 0
	}
	return WindowID(swayHigh<<32 | uint64(con))
}

// SwayCon returns the sway container id the window id names.
func (id WindowID) SwayCon() (int64, bool) {
	if uint64(id)>>32 != swayHigh || uint32(id) == 0 {
		return 0, false
	}
	return int64(uint32(id)), true
}

// toplevelHigh is the high 32 bits of a WindowID that names a window a
// Wayland compositor lists (zwlr_foreign_toplevel_management_v1).
const toplevelHigh = 0x746c // "tl"

// ToplevelWindowID is the id of a compositor's toplevel handle (a
// protocol object id, which names the window for as long as the
// connection that listed it lasts).
func ToplevelWindowID(handle uint32) WindowID {
	if handle == 0 {
		return 0
	}
	return WindowID(toplevelHigh<<32 | uint64(handle))
}

// Toplevel returns the toplevel handle the window id names.
func (id WindowID) Toplevel() (uint32, bool) {
	if uint64(id)>>32 != toplevelHigh || uint32(id) == 0 {
		return 0, false
	}
	return uint32(id), true
}

// String formats the id as the API shows it.
func (id WindowID) String() string {
	if con, ok := id.SwayCon(); ok {
		return "sway:" + strconv.FormatInt(con, 10)
	}
	if h, ok := id.Toplevel(); ok {
		return "toplevel:" + strconv.FormatUint(uint64(h), 10)
	}
	return fmt.Sprintf("0x%x", uint64(id))
}

// ParseWindowID reads a window id as String writes it ("0x1a00003",
// "sway:42"), or in decimal.
func ParseWindowID(s string) (WindowID, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "sway:"); ok {
		con, err := strconv.ParseInt(rest, 10, 64)
		if id := SwayWindowID(con); err == nil && id != 0 {
			return id, nil
		}
		return 0, fmt.Errorf("window %s is not a sway window id (like sway:42)", quote.Short(s))
	}
	if rest, ok := strings.CutPrefix(s, "toplevel:"); ok {
		h, err := strconv.ParseUint(rest, 10, 32)
		if id := ToplevelWindowID(uint32(h)); err == nil && id != 0 {
			return id, nil
		}
		return 0, fmt.Errorf("window %s is not a toplevel window id (like toplevel:4278190080)", quote.Short(s))
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("window %s is not a window id (0x1a00003, sway:42)", quote.Short(s))
	}
	return WindowID(v), nil
}

// App is a running application as the backends see it. BusName is the
// backend's handle on the application's accessibility connection (a D-Bus
// unique name for AT-SPI); the core only passes it back.
type App struct {
	Pid            int      `json:"pid"`
	Name           string   `json:"name"`
	Executable     string   `json:"executable"`
	Toolkit        string   `json:"toolkit"`
	ToolkitVersion string   `json:"toolkitVersion"`
	Accessible     bool     `json:"accessible"`
	BusName        string   `json:"-"`
	Windows        []Window `json:"windows"`
	// WindowsUnknown says why an app listed without windows may have some
	// the desktop cannot see (a Wayland compositor without sway's IPC);
	// "" when its window list is whole.
	WindowsUnknown string `json:"windowsUnknown,omitempty"`
}

// OptionActionIgnored reports an application whose options of a web
// page's select answer their own action and change nothing: Gecko
// (Firefox's engine, AT-SPI ToolkitName "Gecko"). Such an option is chosen
// with the keyboard on its combo box.
func (a App) OptionActionIgnored() bool { return strings.EqualFold(a.Toolkit, "gecko") }

// Role is an AT-SPI role number (AtspiRole), the shared vocabulary every
// backend maps its roles onto (docs/platform.md).
type Role uint32

// Well-known roles: those the core and the backends compare with (names.go
// has every role's name).
const (
	RoleInvalid       Role = 0
	RoleAlert         Role = 2
	RoleCheckBox      Role = 7
	RoleCheckMenuItem Role = 8
	RoleComboBox      Role = 11
	RoleDialog        Role = 16
	RoleFileChooser   Role = 19
	RoleFiller        Role = 20
	RoleFrame         Role = 23
	RoleList          Role = 31
	RoleMenu          Role = 33
	RoleMenuItem      Role = 35
	RolePanel         Role = 39
	RolePasswordText  Role = 40
	RoleProgressBar   Role = 42
	RoleRadioButton   Role = 44
	RoleRadioMenuItem Role = 45
	RoleScrollBar     Role = 48
	RoleTable         Role = 55
	RoleToggleButton  Role = 62
	RoleUnknown       Role = 67
	RoleWindow        Role = 69
	RoleApplication   Role = 75
	RoleDocumentFrame Role = 82
	RoleSection       Role = 85
	RoleDocumentWeb   Role = 95
	RoleLevelBar      Role = 103
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

// State is an AT-SPI state number (AtspiStateType), the shared vocabulary
// every backend maps its states onto (docs/platform.md).
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
	StateSelectable         State = 22
	StateSelected           State = 23
	StateSensitive          State = 24
	StateShowing            State = 25
	StateVisible            State = 30
	StateManagesDescendants State = 31
	StateCheckable          State = 41
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
	// BoundsUnknown: the toolkit gave the element window-relative extents
	// and the native window they count from could not be matched
	// (ErrWindowUnknown), so Bounds is nil though the element may well be
	// on screen.
	BoundsUnknown bool     `json:"boundsUnknown,omitempty"`
	Interfaces    []string `json:"interfaces,omitempty"`
	Actions       []string `json:"actions,omitempty"`
	ChildCount    int      `json:"childCount"`
	Children      []*Node  `json:"children,omitempty"`
	Redacted      bool     `json:"redacted,omitempty"`
	Err           string   `json:"error,omitempty"` // why this node's details are incomplete
	// Value is what a control holds (the text of an entry or a cell, a
	// slider's number, a combo box's chosen item), at most MaxValueRunes
	// runes, ValueTruncated when cut; nil when it holds nothing readable.
	// Never set on a redacted node.
	Value          *string `json:"value,omitempty"`
	ValueTruncated bool    `json:"valueTruncated,omitempty"`
	// ChildrenPartial marks a container whose children are virtual (it
	// manages its descendants, or has too many to walk): Children holds
	// only those on screen, in order, and ChildrenRange says which.
	ChildrenPartial bool        `json:"childrenPartial,omitempty"`
	ChildrenRange   *ChildRange `json:"childrenRange,omitempty"`
}

// MaxValueRunes bounds a node's Value.
const MaxValueRunes = 200

// ChildRange says which children a partial container holds: for a table,
// the rows and columns shown (first and last, inclusive) and, where the
// table says, how many it has; otherwise the index of the first child held
// and how many. A table with nothing on screen has neither rows nor
// columns. MoreBefore and MoreAfter: the application itself holds only the
// part on screen as children (a document's paragraphs), and its content
// goes on before or after them.
type ChildRange struct {
	Rows        *[2]int `json:"rows,omitempty"`
	Columns     *[2]int `json:"columns,omitempty"`
	RowCount    *int    `json:"rowCount,omitempty"`
	ColumnCount *int    `json:"columnCount,omitempty"`
	First       *int    `json:"first,omitempty"`
	Count       *int    `json:"count,omitempty"`
	MoreBefore  bool    `json:"moreBefore,omitempty"`
	MoreAfter   bool    `json:"moreAfter,omitempty"`
}

// IsPassword reports whether the node is a password field, whose text must
// never be read and whose name is redacted.
func (n *Node) IsPassword() bool { return n.Role == RolePasswordText }

// Secret reports whether the node's text must never be read, matched or
// quoted: the backend redacted it, or it is a password field (whatever the
// backend said).
func (n *Node) Secret() bool { return n.Redacted || n.IsPassword() }

// Errors shared by backends; the core maps them to error codes.
var (
	ErrNoBus         = errors.New("accessibility bus not found")
	ErrAppNotFound   = errors.New("application not found")
	ErrNotAccessible = errors.New("application is not on the accessibility bus")
	ErrElementGone   = errors.New("element no longer exists")
	ErrNotSupported  = errors.New("not supported by this element")
	ErrTimeout       = errors.New("the application did not answer in time")
	ErrProcessGone   = errors.New("process not running")
	// ErrWindowUnknown: the native window that shows an element could
	// not be told: no window of the application fits its top level, or
	// several do alike. Its screen position is then unknown.
	ErrWindowUnknown = errors.New("the element's window could not be matched to a native window")
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

// Errors of acting.
var (
	ErrNoEffect        = errors.New("the call succeeded but changed nothing")
	ErrNotActivated    = errors.New("the window could not be brought to the front")
	ErrNoWindowManager = errors.New("no window manager is running")
	ErrOffscreen       = errors.New("the point is outside the screen")
	ErrInvalidKeys     = errors.New("invalid key chord")
	// ErrOutOfRange: an argument outside what the element has (a value
	// past its maximum, a text range past its end): the caller's to fix.
	ErrOutOfRange = errors.New("value out of range")
)
