package core

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// Requests. Each read a front end offers (a tree, a find, one element's
// properties) has one request type here, validated here and carried out
// here through a session: the MCP tools and the CLI build the same request
// from their arguments, so both refuse the same input with the same errors
// and read through the same identity checks (session.go).
//
// The one difference between the front ends is where a ref comes from. An
// MCP agent sends back refs its session handed out, resolved in the
// session's earlier read and then found again by key in the fresh one. A
// CLI command is a process of its own: its refs come from an earlier
// process's read, so with Fresh set a ref names the element at that
// position in the tree this call reads (the same element only while the UI
// is unchanged), and a durable key, which names one element for good, is
// accepted where a ref is (PropsRequest).

// Deadlines of one read (timeoutMs).
const (
	DefaultTimeoutMs = 10000
	MaxTimeoutMs     = 120000
)

// Formats of a tree read.
const (
	FormatOutline = "outline"
	FormatJSON    = "json"
)

// Timeout checks an optional timeoutMs (nil: DefaultTimeoutMs) and returns
// it as a duration.
func Timeout(ms *int) (time.Duration, error) {
	v := DefaultTimeoutMs
	if ms != nil {
		v = *ms
	}
	if v <= 0 || v > MaxTimeoutMs {
		return 0, Errorf(CodeInvalidArgument, "timeoutMs must be between 1 and %d, not %d", MaxTimeoutMs, v)
	}
	return time.Duration(v) * time.Millisecond, nil
}

// TreeRequest is one read of an application's tree: get_a11y_tree and
// 'uiscope tree'. Optional numbers are pointers: nil means the default,
// and a given value is checked, never replaced.
type TreeRequest struct {
	// Element is the ref of the element to start at; "" for the app root.
	Element string
	// Depth is how many levels below the start element to show; nil for
	// all, 0 for the element alone.
	Depth *int
	// View is raw (the default when empty), control or content.
	View string
	// Format is outline (the default when empty) or json.
	Format string
	// MaxNodes bounds the elements shown: 1 to MaxMaxNodes; nil for
	// DefaultMaxNodes.
	MaxNodes *int
	// MaxBytes bounds the answer's size in bytes of its JSON text (the
	// tree and, answerReserve of it, the answer's other fields): MinMaxBytes
	// to MaxMaxBytes; nil for DefaultMaxBytes.
	MaxBytes *int
	// TimeoutMs is the deadline for reading the tree; nil for
	// DefaultTimeoutMs.
	TimeoutMs *int
	// Fresh resolves Element in the tree this call reads (see above).
	Fresh bool
}

// Validate checks the request and fills in the empty Format and View.
// Errors are invalidArgument, or malformedRef for an Element that is no
// ref, and say what would be accepted.
func (r *TreeRequest) Validate() error {
	if r.Format == "" {
		r.Format = FormatOutline
	}
	if r.Format != FormatOutline && r.Format != FormatJSON {
		return Errorf(CodeInvalidArgument, "format must be \"outline\" or \"json\", not %s", Quote(r.Format))
	}
	if r.View == "" {
		r.View = ViewRaw
	}
	if err := ValidateView(r.View); err != nil {
		return AsError(err)
	}
	if r.Depth != nil && *r.Depth < 0 {
		return Errorf(CodeInvalidArgument, "depth must be 0 or more (omit it for the whole tree), not %d", *r.Depth)
	}
	if r.MaxNodes != nil && (*r.MaxNodes <= 0 || *r.MaxNodes > MaxMaxNodes) {
		return Errorf(CodeInvalidArgument, "maxNodes must be between 1 and %d, not %d", MaxMaxNodes, *r.MaxNodes)
	}
	if r.MaxBytes != nil && (*r.MaxBytes < MinMaxBytes || *r.MaxBytes > MaxMaxBytes) {
		return Errorf(CodeInvalidArgument, "maxBytes must be between %d and %d, not %d", MinMaxBytes, MaxMaxBytes, *r.MaxBytes)
	}
	if _, err := Timeout(r.TimeoutMs); err != nil {
		return err
	}
	return validRef(r.Element)
}

// validRef checks an optional ref's form.
func validRef(ref string) error {
	if ref == "" {
		return nil
	}
	if _, err := ParseRef(ref); err != nil {
		return AsError(err)
	}
	return nil
}

// viewOptions is the render the request asks for, at position scope.
func (r *TreeRequest) viewOptions(scope int) ViewOptions {
	opts := ViewOptions{View: r.View, Depth: -1, Scope: scope}
	if r.Depth != nil {
		opts.Depth = *r.Depth
	}
	if r.MaxNodes != nil {
		opts.MaxNodes = *r.MaxNodes
	}
	opts.MaxBytes = DefaultMaxBytes - answerReserve
	if r.MaxBytes != nil {
		opts.MaxBytes = *r.MaxBytes - answerReserve
	}
	return opts
}

