package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) editableTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_editable_properties",
			Annotations: readOnly(),
			Description: "What an element lets you edit (descriptors), for set_property and clear_property.",
		}, h.getEditableProperties),
		newTool(ToolsetInteract, &mcp.Tool{Name: "set_property", Annotations: destructive(),
			Description: "Set a property by descriptorId (get_editable_properties), read back.",
		}, h.setProperty),
		newTool(ToolsetInteract, &mcp.Tool{Name: "clear_property", Annotations: destructive(),
			Description: "Clear a property (an editable text) by descriptorId.",
		}, h.clearProperty),
	}
}

type editableArgs struct {
	Session string `json:"session"`
	Element string `json:"element"`
}

type editableResult struct {
	Session string `json:"session"`
	*core.EditableProperties
}

func (h *handlers) getEditableProperties(ctx context.Context, _ *mcp.CallToolRequest, in editableArgs) (editableResult, error) {
	ctx, cancel := context.WithTimeout(ctx, core.DefaultTimeoutMs*time.Millisecond)
	defer cancel()
	p, err := h.sessions.EditableProperties(ctx, in.Session, in.Element)
	if err != nil {
		return editableResult{}, err
	}
	return editableResult{Session: in.Session, EditableProperties: p}, nil
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
