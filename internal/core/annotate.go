package core

import (
	"image"
	"image/color"
	"math"
	"strconv"
	"sync"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/uiscope/uiscope/internal/platform"
)

// Annotation is one marked element of a screenshot.
type Annotation struct {
	// Label is the number the image shows for the element: 1 to N, in the
	// tree's order, for this image only.
	Label int    `json:"label"`
	Ref   string `json:"ref"`
	Role  string `json:"role"`
	Name  string `json:"name,omitempty"`
	// Box is the element's rectangle in image pixels.
	Box platform.Rect `json:"box"`
}

// maxAnnotations bounds the labels on one image: past it the image is
// unreadable and the list a waste of the agent's context.
const maxAnnotations = 200

// redactGrey is the one colour of every bar over a redacted field.
var redactGrey = color.RGBA{0x80, 0x80, 0x80, 0xff}

// palette colours boxes and label backgrounds: saturated and dark enough
// for white text, told apart from their neighbours.
var palette = []color.RGBA{
	{0xd6, 0x1a, 0x46, 0xff}, // red
	{0x1f, 0x5f, 0xd1, 0xff}, // blue
	{0x1e, 0x8c, 0x3a, 0xff}, // green
	{0x9b, 0x1f, 0xb5, 0xff}, // purple
	{0xc8, 0x5a, 0x00, 0xff}, // orange
	{0x00, 0x7a, 0x7a, 0xff}, // teal
	{0xc0, 0x1c, 0x9c, 0xff}, // magenta
	{0x6b, 0x45, 0x10, 0xff}, // brown
}

var white = color.RGBA{0xff, 0xff, 0xff, 0xff}

// labelFace is the labels' font: Go Bold (BSD-licensed, pure Go), 11 px.
var labelFace = sync.OnceValue(func() font.Face {
	f, err := opentype.Parse(gobold.TTF)
	if err != nil {
		panic("core: the embedded Go Bold font does not parse: " + err.Error())
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 11, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		panic("core: Go Bold face: " + err.Error())
	}
	return face
})

// coverBars paints the bars (screen rectangles) grey on img, which shows
// the screen area at scale, rounded outwards.
func coverBars(img *image.RGBA, bars []platform.Rect, area platform.Rect, scale float64) {
	for _, b := range bars {
		r := image.Rect(
			int(math.Floor(float64(b.X-area.X)*scale)), int(math.Floor(float64(b.Y-area.Y)*scale)),
			int(math.Ceil(float64(b.X+b.Width-area.X)*scale)), int(math.Ceil(float64(b.Y+b.Height-area.Y)*scale)))
		draw.Draw(img, r.Intersect(img.Rect), image.NewUniform(redactGrey), image.Point{}, draw.Src)
	}
}

// scaleDown resamples img to width w (keeping its aspect), returning the
// new image and the scale.
func scaleDown(img *image.RGBA, w int) (*image.RGBA, float64) {
	scale := float64(w) / float64(img.Rect.Dx())
	h := max(1, int(math.Round(float64(img.Rect.Dy())*scale)))
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(out, out.Rect, img, img.Rect, draw.Src, nil)
	return out, scale
}

