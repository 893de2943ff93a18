package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) editableTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_editable_properties",
			Annotations: readOnly(),
			Description: "What an element lets you edit (descriptors), for set_property and clear_property.",
		}, read(editableArgs.request, h.sessions.EditableProperties, editableAnswer)),
		newTool(ToolsetInteract, &mcp.Tool{Name: "set_property", Annotations: destructive(),
			Description: "Set a property by descriptorId (get_editable_properties), read back.",
		}, h.setProperty),
		newTool(ToolsetInteract, &mcp.Tool{Name: "clear_property", Annotations: destructive(),
			Description: "Clear a property (an editable text) by descriptorId.",
		}, h.clearProperty),
	}
}

type editableArgs struct {
	sessionField
	Element string `json:"element"`
}

type editableResult struct {
	Session string `json:"session"`
	*core.EditableProperties
}

// request is the element's ref: what the core reads.
func (in editableArgs) request() (string, error) { return in.Element, nil }

func editableAnswer(in editableArgs, p *core.EditableProperties) editableResult {
	return editableResult{Session: in.Session, EditableProperties: p}
}

type setPropertyArgs struct {
	sessionField
	Element      string `json:"element"`
	DescriptorID string `json:"descriptorId"`
	Value        any    `json:"value" jsonschema:"as its editor says"`
}

type clearPropertyArgs struct {
	sessionField
	Element      string `json:"element"`
	DescriptorID string `json:"descriptorId"`
}

type propertyResult struct {
	Session string `json:"session"`
	*core.PropertyResult
}

func (h *handlers) setProperty(ctx context.Context, _ *mcp.CallToolRequest, in setPropertyArgs) (propertyResult, error) {
	return h.property(ctx, in.Session, in.Element, in.DescriptorID, in.Value, false)
}

func (h *handlers) clearProperty(ctx context.Context, _ *mcp.CallToolRequest, in clearPropertyArgs) (propertyResult, error) {
	return h.property(ctx, in.Session, in.Element, in.DescriptorID, nil, true)
}

// property sets (or, with clear, clears) one property under the acting
// deadline: the body set_property and clear_property share.
func (h *handlers) property(ctx context.Context, session, element, descriptorID string, value any, clear bool) (propertyResult, error) {
	ctx, cancel := context.WithTimeout(ctx, actTimeout)
	defer cancel()
	r, err := h.sessions.SetProperty(ctx, session, element, descriptorID, value, clear)
	if err != nil {
		return propertyResult{}, err
	}
	return propertyResult{Session: session, PropertyResult: r}, nil
}
