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
			Annotations: readOnly("Find elements"),
			Description: "Find elements in the connected app by name (nameMatch exact, contains — the default — or " +
				"regex), role (e.g. \"push button\", \"check box\", \"text\"), accessibleId, states (all must hold; " +
				"\"!focused\" negates) and interface (action, value, text, editable, selection). within limits the " +
				"search to a subtree. Reads the tree afresh; returns flat elements with refs. No match in a " +
				"truncated read proves nothing; visibleOnly says the search met containers that hold only their " +
				"children on screen (spreadsheets, long lists: partialContainers), so what is scrolled away was not searched.",
		}, read(findArgs.request, h.sessions.Find, findAnswer)),
	}
}

// criteria are the element-matching arguments find_elements and wait_for
// share.
type criteria struct {
	Name         string   `json:"name,omitempty" jsonschema:"accessible name to match"`
	NameMatch    string   `json:"nameMatch,omitempty" jsonschema:"exact, contains (default) or regex"`
	Role         string   `json:"role,omitempty" jsonschema:"role name, e.g. push button, check box, text, entry, menu item"`
	AccessibleID string   `json:"accessibleId,omitempty" jsonschema:"toolkit accessible id"`
	States       []string `json:"states,omitempty" jsonschema:"states that must all be set, e.g. focused; !name for unset"`
	Interface    string   `json:"interface,omitempty" jsonschema:"action, value, text, editable, selection, component..."`
}

func (c criteria) query(limit int) core.Query {
	return core.Query{Name: c.Name, NameMatch: c.NameMatch, Role: c.Role, AccessibleID: c.AccessibleID,
		States: c.States, Interface: c.Interface, Limit: limit}
}

type findArgs struct {
	sessionField
	criteria
	Within    string `json:"within,omitempty" jsonschema:"ref of a subtree to search in"`
	Limit     int    `json:"limit,omitempty" jsonschema:"most matches to return (default 50, at most 1000)"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"deadline for reading the tree in ms (default 10000)"`
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
	return core.FindRequest{Query: in.query(in.Limit), Within: in.Within, TimeoutMs: in.TimeoutMs}, nil
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
	return out
}
