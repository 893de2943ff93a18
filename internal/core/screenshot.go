package core

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/uiscope/uiscope/internal/atomicfile"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// CodeWindowHidden: the window to capture is minimized or unmapped.
const CodeWindowHidden = "windowHidden"

// MaxScreenshotWidth bounds maxWidth; MinScreenshotWidth keeps labels
// legible.
const (
	MinScreenshotWidth = 64
	MaxScreenshotWidth = 10000
)

// ScreenshotRequest is one screenshot: the screenshot tool and 'uiscope
// screenshot'.
type ScreenshotRequest struct {
	// Element is the ref of the element to capture alone, in the window
	// that shows it (a dialog, a popup menu); "" for a window.
	Element string
	// Window is the id of the application's window to capture ("0x…"),
	// a dialog or a popup; "" (and no Element) for the session's window.
	Window string
	// Path, when set, is where the PNG is also written: an absolute path
	// ending in .png, in a directory that exists. Writing a file needs
	// the interact capability (Sessions.Caps), and an existing file is never
	// replaced.
	Path string
	// Annotate boxes and numbers the controls on the image; nil means true.
	Annotate *bool
	// MaxWidth scales the image down to at most this many pixels wide;
	// nil for the window's own size.
	MaxWidth *int
	// TimeoutMs bounds the tree read and the capture; nil for
	// DefaultTimeoutMs.
	TimeoutMs *int
	// Fresh resolves Element in the tree this call reads (TreeRequest).
	Fresh bool
}

func (r *ScreenshotRequest) annotate() bool { return r.Annotate == nil || *r.Annotate }

// Validate checks the request. Path is checked for its form here, and for
// the right to write in Sessions.Screenshot.
func (r *ScreenshotRequest) Validate() error {
	if r.MaxWidth != nil && (*r.MaxWidth < MinScreenshotWidth || *r.MaxWidth > MaxScreenshotWidth) {
		return Errorf(CodeInvalidArgument, "maxWidth must be between %d and %d pixels, not %d", MinScreenshotWidth, MaxScreenshotWidth, *r.MaxWidth)
	}
	if _, err := Timeout(r.TimeoutMs); err != nil {
		return err
	}
	if r.Path != "" {
		if !filepath.IsAbs(r.Path) || !strings.EqualFold(filepath.Ext(r.Path), ".png") {
			return Errorf(CodeInvalidArgument, "path must be an absolute file name ending in .png, not %s", Quote(r.Path))
		}
		if strings.ContainsFunc(r.Path, unicode.IsControl) {
			return Errorf(CodeInvalidArgument, "path must not hold control characters (a newline, a tab, an escape), not %s", Quote(r.Path))
		}
	}
	if r.Window != "" {
		if r.Element != "" {
			return Errorf(CodeInvalidArgument, "give element or window, not both: an element is captured in the window that shows it")
		}
		if _, err := platform.ParseWindowID(r.Window); err != nil {
			return Errorf(CodeInvalidArgument, "%v", err)
		}
	}
	return validRef(r.Element)
}

// Screenshot is a captured, redacted and (unless asked otherwise)
// annotated image of a window or element, with what describes it.
type Screenshot struct {
	PNG []byte `json:"-"`
	// Window is the captured window; Bounds the part of the screen the
	// image shows (the window, or the element within it).
	Window  string        `json:"window"`
	Element string        `json:"element,omitempty"`
	Bounds  platform.Rect `json:"bounds"`
	Width   int           `json:"width"`
	Height  int           `json:"height"`
	// Scale is image pixels per screen pixel: 1, or less with maxWidth.
	Scale float64 `json:"scale"`
	// IdsFrom is the tree whose ids label the image: "a11y", or "visual"
	// in a visual session (window ids).
	IdsFrom string `json:"idsFrom"`
	// Annotations are the marked elements, numbered from 1, boxes in
	// image pixels.
	Annotations        []Annotation `json:"annotations"`
	AnnotationsOmitted int          `json:"annotationsOmitted,omitempty"`
	// Redacted counts the fields covered by a grey bar.
	Redacted int    `json:"redacted"`
	Bytes    int    `json:"bytes"`
	Path     string `json:"path,omitempty"`
	Note     string `json:"note,omitempty"`
}

