package core

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

const textPid = 5151

// textDesk is an app whose text is where no name says it:
//
//	frame "Todo"
//	  label "Report"            text interface, text "Report"
//	  section ""                text interface, text "1 of 3 done"
//	  text ""                   a document whose value holds its first 200 characters
//	  password text ""          holds "hunter2-done"
//	  entry ""                  redacted (a field that hides its text)
//	  push button "Done"        no text interface
func textDesk() (*fake.Desktop, string) {
	long := strings.Repeat("a", 250) + " needle at the end"
	doc := fake.With(fake.Keyed("t/doc", "text", ""), fake.Ifaces("text", "editabletext"), fake.AddStates("editable", "multi-line"),
		func(n *platform.Node) {
			v := long[:platform.MaxValueRunes]
			n.Value, n.ValueTruncated = &v, true
		})
	tree := fake.Root("todo", fake.Keyed("t/frame", "frame", "Todo",
		fake.With(fake.Keyed("t/label", "label", "Report"), fake.Ifaces("text")),
		fake.With(fake.Keyed("t/status", "section", ""), fake.Ifaces("text")),
		doc,
		fake.With(fake.Keyed("t/pw", "password text", ""), fake.Ifaces("text", "editabletext")),
		fake.With(fake.Keyed("t/hidden", "entry", ""), fake.Ifaces("text", "editabletext"), func(n *platform.Node) { n.Redacted = true }),
		fake.Keyed("t/done", "push button", "Done"),
	))
	d := fake.New()
	d.AddApp(fake.App{Pid: textPid, Name: "todo", Tree: tree})
	d.PutText(textPid, "t/status", "1 of 3 done")
	d.PutText(textPid, "t/doc", long)
	d.PutText(textPid, "t/pw", "hunter2-done")
	d.PutText(textPid, "t/hidden", "hidden-done")
	return d, long
}

// keyRecorder is the fake's text reads, recorded: which elements a search
// asked to read.
type keyRecorder struct {
	*fake.Desktop
	asked []string
}

func (r *keyRecorder) Texts(ctx context.Context, a platform.App, nodes []*platform.Node, maxRunes int) ([]*string, error) {
	for _, n := range nodes {
		r.asked = append(r.asked, n.Key)
	}
	return r.Desktop.Texts(ctx, a, nodes, maxRunes)
}

func textSession(t *testing.T, d *fake.Desktop) (*Sessions, *Session, *keyRecorder) {
	t.Helper()
	rec := &keyRecorder{Desktop: d}
	p := d.Platform()
	p.Accessibility = rec
	m := NewSessions(p)
	s, err := m.Connect(context.Background(), AppSpec{Pid: textPid}, "")
	if err != nil {
		t.Fatal(err)
	}
	return m, s, rec
}

func keysOf(els []*Element) []string {
	out := []string{}
	for _, e := range els {
		out = append(out, e.Key)
	}
	return out
}

// TestFindByText: text matches what an element's text or value holds,
// case-insensitive: a section's text read live (shown as its value), a
// document's text past its value's 200 characters, a label's text; never
// a password's or a redacted field's, which are not even read.
func TestFindByText(t *testing.T) {
	d, _ := textDesk()
	m, s, rec := textSession(t, d)
	find := func(q Query) *FindRead {
		t.Helper()
		r, err := m.Find(context.Background(), s.ID, FindRequest{Query: q, Fields: Fields{FieldKey}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := find(Query{Text: "DONE"})
	if got := strings.Join(keysOf(r.Elements), ","); got != "t/status" || r.TextUnread != 0 {
		t.Fatalf("text DONE: %s (unread %d)", got, r.TextUnread)
	}
	if v := r.Elements[0].Value; v == nil || *v != "1 of 3 done" {
		t.Errorf("the section found by its text shows %v", v)
	}
	if got := strings.Join(keysOf(find(Query{Text: " needle "}).Elements), ","); got != "t/doc" {
		t.Errorf("text past the value's 200 characters: %s", got)
	}
	if got := strings.Join(keysOf(find(Query{Text: "report", Role: "label"}).Elements), ","); got != "t/label" {
		t.Errorf("a label's text: %s", got)
	}
	if got := keysOf(find(Query{Text: "done", Name: "Done"}).Elements); len(got) != 0 {
		t.Errorf("name and text must both hold: %v", got)
	}
	// The secrets: never matched, never read, never in an answer.
	for _, q := range []string{"hunter2", "hidden-done", "hunter2-done"} {
		r := find(Query{Text: q})
		raw, _ := json.Marshal(r.Elements)
		if len(r.Elements) != 0 || strings.Contains(string(raw), "hunter2") || strings.Contains(string(raw), "hidden-done") {
			t.Errorf("text %q: %s", q, raw)
		}
	}
	for _, k := range rec.asked {
		if k == "t/pw" || k == "t/hidden" {
			t.Errorf("a search read the text of %s", k)
		}
		if k == "t/done" {
			t.Errorf("a search read the text of %s, which has no Text interface", k)
		}
	}
	for _, bad := range []string{"   ", strings.Repeat("x", MaxTextLen+1)} {
		if _, err := m.Find(context.Background(), s.ID, FindRequest{Query: Query{Text: bad}}); err == nil || AsError(err).Code != CodeInvalidArgument {
			t.Errorf("text %.20q: %v", bad, err)
		}
	}
}

// TestFindByTextDeadline: text reads that do not come back by the find's
// deadline leave it within it, and the answer counts what it did not read.
func TestFindByTextDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d, _ := textDesk()
		m, s, _ := textSession(t, d)
		d.SetHook(func(ctx context.Context, c fake.Call) error {
			if c.Name == "Texts" {
				<-ctx.Done()
				return ctx.Err()
			}
			return nil
		})
		ms := 1500
		start := time.Now()
		r, err := m.Find(context.Background(), s.ID, FindRequest{Query: Query{Text: "done"}, TimeoutMs: &ms})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 1500*time.Millisecond {
			t.Errorf("find took %v with timeoutMs 1500", took)
		}
		if len(r.Elements) != 0 || r.TextUnread == 0 {
			t.Errorf("a search whose text reads never came: %d found, %d unread", len(r.Elements), r.TextUnread)
		}
	})
}

// TestWaitForText: wait_for's text criterion sees a text an app writes
// later (a page's script filling a status line).
func TestWaitForText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d, _ := textDesk()
		m, s, _ := textSession(t, d)
		// The app writes the text as the second tree read begins: the
		// first poll does not find it.
		reads := 0
		d.SetHook(func(ctx context.Context, c fake.Call) error {
			if c.Name == "Tree" {
				if reads++; reads == 2 {
					d.PutText(textPid, "t/status", "2 of 3 done")
				}
			}
			return nil
		})
		r, err := m.WaitFor(context.Background(), s.ID, WaitRequest{Query: Query{Text: "2 of 3"}, Until: UntilAppears, Timeout: 10 * time.Second, Fields: Fields{FieldKey}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Polls < 2 || len(r.Elements) != 1 || r.Elements[0].Key != "t/status" || r.Elements[0].Value == nil || *r.Elements[0].Value != "2 of 3 done" {
			t.Fatalf("wait_for text after %d polls: %+v", r.Polls, r.Elements)
		}
		_ = m.Disconnect(context.Background(), s.ID)
	})
}