// TreeRead is a tree read and shaped as a TreeRequest asked.
type TreeRead struct {
	Tree  *Tree
	Stats platform.TreeStats
	// Outline (format outline) or Root (format json) is the output.
	Outline string
	Root    *Element
	Render  RenderStats
	// Format and MaxBytes are the request's, defaults filled in.
	Format   string
	MaxBytes int
}

// ReadTree reads the session's application's tree afresh (it becomes the
// session's last read) and shapes it as req asks. req must have passed
// Validate.
func (m *Sessions) ReadTree(ctx context.Context, s *Session, req TreeRequest) (*TreeRead, error) {
	if s.Mode == ModeVisual {
		return nil, Errorf(CodeWrongTree, "session %s reads the visual (native window) tree: use get_visual_tree, or connect with mode \"a11y\" for the accessibility tree", s.ID)
	}
	limit, err := Timeout(req.TimeoutMs)
	if err != nil {
		return nil, err
	}
	t, st, scope, err := m.fetchAt(ctx, s, req.Element, req.Fresh, limit, platform.TreeOptions{Actions: req.Format == FormatJSON})
	if err != nil {
		return nil, err
	}
	out := &TreeRead{Tree: t, Stats: st, Format: req.Format, MaxBytes: DefaultMaxBytes}
	if req.MaxBytes != nil {
		out.MaxBytes = *req.MaxBytes
	}
	opts := req.viewOptions(scope)
	if req.Format == FormatOutline {
		out.Outline, out.Render, err = t.Outline(opts)
	} else {
		out.Root, out.Render, err = t.Render(opts)
	}
	if err != nil {
		return nil, AsError(err)
	}
	return out, nil
}

// fetchAt reads the tree and finds the element ref names in it, as a
// position (0, the root, when ref is empty). Without fresh, ref is resolved
// in the session's earlier read before this one and found again by its key.
func (m *Sessions) fetchAt(ctx context.Context, s *Session, ref string, fresh bool, limit time.Duration, opts platform.TreeOptions) (*Tree, platform.TreeStats, int, error) {
	var key string
	if ref != "" && !fresh {
		n, _, _, err := s.Resolve(ref)
		if err != nil {
			return nil, platform.TreeStats{}, 0, err
		}
		key = n.Key
	}
	t, st, err := m.Fetch(ctx, s, limit, opts)
	if err != nil {
		return nil, st, 0, err
	}
	switch {
	case ref == "":
		return t, st, 0, nil
	case fresh:
		_, pos, err := t.LookupString(ref)
		if err != nil {
			return nil, st, 0, AsError(err)
		}
		return t, st, pos, nil
	}
	pos, ok := t.ByKey(key)
	if key == "" || !ok {
		return nil, st, 0, Errorf(CodeElementGone, "element %s is no longer in the tree (the UI changed): read the tree again without it, then use the new refs", Quote(ref))
	}
	return t, st, pos, nil
}

// FindRequest is one search of an application's tree: find_elements and
// 'uiscope find'.
type FindRequest struct {
	// Query holds the criteria and Limit; its Within is set from Within.
	Query Query
	// Within is the ref of the subtree to search; "" for the whole tree.
	Within string
	// TimeoutMs is the deadline for reading the tree; nil for
	// DefaultTimeoutMs.
	TimeoutMs *int
	// SkipActions leaves action names out of the read (a call per
	// actionable element saved) for a caller that does not show them.
	SkipActions bool
	// Fresh resolves Within in the tree this call reads (see above).
	Fresh bool
}

// Validate checks the request: the query's criteria (Query.Compile), the
// deadline and the form of Within.
func (r *FindRequest) Validate() error {
	if _, err := r.Query.Compile(); err != nil {
		return AsError(err)
	}
	if _, err := Timeout(r.TimeoutMs); err != nil {
		return err
	}
	return validRef(r.Within)
}

// FindRead is the outcome of a FindRequest.
type FindRead struct {
	Tree     *Tree
	Stats    platform.TreeStats
	Elements []*Element // never nil
	Find     FindStats
}