// Screenshot captures the session's window (or another of the app's
// windows, or one element in the window that shows it), covers
// every redacted field with a grey bar, scales it down to MaxWidth and
// numbers its controls (annotate). The tree is read afresh (it becomes
// the session's last read, so the marks' refs are refs the session resolves),
// since without it redacted fields could not be found: an incomplete read
// fails rather than risk an uncovered password. req is validated first,
// then the session's identity checked (Get).
func (m *Sessions) Screenshot(ctx context.Context, sessionID string, req ScreenshotRequest) (*Screenshot, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if req.Path != "" {
		if err := m.inputAllowed(); err != nil {
			return nil, Errorf(CodeInputNotAllowed, "writing the screenshot to a file (path) is not allowed: the server runs without --allow-input; omit path to get the image inline")
		}
		if err := m.consented(s, security.Interact); err != nil {
			return nil, err
		}
		if err := m.inScreenshotDir(req.Path); err != nil {
			return nil, err
		}
	}
	pix := m.desk.Pixels
	if pix == nil {
		return nil, Errorf(CodeNotSupported, "this platform cannot capture windows")
	}
	limit, err := Timeout(req.TimeoutMs)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	t, st, pos, err := m.fetchAt(ctx, s, req.Element, req.Fresh, limit, platform.TreeOptions{MaxNodes: MaxMaxNodes, Actions: req.annotate()})
	if err != nil {
		e := AsError(err)
		if e.Code == CodeTimeout {
			e = &Error{Code: CodeTimeout, Retryable: true, Disposition: DispositionTransient, Err: err, Msg: e.Msg +
				"; without the tree its redacted fields cannot be found, so no image is returned"}
		}
		return nil, e
	}
	if st.Truncated {
		return nil, &Error{Code: CodeTimeout, Retryable: true, Disposition: DispositionTransient, Msg: fmt.Sprintf(
			"the tree read was cut short (%s), so some redacted fields might not be found: no image is returned; try again with a larger timeoutMs", st.Reason)}
	}
	target, err := m.shotWindow(ctx, s, t, pos, req.Element, req.Window)
	if err != nil {
		return nil, err
	}
	win := target.win
	img, at, err := pix.CaptureWindow(ctx, win)
	if err != nil {
		return nil, captureError(err, win)
	}
	shot := &Screenshot{Window: win.ID.String(), IdsFrom: t.Kind(), Bounds: at, Annotations: []Annotation{}}
	scope := 0
	if req.Element != "" {
		scope = pos
		n, _ := t.Node(pos)
		if n.Bounds == nil && n.BoundsUnknown {
			return nil, AsError(fmt.Errorf("%s: %w", req.Element, platform.ErrWindowUnknown))
		}
		if n.Bounds == nil {
			return nil, Errorf(CodeNotSupported, "%s has no bounds, so it cannot be captured alone; capture the window (no element)", req.Element)
		}
		crop := n.Bounds.Intersect(at)
		if crop.Empty() {
			return nil, Errorf(CodeOffscreen, "%s (%s) lies outside its window's visible area (scrolled away or hidden); scroll it into view, or capture the window", req.Element, n.Role)
		}
		img = cropImage(img, crop.X-at.X, crop.Y-at.Y, crop.Width, crop.Height)
		shot.Element, shot.Bounds = t.RefString(pos), crop
	}
	redact := t
	if s.Mode == ModeVisual {
		// The window tree knows nothing of passwords: the fields that
		// hide their text are found in the accessibility tree, when the
		// app has one.
		if redact, err = m.redactionTree(ctx, s, limit); err != nil {
			return nil, err
		}
		if redact == nil {
			shot.Note = "this application has no accessibility tree, so fields that hide their text cannot be found: none is covered"
		}
	}
	var bars []platform.Rect
	if redact != nil {
		if bars, err = redactedBars(redact, shot.Bounds); err != nil {
			return nil, err
		}
	}
	coverBars(img, bars, shot.Bounds, 1)
	shot.Redacted = len(bars)
	shot.Scale = 1
	if req.MaxWidth != nil && img.Rect.Dx() > *req.MaxWidth {
		img, shot.Scale = scaleDown(img, *req.MaxWidth)
		// Cover again on the scaled image, rounded outwards: resampling
		// must not leave a half-grey edge that still shows something.
		coverBars(img, bars, shot.Bounds, shot.Scale)
	}
	shot.Width, shot.Height = img.Rect.Dx(), img.Rect.Dy()
	if req.annotate() {
		shot.Annotations, shot.AnnotationsOmitted = annotate(img, t, scope, shot.Bounds, shot.Scale, target.shows)
	}
	data, err := encodePNG(img)
	if err != nil {
		return nil, AsError(err)
	}
	shot.PNG, shot.Bytes = data, len(data)
	if req.Path != "" {
		if err := WriteFileAtomic(req.Path, shot.PNG, false, 0o600); err != nil {
			return nil, err
		}
		shot.Path = req.Path
	}
	return shot, nil
}