// markRoles sorts the roles of the accessibility tree for marking: a
// control is marked, a collection (a table, a list box) gets one mark for
// all its rows and cells, the rest (containers, static text, the items of a
// collection) none unless editable. Roles in none of these (text, document
// text, a canvas, an icon) are marked when focusable or editable, or when
// they take text or a value. Actions are not asked about: Chromium gives
// every element of a page an action (doDefault), a paragraph included.
var (
	controlRoles = roleSet("push button", "push button menu", "toggle button", "check box", "radio button",
		"menu item", "check menu item", "radio menu item", "tearoff menu item", "menu", "combo box", "entry",
		"password text", "spin button", "slider", "dial", "link", "page tab", "date editor", "autocomplete")
	collectionRoles = roleSet("list", "list box", "table", "tree", "tree table")
	// plainRoles are never marked unless editable: what a user reads, the
	// containers that group controls, and the items of a collection.
	plainRoles = roleSet("table cell", "table row", "list item", "tree item", "table column header",
		"table row header", "column header", "row header",
		"label", "static", "paragraph", "heading", "caption", "separator", "image", "status bar", "tool tip",
		"notification", "progress bar", "level bar", "ruler", "accelerator label", "scroll bar", "title bar",
		"panel", "filler", "split pane", "scroll pane", "viewport", "layered pane", "root pane", "glass pane",
		"internal frame", "desktop frame", "option pane", "section", "form", "grouping", "tool bar",
		"menu bar", "page tab list", "popup menu", "html container", "embedded", "document web",
		"document frame", "document spreadsheet", "document presentation", "info bar", "landmark", "article",
		"header", "footer", "redundant object", "frame", "window", "dialog", "alert", "file chooser",
		"color chooser", "font chooser", "directory pane", "application", "block quote", "description list",
		"description term", "description value", "math", "log", "marquee", "timer", "page", "chart",
		"image map", "definition", "comment", "footnote", "content deletion", "content insertion", "mark",
		"suggestion", "subscript", "superscript", "unknown", "invalid", "extended", "editbar")
)

func roleSet(names ...string) map[platform.Role]bool {
	set := map[platform.Role]bool{}
	for _, n := range names {
		r, ok := platform.RoleByName(n)
		if !ok {
			panic("core: unknown role " + n)
		}
		set[r] = true
	}
	return set
}

// markKind says whether an element gets a mark, and whether the mark
// stands for what is inside it too (an editable text's paragraphs).
type markKind int

const (
	markNone markKind = iota
	markOne
	// markWhole marks the element and none of its descendants: an
	// editor, whose paragraphs are its text.
	markWhole
)

// markable tells whether an element of a tree of kind gets a mark:
// something an agent acts on, not what it reads nor the containers around
// it. In a window tree every shown window is one (a Tk widget is a
// window); the top-level ones, which are the whole image, are left out by
// the caller.
func markable(kind string, n *platform.Node) markKind {
	if kind == KindVisual {
		if n.Role == platform.RoleWindow && n.States.Has(platform.StateShowing) {
			return markOne
		}
		return markNone
	}
	st := n.States
	switch {
	case n.Secret():
		return markWhole
	case st.Has(platform.StateEditable):
		return markWhole
	case controlRoles[n.Role]:
		return markOne
	case collectionRoles[n.Role]:
		// A table is one mark for its cells; a list only when it
		// chooses (a list box), not a page's bulleted list.
		if n.Role != platform.RoleList || st.Has(platform.StateFocusable) || hasInterface(n, "selection") {
			return markOne
		}
		return markNone
	case plainRoles[n.Role]:
		return markNone
	}
	if st.Has(platform.StateFocusable) || hasInterface(n, "editabletext") || hasInterface(n, "value") {
		return markOne
	}
	return markNone
}

// markCand is an element that may be marked: its box in image pixels and
// its subtree's ids, [id, end).
type markCand struct {
	id, end int
	box     image.Rectangle
}

// pickMarks chooses among candidates in tree order the ones to mark: of
// elements with the same box the innermost (a text view, not the split
// pane around it that has its box; a button, not the combo box it fills),
// and of siblings with the same box the first. It returns the chosen
// candidates' indices in tree order.
func pickMarks(cands []markCand) []int {
	var kept []int
	at := map[image.Rectangle]int{} // box -> index in kept
	for i, c := range cands {
		k, dup := at[c.box]
		if !dup {
			at[c.box] = len(kept)
			kept = append(kept, i)
			continue
		}
		if o := cands[kept[k]]; c.id > o.id && c.id < o.end {
			kept[k] = i
		}
	}
	return kept
}

