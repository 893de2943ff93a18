package core

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// oddStrings are names that exercise every escape encoding/json writes.
var oddStrings = []string{
	"", "OK", `say "hi"`, `back\slash`, "tab\there", "line\nbreak\r", "\b\f\x00\x1f\x7f",
	"<b>&amp;</b>", "é ü 漢字 🙂", "sep\u2028par\u2029", "bad\xffutf8\xc3", "…",
}

// randomTree builds a seeded random tree of about n nodes, of uneven depth
// and fan-out, with names and values from oddStrings.
func randomTree(seed uint64, n int) *platform.Node {
	rng := rand.New(rand.NewPCG(seed, 1))
	roles := []string{"panel", "push button", "label", "text", "filler", "table", "list item", "menu"}
	count := 0
	mk := func() *platform.Node {
		count++
		x := fake.Node(roles[rng.IntN(len(roles))], oddStrings[rng.IntN(len(oddStrings))])
		x.Key = fmt.Sprintf("k/%d", count)
		x.States = platform.StateSet(rng.Uint64() & 0xffff)
		if rng.IntN(3) > 0 {
			x.Bounds = &platform.Rect{X: rng.IntN(2000) - 100, Y: rng.IntN(1000), Width: rng.IntN(300), Height: rng.IntN(40)}
		}
		x.Interfaces = []string{"accessible", "component"}[:rng.IntN(3)]
		if rng.IntN(4) == 0 {
			v := oddStrings[rng.IntN(len(oddStrings))]
			x.Value = &v
		}
		if rng.IntN(5) == 0 {
			x.Actions = []string{"click"}
		}
		return x
	}
	root := mk()
	open := []*platform.Node{root}
	for count < n {
		p := open[rng.IntN(len(open))]
		c := mk()
		p.Children = append(p.Children, c)
		p.ChildCount = len(p.Children)
		open = append(open, c)
	}
	return root
}

// fillAll sets every field of v (a struct) to a non-zero value, so that a
// field added to Element and not to AppendJSON shows.
func fillAll(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem(), s)
	case reflect.Struct:
		for i := range v.NumField() {
			fillAll(v.Field(i), s)
		}
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int:
		v.SetInt(-42)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			v.Set(reflect.ValueOf([]string{s, "x"}))
		}
	case reflect.Array:
		for i := range v.Len() {
			fillAll(v.Index(i), s)
		}
	}
}

