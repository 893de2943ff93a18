package mcpserver

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) findTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "find_elements",
			Annotations: readOnly(),
			Description: "Elements by name, text, role or state, with refs: when you know what you look for.",
		}, read(findArgs.request, h.sessions.Find, findAnswer)),
	}
}

// criteria are the element-matching arguments find_elements and wait_for
// share.
type criteria struct {
	Name         string   `json:"name,omitempty"`
	NameMatch    string   `json:"nameMatch,omitempty" jsonschema:"contains (default), exact or regex"`
	Text         string   `json:"text,omitempty" jsonschema:"text or value it holds, any case"`
	Role         string   `json:"role,omitempty"`
	AccessibleID string   `json:"accessibleId,omitempty"`
	States       []string `json:"states,omitempty" jsonschema:"all must hold; !focused: not"`
	Interface    string   `json:"interface,omitempty"`
}

func (c criteria) query(limit int) core.Query {
	return core.Query{Name: c.Name, NameMatch: c.NameMatch, Text: c.Text, Role: c.Role, AccessibleID: c.AccessibleID,
		States: c.States, Interface: c.Interface, Limit: limit}
}

// fieldsArg names the element fields a read adds to the default ones.
type fieldsArg struct {
	Fields core.Fields `json:"fields,omitempty"`
}

type findArgs struct {
	sessionField
	criteria
	Within    string `json:"within,omitempty"`
	Limit     int    `json:"limit,omitempty"`
	TimeoutMs *int   `json:"timeoutMs,omitempty"`
	fieldsArg
}

type findResult struct {
	Session   string          `json:"session"`
	Elements  []*core.Element `json:"elements"`
	Matched   int             `json:"matched"`
	Returned  int             `json:"returned"`
	LimitHit  bool            `json:"limitHit"`
	Truncated bool            `json:"truncated"`
	// VisibleOnly: the searched subtree holds partial containers (their
	// refs in PartialContainers, at most ten), whose children off screen
	// were not searched.
	VisibleOnly       bool     `json:"visibleOnly,omitempty"`
	PartialContainers []string `json:"partialContainers,omitempty"`
	Note              string   `json:"note,omitempty"`
}

func (in findArgs) request() (core.FindRequest, error) {
	return core.FindRequest{Query: in.query(in.Limit), Within: in.Within, TimeoutMs: in.TimeoutMs, Fields: in.Fields}, nil
}

func findAnswer(in findArgs, r *core.FindRead) findResult {
	fs, st := r.Find, r.Stats
	out := findResult{Session: in.Session, Elements: r.Elements, Matched: fs.Matched, Returned: fs.Returned,
		LimitHit: fs.LimitHit, Truncated: st.Truncated}
	refs, note := r.Tree.PartialRefs(fs.Partial)
	if len(refs) > 0 {
		out.VisibleOnly, out.PartialContainers, out.Note = true, refs, note
	}
	if st.Truncated {
		out.Note = joinNotes(fmt.Sprintf(truncatedNote, st.Reason), out.Note)
	}
	if r.TextUnread > 0 {
		out.Truncated = true
		out.Note = joinNotes(out.Note, fmt.Sprintf("the text of %d elements could not be read in time (or past the %d a search reads): no match among them proves nothing; raise timeoutMs or narrow the search (within, role)", r.TextUnread, core.MaxTextReads))
	}
	return out
}

func (in findArgs) precheck() error {
	r, err := in.request()
	return requestCheck(&r, err)
}
