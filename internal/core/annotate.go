package core

import (
	"image"
	"image/color"
	"math"
	"strings"
	"sync"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/uiscope/uiscope/internal/platform"
)

// Annotation is one labelled element of a screenshot.
type Annotation struct {
	// Label is what the image shows ("e12"): the element's id.
	Label string `json:"label"`
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

// annotatable reports whether an element gets a label: something an agent
// may act on or read, not the containers around it. In a window tree every
// shown window is one (a Tk widget is a window); the top-level ones, which
// are the whole image, are left out by the caller.
func annotatable(kind string, n *platform.Node) bool {
	if kind == KindVisual {
		return n.Role == platform.RoleWindow && n.States.Has(platform.StateShowing)
	}
	switch n.Role {
	case platform.RoleApplication, platform.RoleFrame, platform.RoleWindow:
		return false
	}
	if n.Secret() || len(n.Actions) > 0 {
		return true
	}
	st := n.States
	if st.Has(platform.StateFocusable) || st.Has(platform.StateEditable) {
		return true
	}
	for _, i := range n.Interfaces {
		switch i {
		case "editabletext", "value", "selection":
			return true
		}
	}
	return false
}

// annotate draws a box and a label for each annotatable element of the
// subtree at scope that shows in img (img shows the screen area at scale;
// shows, when not nil, says which elements the captured window shows),
// and lists them. Boxes come first and labels on top, so no box hides a
// label.
func annotate(img *image.RGBA, t *Tree, scope int, area platform.Rect, scale float64, shows func(id int) bool) ([]Annotation, int) {
	out := []Annotation{}
	omitted := 0
	seen := map[image.Rectangle]bool{}
	var boxes []image.Rectangle
	for id := scope; id < t.end[scope]; id++ {
		n := t.nodes[id]
		if id == scope && scope != 0 || n.Bounds == nil || !annotatable(t.kind, n) || shows != nil && !shows(id) {
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
		if b.Dx() < 4 || b.Dy() < 4 || seen[b] || b == img.Rect {
			continue // too small to box, the same box as an element already labelled, or the whole image
		}
		if len(out) == maxAnnotations {
			omitted++
			continue
		}
		seen[b] = true
		ref := t.RefString(id)
		name := n.Name
		if len([]rune(name)) > 40 {
			name = string([]rune(name)[:39]) + "…"
		}
		out = append(out, Annotation{Label: strings.TrimPrefix(ref, t.kind+":"), Ref: ref, Role: n.Role.String(), Name: name,
			Box: platform.Rect{X: b.Min.X, Y: b.Min.Y, Width: b.Dx(), Height: b.Dy()}})
		boxes = append(boxes, b)
	}
	for i, b := range boxes {
		drawBox(img, b, palette[i%len(palette)])
	}
	var placed []image.Rectangle
	for i, b := range boxes {
		placed = append(placed, drawLabel(img, b, out[i].Label, palette[i%len(palette)], placed, boxes))
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

// drawLabel draws text in white on a c-coloured tag with a white rim,
// beside box b, and returns the tag's rectangle. Of the places around b
// (above its top-left corner, to its left, right, below, inside its top
// corners) that lie in the image and cover no other label, it takes the
// one that hides least: the fewest pixels that are not the place's
// background colour (text, icons, other boxes' lines), with covering
// another element's box counted as a lot, and the order above breaking
// ties. With no such place, inside the top-left corner.
func drawLabel(img *image.RGBA, b image.Rectangle, text string, c color.RGBA, placed, boxes []image.Rectangle) image.Rectangle {
	face := labelFace()
	m := face.Metrics()
	tw := font.MeasureString(face, text).Ceil()
	w, h := tw+6, (m.Ascent+m.Descent).Ceil()+2
	candidates := []image.Point{
		{b.Min.X, b.Min.Y - h - 1},     // above, outside the box
		{b.Min.X - w - 1, b.Min.Y},     // left
		{b.Max.X + 1, b.Min.Y},         // right
		{b.Min.X, b.Max.Y + 1},         // below
		{b.Min.X + 2, b.Min.Y + 2},     // inside the top-left corner
		{b.Max.X - w - 2, b.Min.Y + 2}, // inside the top-right corner
	}
	coversLabel := func(r image.Rectangle) bool {
		for _, o := range placed {
			if r.Inset(-1).Overlaps(o) {
				return true
			}
		}
		return false
	}
	coversElement := func(r image.Rectangle) bool {
		for _, o := range boxes {
			if o != b && !b.In(o) && r.Overlaps(o.Inset(-1)) {
				return true
			}
		}
		return false
	}
	pick, best := image.Rectangle{}, math.Inf(1)
	for i, p := range candidates {
		r := image.Rect(p.X, p.Y, p.X+w, p.Y+h)
		if !r.In(img.Rect) || coversLabel(r) {
			continue
		}
		score := busy(img, r) + 0.001*float64(i)
		if coversElement(r) {
			score += 1
		}
		if score < best {
			pick, best = r, score
		}
	}
	if pick.Empty() {
		p := candidates[4]
		pick = image.Rect(p.X, p.Y, p.X+w, p.Y+h)
	}
	if !pick.In(img.Rect) {
		// Wherever it fits in the image, near the box.
		x := min(max(pick.Min.X, 0), img.Rect.Max.X-w)
		y := min(max(pick.Min.Y, 0), img.Rect.Max.Y-h)
		pick = image.Rect(x, y, x+w, y+h)
	}
	draw.Draw(img, pick.Inset(-1).Intersect(img.Rect), image.NewUniform(white), image.Point{}, draw.Src)
	draw.Draw(img, pick.Intersect(img.Rect), image.NewUniform(c), image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.NewUniform(white), Face: face,
		Dot: fixed.P(pick.Min.X+3, pick.Min.Y+1+m.Ascent.Ceil())}
	d.DrawString(text)
	return pick
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