// AppendJSON writes exactly what json.Marshal writes, for every field
// set and for the escapes of odd strings: it is what the byte budget counts.
func TestAppendElementIsJSONMarshal(t *testing.T) {
	check := func(e *Element) {
		t.Helper()
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.AppendJSON(nil); string(got) != string(want) {
			t.Fatalf("AppendJSON\n got %s\nwant %s", got, want)
		}
	}
	for _, s := range oddStrings {
		var e Element
		fillAll(reflect.ValueOf(&e).Elem(), s)
		e.Children = []*Element{{Ref: "a11y:e2", States: []string{}}, nil}
		check(&e)
		check(&Element{Ref: s, States: []string{}})
		check(&Element{Ref: s})
		if got, want := jsonStringLen(s), len(must(json.Marshal(s)))-2; got != want {
			t.Errorf("jsonStringLen(%q) = %d, want %d", s, got, want)
		}
	}
	tr := NewTree(randomTree(7, 400), KindA11y)
	for id := range tr.Len() {
		e, _ := tr.Element(id)
		check(e)
	}
	// Random bytes: the escapes of anything a toolkit might name.
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		s := string(b)
		if got, want := string(appendJSONString(nil, s)), string(must(json.Marshal(s))); got != want {
			t.Fatalf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
		if got, want := jsonStringLen(s), len(must(json.Marshal(s)))-2; got != want {
			t.Fatalf("jsonStringLen(%q) = %d, want %d", s, got, want)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// levels maps each shown element's ref to its level below the root.
func levels(e *Element, level int, out map[string]int) map[string]int {
	out[e.Ref] = level
	for _, c := range e.Children {
		levels(c, level+1, out)
	}
	return out
}

// A byte budget is never exceeded in either format, cuts breadth-first (no
// element shown below a level where children were left out, but one), keeps
// every element's shown children a prefix of its view children with the
// rest counted, and cuts the same way every time.
func TestByteBudget(t *testing.T) {
	t.Parallel() // CPU-bound: the heavy tests run side by side
	for _, seed := range []uint64{1, 2, 3} {
		tr := NewTree(randomTree(seed, 600), KindA11y)
		for _, view := range []string{ViewRaw, ViewControl, ViewContent} {
			full, fst, err := tr.Render(ViewOptions{View: view, Depth: -1, MaxNodes: MaxMaxNodes})
			if err != nil {
				t.Fatal(err)
			}
			fullJSON := len(must(json.Marshal(full)))
			fullOutline, _, _ := tr.Outline(ViewOptions{View: view, Depth: -1, MaxNodes: MaxMaxNodes})
			viewKids := map[string][]string{}
			var index func(e *Element)
			index = func(e *Element) {
				for _, c := range e.Children {
					viewKids[e.Ref] = append(viewKids[e.Ref], c.Ref)
					index(c)
				}
			}
			index(full)
			lastNodes := 0
			for _, budget := range []int{400, 1000, 3000, 9000, 20000, 50000, fullJSON, fullJSON + 1, 10 * fullJSON} {
				name := fmt.Sprintf("seed %d %s %d", seed, view, budget)
				opts := ViewOptions{View: view, Depth: -1, MaxNodes: MaxMaxNodes, MaxBytes: budget}
				e, st, err := tr.Render(opts)
				if err != nil {
					t.Fatal(err)
				}
				js := must(json.Marshal(e))
				if len(js) > budget || st.Bytes > budget || len(js) > st.Bytes {
					t.Errorf("%s: json %d bytes (counted %d), over the budget", name, len(js), st.Bytes)
				}
				if st.Nodes+st.Omitted != fst.Nodes || st.BytesHit != (st.Omitted > 0) || st.BudgetHit {
					t.Errorf("%s: stats %+v for a view of %d", name, st, fst.Nodes)
				}
				if budget >= fullJSON && st.Omitted != 0 {
					t.Errorf("%s: the whole view (%d bytes) fits, %d left out", name, fullJSON, st.Omitted)
				}
				if st.Nodes < lastNodes {
					t.Errorf("%s: %d shown, fewer than with a smaller budget (%d)", name, st.Nodes, lastNodes)
				}
				lastNodes = st.Nodes
				// Breadth-first: nothing shown deeper than one level below
				// the highest element whose children were cut.
				lv := levels(e, 0, map[string]int{})
				cutLevel := -1
				var walk func(e *Element)
				walk = func(e *Element) {
					want := viewKids[e.Ref]
					if len(e.Children)+e.ChildrenOmitted != len(want) {
						t.Errorf("%s: %s shows %d children and omits %d of %d", name, e.Ref, len(e.Children), e.ChildrenOmitted, len(want))
					}
					for i, c := range e.Children {
						if c.Ref != want[i] {
							t.Errorf("%s: %s child %d is %s, want %s (a prefix)", name, e.Ref, i, c.Ref, want[i])
						}
					}
					if e.ChildrenOmitted > 0 && (cutLevel < 0 || lv[e.Ref] < cutLevel) {
						cutLevel = lv[e.Ref]
					}
					for _, c := range e.Children {
						walk(c)
					}
				}
				walk(e)
				for ref, l := range lv {
					if cutLevel >= 0 && l > cutLevel+1 {
						t.Errorf("%s: %s shown at level %d below a cut at level %d", name, ref, l, cutLevel)
					}
				}
				if st.Omitted > 0 && (len(st.Cuts) == 0 || len(st.Cuts) > maxCuts) {
					t.Errorf("%s: cuts %v", name, st.Cuts)
				}
				for i := 1; i < len(st.Cuts); i++ {
					if st.Cuts[i].Omitted > st.Cuts[i-1].Omitted {
						t.Errorf("%s: cuts not largest first: %v", name, st.Cuts)
					}
				}
				again, st2, _ := tr.Render(opts)
				if !reflect.DeepEqual(e, again) || !reflect.DeepEqual(st, st2) {
					t.Errorf("%s: two renders differ", name)
				}

				out, ost, err := tr.Outline(opts)
				if err != nil {
					t.Fatal(err)
				}
				if n := jsonStringLen(out); n > budget || n > ost.Bytes || len(out) > budget {
					t.Errorf("%s: outline %d bytes as JSON (counted %d), over the budget", name, n, ost.Bytes)
				}
				if budget >= jsonStringLen(fullOutline) && out != fullOutline {
					t.Errorf("%s: the whole outline fits but was cut", name)
				}
				// The marks: one "… N more" line per element cut, the
				// counts adding up to the children left out.
				marked := 0
				for _, line := range strings.Split(out, "\n") {
					var n int
					if _, err := fmt.Sscanf(strings.TrimSpace(line), "… %d more", &n); err == nil {
						marked += n
					}
				}
				if ost.Nodes != strings.Count(out, "[a11y:") {
					t.Errorf("%s: %d outline elements, stats say %d", name, strings.Count(out, "[a11y:"), ost.Nodes)
				}
				if ost.Omitted > 0 && marked == 0 {
					t.Errorf("%s: %d left out of the outline, no mark says so", name, ost.Omitted)
				}
			}
		}
	}
}

// An outline line costs a fraction of a JSON element: the same budget
// shows more elements as an outline.
func TestByteBudgetOutlineShowsMore(t *testing.T) {
	tr := NewTree(bigTree(2000), KindA11y)
	opts := ViewOptions{Depth: -1, MaxNodes: MaxMaxNodes, MaxBytes: DefaultMaxBytes - answerReserve}
	_, js, _ := tr.Render(opts)
	_, ol, _ := tr.Outline(opts)
	if !js.BytesHit || !ol.BytesHit || ol.Nodes <= js.Nodes {
		t.Fatalf("json %+v, outline %+v", js, ol)
	}
	t.Logf("within %d bytes: json %d elements, outline %d", opts.MaxBytes, js.Nodes, ol.Nodes)
}

// A tree request's budget is the answer's: the default applies when none
// is given, and values out of range are refused.
func TestTreeRequestMaxBytes(t *testing.T) {
	r := TreeRequest{}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	if o := r.viewOptions(0); o.MaxBytes != DefaultMaxBytes-answerReserve {
		t.Errorf("default tree budget %d", o.MaxBytes)
	}
	for _, bad := range []int{0, MinMaxBytes - 1, MaxMaxBytes + 1, -5} {
		r := TreeRequest{MaxBytes: &bad}
		if err := r.Validate(); err == nil || AsError(err).Code != CodeInvalidArgument || !strings.Contains(err.Error(), "maxBytes") {
			t.Errorf("maxBytes %d: %v", bad, err)
		}
	}
	for _, good := range []int{MinMaxBytes, MaxMaxBytes} {
		r := TreeRequest{MaxBytes: &good}
		if err := r.Validate(); err != nil {
			t.Errorf("maxBytes %d: %v", good, err)
		}
	}
}

// TestJSONBoundAboveJSON holds jsonBound above the JSON of a node whose
// every field is filled as long as it can be: strings of bytes that escape
// six bytes long, lists of them, every state, the most negative numbers. A
// field added to platform.Node is filled too, so a bound that forgets it
// fails here.
func TestJSONBoundAboveJSON(t *testing.T) {
	n := &platform.Node{}
	fillLongest(reflect.ValueOf(n).Elem())
	n.Children = nil
	n.States = platform.StateSet(^uint64(0))
	for _, redacted := range []bool{false, true} {
		n.Redacted = redacted
		tr := NewTree(&platform.Node{Key: "root", Role: platform.RoleApplication, Children: []*platform.Node{n}}, KindA11y)
		e := tr.element(1)
		e.ChildrenOmitted = -1 << 63
		got := len(e.AppendJSON(nil)) + jsonChildrenBytes + 1
		if bound := tr.jsonBound(1, nil, true); bound < got {
			t.Errorf("redacted %v: bound %d below the element's %d bytes", redacted, bound, got)
		}
	}
	// A whole view under a budget of its bound is not cut, and its JSON
	// is within it.
	tr := NewTree(randomTree(3, 500), KindA11y)
	bound := tr.jsonBound(0, nil, true)
	el, st, err := tr.Render(ViewOptions{Depth: -1, MaxNodes: 100000, MaxBytes: bound, Keys: true})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(el)
	if st.BytesHit || st.Omitted != 0 || len(js) > bound || st.Bytes != bound {
		t.Errorf("under its bound %d: cut %v, %d omitted, %d bytes of JSON, stats say %d", bound, st.BytesHit, st.Omitted, len(js), st.Bytes)
	}
}

// fillLongest sets v to the longest JSON its type can make here.
func fillLongest(v reflect.Value) {
	long := strings.Repeat("\x01", 100)
	switch v.Kind() {
	case reflect.String:
		v.SetString(long)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(-1 << (v.Type().Bits() - 1))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1<<v.Type().Bits() - 1)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillLongest(v.Elem())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Pointer {
			return // children: a tree of its own
		}
		v.Set(reflect.MakeSlice(v.Type(), 3, 3))
		for i := range 3 {
			fillLongest(v.Index(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			fillLongest(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				fillLongest(v.Field(i))
			}
		}
	}
}
