package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) waitTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "wait_for",
			Annotations: readOnly(),
			Description: "Wait until an element matching find_elements' criteria appears, disappears or has a property value.",
		}, read(waitArgs.request, h.sessions.WaitFor, waitAnswer)),
	}
}

func nonNilEls(els []*core.Element) []*core.Element {
	if els == nil {
		return []*core.Element{}
	}
	return els
}

type waitArgs struct {
	sessionField
	criteria
	fieldsArg
	Until     string `json:"until" jsonschema:"appears, disappears or property"`
	Property  string `json:"property,omitempty" jsonschema:"with until property: name, role, state, value, text…"`
	Value     string `json:"value,omitempty" jsonschema:"for state: a state, !state for not"`
	TimeoutMs *int   `json:"timeoutMs,omitempty"`
}

type waitResult struct {
	Session   string          `json:"session"`
	Satisfied bool            `json:"satisfied"`
	Elements  []*core.Element `json:"elements"`
	WaitedMs  int64           `json:"waitedMs"`
	Polls     int             `json:"polls"`
	// VisibleOnly and PartialContainers: as find_elements'.
	VisibleOnly       bool     `json:"visibleOnly,omitempty"`
	PartialContainers []string `json:"partialContainers,omitempty"`
	Note              string   `json:"note,omitempty"` // the live reads were capped; the search saw the visible part
}

func (in waitArgs) request() (core.WaitRequest, error) {
	limit, err := core.Timeout(in.TimeoutMs)
	return core.WaitRequest{Query: in.query(core.MaxFindLimit), Until: in.Until, Property: in.Property, Value: in.Value, Timeout: limit, Fields: in.Fields}, err
}

func waitAnswer(in waitArgs, r *core.WaitResult) waitResult {
	return waitResult{Session: in.Session, Satisfied: true, Elements: nonNilEls(r.Elements),
		WaitedMs: r.Waited.Milliseconds(), Polls: r.Polls, VisibleOnly: len(r.Partial) > 0, PartialContainers: r.Partial,
		Note: joinNotes(r.Note, r.PartialNote)}
}

func (in waitArgs) precheck() error { return requestCheck(in.request()) }