// annotate draws a box and a numbered label for each markable element of
// the subtree at scope that shows in img (img shows the screen area at
// scale; shows, when not nil, says which elements the captured window
// shows), and lists them, numbered from 1 in tree order. Boxes come first
// and labels on top, so no box hides a label; where labels go is judged
// on the image as captured.
func annotate(img *image.RGBA, t *Tree, scope int, area platform.Rect, scale float64, shows func(id int) bool) ([]Annotation, int) {
	var cands []markCand
	skip := -1 // ids below it are inside an element marked whole
	for id := scope; id < t.end[scope]; id++ {
		n := t.nodes[id]
		if id == scope && scope != 0 || n.Bounds == nil || shows != nil && !shows(id) {
			continue
		}
		kind := markable(t.kind, n)
		// Inside an element marked whole only a table is marked (a
		// spreadsheet's grid of cells, a document's table).
		if kind == markNone || id < skip && !collectionRoles[n.Role] {
			continue
		}
		vis := n.Bounds.Intersect(area)
		if vis.Empty() {
			continue
		}
		b := image.Rect(
			int(math.Round(float64(vis.X-area.X)*scale)), int(math.Round(float64(vis.Y-area.Y)*scale)),
			int(math.Round(float64(vis.X+vis.Width-area.X)*scale)), int(math.Round(float64(vis.Y+vis.Height-area.Y)*scale)))
		b = b.Intersect(img.Rect)
		if b.Dx() < 4 || b.Dy() < 4 || b == img.Rect {
			continue // too small to box, or the whole image
		}
		if kind == markWhole {
			skip = max(skip, t.end[id])
		}
		cands = append(cands, markCand{id: id, end: t.end[id], box: b})
	}
	picked := pickMarks(cands)
	omitted := 0
	if len(picked) > maxAnnotations {
		omitted, picked = len(picked)-maxAnnotations, picked[:maxAnnotations]
	}
	out := make([]Annotation, 0, len(picked))
	boxes := make([]image.Rectangle, 0, len(picked))
	for i, k := range picked {
		c := cands[k]
		n := t.nodes[c.id]
		name := n.Name
		if len([]rune(name)) > 40 {
			name = string([]rune(name)[:39]) + "…"
		}
		out = append(out, Annotation{Label: i + 1, Ref: t.RefString(c.id), Role: n.Role.String(), Name: name,
			Box: platform.Rect{X: c.box.Min.X, Y: c.box.Min.Y, Width: c.box.Dx(), Height: c.box.Dy()}})
		boxes = append(boxes, c.box)
	}
	clean := image.NewRGBA(img.Rect)
	copy(clean.Pix, img.Pix)
	for i, b := range boxes {
		drawBox(img, b, palette[i%len(palette)])
	}
	face := labelFace()
	m := face.Metrics()
	h := (m.Ascent + m.Descent).Ceil() + 2
	var placed []image.Rectangle
	for i, b := range boxes {
		text := strconv.Itoa(out[i].Label)
		size := image.Pt(font.MeasureString(face, text).Ceil()+6, h)
		r := placeLabel(b, size, img.Rect, boxes, placed, func(r image.Rectangle) float64 { return busy(clean, r) })
		drawLabel(img, r, text, palette[i%len(palette)])
		placed = append(placed, r)
	}
	return out, omitted
}

// drawBox outlines b with a 2-pixel line of c just inside it and a 1-pixel
// white line just outside, so that it shows on dark and light backgrounds.
func drawBox(img *image.RGBA, b image.Rectangle, c color.RGBA) {
	frame(img, b.Inset(-1), 1, white)
	frame(img, b, 2, c)
}

// frame draws a rectangle's outline, w pixels thick, inside r.
func frame(img *image.RGBA, r image.Rectangle, w int, c color.RGBA) {
	u := image.NewUniform(c)
	for _, s := range []image.Rectangle{
		{r.Min, image.Pt(r.Max.X, r.Min.Y+w)},
		{image.Pt(r.Min.X, r.Max.Y-w), r.Max},
		{r.Min, image.Pt(r.Min.X+w, r.Max.Y)},
		{image.Pt(r.Max.X-w, r.Min.Y), r.Max},
	} {
		draw.Draw(img, s.Intersect(img.Rect), u, image.Point{}, draw.Src)
	}
}