// inScreenshotDir refuses a path outside ScreenshotDir. The directory the
// file goes in is compared with its symbolic links resolved, so that a
// link inside ScreenshotDir does not lead out of it (the file itself is
// never followed: WriteFileAtomic links a new name into place).
func (m *Sessions) inScreenshotDir(path string) error {
	if m.ScreenshotDir == "" {
		return Errorf(CodeInputNotAllowed, "the server names no directory for screenshot files (--screenshot-dir), so path is refused; omit path to get the image inline")
	}
	root, err := filepath.EvalSymlinks(m.ScreenshotDir)
	if err != nil {
		return Errorf(CodeInvalidArgument, "the server's screenshot directory %s cannot be used (%v); omit path to get the image inline", Quote(m.ScreenshotDir), err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return Errorf(CodeInvalidArgument, "the directory of %s does not exist; use a file name in %s", Quote(path), Quote(m.ScreenshotDir))
	}
	if rel, err := filepath.Rel(root, dir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return Errorf(CodeInvalidArgument, "path must be in the server's screenshot directory %s (--screenshot-dir) or below it, not %s", Quote(m.ScreenshotDir), Quote(path))
	}
	return nil
}

// redactionTree reads the accessibility tree of a visual session's app,
// for its redacted fields only (the session's tree stays the window tree);
// nil when the app has none. A read that fails or is cut short fails the
// screenshot, as for an a11y session.
func (m *Sessions) redactionTree(ctx context.Context, s *Session, limit time.Duration) (*Tree, error) {
	if !s.App.Accessible || m.desk.Accessibility == nil {
		return nil, nil
	}
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	root, st, err := m.desk.Accessibility.Tree(tctx, s.App, platform.TreeOptions{MaxNodes: MaxMaxNodes})
	if err != nil {
		if cerr := m.check(ctx, s); cerr != nil {
			return nil, cerr
		}
		e := AsError(err)
		return nil, &Error{Code: e.Code, Retryable: e.Retryable, Disposition: e.Disposition, Err: err, Msg: e.Msg +
			"; without the accessibility tree its redacted fields cannot be found, so no image is returned"}
	}
	if st.Truncated {
		return nil, &Error{Code: CodeTimeout, Retryable: true, Disposition: DispositionTransient, Msg: fmt.Sprintf(
			"the accessibility tree read was cut short (%s), so some redacted fields might not be found: no image is returned; try again with a larger timeoutMs", st.Reason)}
	}
	return NewTree(root, KindA11y), nil
}

// captureError maps a capture's platform errors.
func captureError(err error, win platform.Window) error {
	_, onSway := win.ID.SwayCon()
	switch {
	case errors.Is(err, platform.ErrWindowHidden) && onSway:
		return &Error{Code: CodeWindowHidden, Disposition: DispositionTerminal, Err: err, Msg: fmt.Sprintf(
			"window %s is not shown (a tab behind another, a workspace not shown, the scratchpad), and a Wayland capture copies what the screen shows: bring it forward (focus one of its elements, with --allow-input) and try again", win.ID)}
	case errors.Is(err, platform.ErrWindowHidden):
		return &Error{Code: CodeWindowHidden, Disposition: DispositionTerminal, Err: err, Msg: fmt.Sprintf(
			"window %s is not on screen (minimized or unmapped), so it has no pixels to capture: restore it (window_action restore, with --allow-input) and try again", win.ID)}
	case errors.Is(err, platform.ErrWindowCovered):
		return &Error{Code: CodeCovered, Disposition: DispositionTerminal, Err: err, Msg: fmt.Sprintf(
			"%v: its covered part cannot be captured (no image is returned rather than the cover's pixels); bring it to the front (focus one of its elements, with --allow-input) or move the other window, and try again", err)}
	case errors.Is(err, platform.ErrElementGone):
		return &Error{Code: CodeElementGone, Disposition: DispositionTerminal, Err: err, Msg: fmt.Sprintf(
			"window %s closed during the capture; list the app's windows again (connect, list_apps)", win.ID)}
	}
	return AsError(err)
}

// redactedBars lists the screen rectangles to cover: every redacted or
// password element with bounds meeting the captured area. One that is
// showing but has no bounds, or whose window could not be told
// (BoundsUnknown: it may be on screen), cannot be covered, so the capture
// fails.
func redactedBars(t *Tree, area platform.Rect) ([]platform.Rect, error) {
	var bars []platform.Rect
	for id := 0; id < t.Len(); id++ {
		n, _ := t.Node(id)
		if !n.Secret() {
			continue
		}
		if n.Bounds == nil {
			if n.States.Has(platform.StateShowing) || n.BoundsUnknown {
				return nil, Errorf(CodeNotSupported, "%s (%s) hides its text but reports no bounds, so it cannot be covered: no image is returned", t.RefString(id), n.Role)
			}
			continue
		}
		if r := n.Bounds.Intersect(area); !r.Empty() {
			bars = append(bars, r)
		}
	}
	return bars, nil
}

// WriteFileAtomic writes data to path as atomicfile.Write does: a reader
// never sees a partial file, and a failure leaves nothing behind. Without
// overwrite an existing path is refused (the file is linked into place,
// which fails if the name exists). perm is the file's mode (an agent's
// screenshots are 0600: they show whatever was on screen). Its errors are
// the core's: invalidArgument for a directory it cannot write in or a name
// that exists, internal for the rest.
func WriteFileAtomic(path string, data []byte, overwrite bool, perm os.FileMode) error {
	err := atomicfile.Write(path, data, perm, overwrite)
	if err == nil {
		return nil
	}
	cause := err
	var ae *atomicfile.Error
	if errors.As(err, &ae) {
		cause = ae.Err
		if ae.Op == atomicfile.OpCreate {
			return Errorf(CodeInvalidArgument, "cannot write in %s: %v", Quote(filepath.Dir(path)), cause)
		}
	}
	if errors.Is(err, os.ErrExist) {
		return Errorf(CodeInvalidArgument, "%s exists; screenshots never replace a file: choose a new name", Quote(path))
	}
	return Errorf(CodeInternal, "writing %s: %v", Quote(path), cause)
}

// cropImage copies a part of img into a new image at the origin.
func cropImage(img *image.RGBA, x, y, w, h int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for row := 0; row < h; row++ {
		src := img.Pix[img.PixOffset(x, y+row):]
		copy(out.Pix[row*out.Stride:row*out.Stride+w*4], src[:w*4])
	}
	return out
}