// Find reads the session's application's tree afresh (it becomes the
// session's last read) and searches it. req must have passed Validate.
func (m *Sessions) Find(ctx context.Context, s *Session, req FindRequest) (*FindRead, error) {
	limit, err := Timeout(req.TimeoutMs)
	if err != nil {
		return nil, err
	}
	t, st, within, err := m.fetchAt(ctx, s, req.Within, req.Fresh, limit, platform.TreeOptions{Actions: !req.SkipActions})
	if err != nil {
		return nil, err
	}
	q := req.Query
	q.Within = within
	els, fs, err := t.Find(q)
	if err != nil {
		return nil, AsError(err)
	}
	if els == nil {
		els = []*Element{}
	}
	return &FindRead{Tree: t, Stats: st, Elements: els, Find: fs}, nil
}

// PropsRequest is one live read of one element: get_element_properties and
// 'uiscope props'.
type PropsRequest struct {
	// Element is a ref; with Fresh also a durable key (a "backend:..."
	// string from a tree read's key field).
	Element string
	// Names selects properties (ref is always there); empty for all.
	Names []string
	// TimeoutMs bounds each read (with Fresh, the tree read, then the
	// element's); nil for DefaultTimeoutMs.
	TimeoutMs *int
	// Fresh resolves Element in a tree this call reads (see above).
	Fresh bool
}

// Validate checks the request: an element, known property names, the
// deadline.
func (r *PropsRequest) Validate() error {
	if r.Element == "" {
		return missingElement(r.Fresh)
	}
	for _, n := range r.Names {
		if !slices.Contains(propertyOrder, n) {
			return Errorf(CodeInvalidArgument, "unknown property %s; known: %s", Quote(n), strings.Join(propertyOrder, ", "))
		}
	}
	if _, err := Timeout(r.TimeoutMs); err != nil {
		return err
	}
	return validElement(r.Element, r.Fresh)
}

// missingElement is the error for a request without its element.
func missingElement(fresh bool) error {
	if fresh {
		return Errorf(CodeInvalidArgument, "an element is required: a ref like a11y:e12 from 'uiscope tree' or 'uiscope find', or the element's key from their JSON")
	}
	return Errorf(CodeInvalidArgument, "element is required: a ref like a11y:e12 from get_a11y_tree or find_elements")
}

// validElement checks the form of the element a request names: a ref, or
// with fresh also a durable key.
func validElement(element string, fresh bool) error {
	if fresh && isKey(element) {
		return nil
	}
	return validRef(element)
}

// isKey tells a durable key from a ref: a key is "backend:..." with a
// prefix that is no tree kind (refs are "a11y:eN", "visual:eN" or "eN").
func isKey(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 0 && s[:i] != KindA11y && s[:i] != KindVisual
}

// PropsRead is one element's properties, read live.
type PropsRead struct {
	Ref        string         // the element's ref in the session's last read
	Key        string         // its durable key
	Properties map[string]any // as Properties shapes them, narrowed to Names
}

// Properties reads one element live. Without Fresh the element is the one
// the ref names in the session's last read, and no tree is read; with it
// the tree is read first (it becomes the session's last read) and the ref
// or key is found in it. req must have passed Validate.
func (m *Sessions) Properties(ctx context.Context, s *Session, req PropsRequest) (*PropsRead, error) {
	limit, err := Timeout(req.TimeoutMs)
	if err != nil {
		return nil, err
	}
	key, shown, err := m.elementKey(ctx, s, req.Element, req.Fresh, limit)
	if err != nil {
		return nil, err
	}
	ectx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	d, err := m.Element(ectx, s, key)
	if err != nil {
		return nil, err
	}
	props, err := SelectProperties(Properties(shown, d), req.Names)
	if err != nil {
		return nil, AsError(err)
	}
	return &PropsRead{Ref: shown, Key: key, Properties: props}, nil
}

// elementKey resolves the element a request names (a ref, or with fresh
// also a durable key: see above) to its durable key and the ref it is
// shown as. Without fresh no tree is read; with it the tree is read within
// limit and becomes the session's last read.
func (m *Sessions) elementKey(ctx context.Context, s *Session, element string, fresh bool, limit time.Duration) (key, shown string, err error) {
	switch {
	case !fresh:
		n, id, t, err := s.Resolve(element)
		if err != nil {
			return "", "", err
		}
		return n.Key, t.RefString(id), nil
	case isKey(element):
		t, _, err := m.Fetch(ctx, s, limit, platform.TreeOptions{})
		if err != nil {
			return "", "", err
		}
		pos, ok := t.ByKey(element)
		if !ok {
			return "", "", Errorf(CodeElementGone, "no element %s in %s's tree: it is gone, or belongs to another application", Quote(element), s.App.Name)
		}
		return element, t.RefString(pos), nil
	}
	t, _, pos, err := m.fetchAt(ctx, s, element, true, limit, platform.TreeOptions{})
	if err != nil {
		return "", "", err
	}
	n, _ := t.Node(pos)
	return n.Key, t.RefString(pos), nil
}