// placeLabel chooses where a label of size goes for box b, within bounds
// (the image), clear of the labels placed and with a pixel to spare around
// each. Of the places around b (above it, to its left and right, below,
// each at either end of that side) and, failing those, inside its
// corners, it takes the one that costs least: what it hides (busy, the
// share of its pixels that are not plain ground: text, icons), covering
// another element's box (not one b lies in), and covering b itself, whose
// text (busy inside b) weighs most. The order above breaks ties. With no
// place clear of the other labels, inside b's top-left corner, moved into
// bounds.
func placeLabel(b image.Rectangle, size image.Point, bounds image.Rectangle, boxes, placed []image.Rectangle, busy func(image.Rectangle) float64) image.Rectangle {
	w, h := size.X, size.Y
	corners := []image.Point{
		{b.Min.X, b.Min.Y - h - 2},     // above, at its left end
		{b.Min.X - w - 2, b.Min.Y},     // left, at the top
		{b.Max.X - w, b.Min.Y - h - 2}, // above, at the right end
		{b.Max.X + 2, b.Min.Y},         // right, at the top
		{b.Min.X, b.Max.Y + 2},         // below, at the left end
		{b.Max.X - w, b.Max.Y + 2},     // below, at the right end
		{b.Min.X - w - 2, b.Max.Y - h}, // left, at the bottom
		{b.Max.X + 2, b.Max.Y - h},     // right, at the bottom
		{b.Min.X + 2, b.Min.Y + 2},     // inside: top-left
		{b.Max.X - w - 2, b.Min.Y + 2}, // top-right
		{b.Min.X + 2, b.Max.Y - h - 2}, // bottom-left
		{b.Max.X - w - 2, b.Max.Y - h - 2},
	}
	pick, best := image.Rectangle{}, math.Inf(1)
	for i, p := range corners {
		r := image.Rectangle{Min: p, Max: p.Add(size)}
		if !r.In(bounds) || overlapsAny(r.Inset(-1), placed) {
			continue
		}
		cost := 4*busy(r) + 0.01*float64(i)
		if r.Overlaps(b) {
			cost += 0.5 + 8*busy(r.Intersect(b))
		}
		for _, o := range boxes {
			if o != b && !b.In(o) && r.Overlaps(o.Inset(-1)) {
				cost++
				break
			}
		}
		if cost < best {
			pick, best = r, cost
		}
	}
	if best < math.Inf(1) {
		return pick
	}
	x := min(max(b.Min.X+2, bounds.Min.X), bounds.Max.X-w)
	y := min(max(b.Min.Y+2, bounds.Min.Y), bounds.Max.Y-h)
	return image.Rect(x, y, x+w, y+h)
}

func overlapsAny(r image.Rectangle, rs []image.Rectangle) bool {
	for _, o := range rs {
		if r.Overlaps(o) {
			return true
		}
	}
	return false
}

// drawLabel draws text in white on a c-coloured tag at r, with a white rim.
func drawLabel(img *image.RGBA, r image.Rectangle, text string, c color.RGBA) {
	m := labelFace().Metrics()
	draw.Draw(img, r.Inset(-1).Intersect(img.Rect), image.NewUniform(white), image.Point{}, draw.Src)
	draw.Draw(img, r.Intersect(img.Rect), image.NewUniform(c), image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.NewUniform(white), Face: labelFace(),
		Dot: fixed.P(r.Min.X+3, r.Min.Y+1+m.Ascent.Ceil())}
	d.DrawString(text)
}

// busy is the share of r's pixels that differ clearly from its most
// common colour: 0 over plain background (a gentle gradient included),
// towards 1 over text and pictures.
func busy(img *image.RGBA, r image.Rectangle) float64 {
	if r.Empty() {
		return 0
	}
	// The ground is the commonest colour of the rectangle's edge rows
	// (cheap to count, and where a background shows most).
	counts := map[color.RGBA]int{}
	var ground color.RGBA
	for _, y := range []int{r.Min.Y, r.Max.Y - 1} {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.RGBAAt(x, y)
			counts[c]++
			if counts[c] > counts[ground] {
				ground = c
			}
		}
	}
	far := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if absDiff(c.R, ground.R)+absDiff(c.G, ground.G)+absDiff(c.B, ground.B) > 30 {
				far++
			}
		}
	}
	return float64(far) / float64(r.Dx()*r.Dy())
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
