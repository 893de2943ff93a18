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
			Annotations: readOnly("Editable properties"),
			Description: "Read one element's editable properties by its ref: a schemaId, descriptors (what can be " +
				"edited and how: descriptorId, name, type, editor readonly/string/boolean/integer/number/enum/command, " +
				"choices, minimum/maximum/increment, writable, clearable) and values (what each holds now, its runtime " +
				"type, canClear), read live. Derived from the element's Text/EditableText (text), Value (value), " +
				"checked/expanded/selected states, a Selection container's items (choice) and its actions (action). " +
				"A descriptorId belongs to this element in this session under this schemaId: when the element " +
				"changes (say it is disabled) the schemaId and ids change. A redacted field's text is never read.",
		}, h.getEditableProperties),
		newTool(ToolsetInteract, &mcp.Tool{Name: "set_property", Annotations: destructive("Set a property"),
			Description: "Set one editable property of an element, named by a descriptorId from get_editable_properties " +
				"on that element in this session: value a string (editor string, or enum: one of choices; command: an " +
				"action name), a number (integer, number: within minimum/maximum) or a boolean. It goes through the " +
				"verified action for its kind (set_value, toggle, set_expanded, select, invoke), and value in the " +
				"result is the property read back from the app afterwards. A descriptorId that is unknown " +
				"(unknownDescriptor), from another element (descriptorMismatch), stale because the element changed " +
				"(staleDescriptor) or read-only (readOnlyProperty) is refused: read get_editable_properties again.",
		}, h.setProperty),
		newTool(ToolsetInteract, &mcp.Tool{Name: "clear_property", Annotations: destructive("Clear a property"),
			Description: "Clear one clearable property (clearable true: an editable text) named by a descriptorId from " +
				"get_editable_properties, and answer with the value read back from the app. Refused as set_property " +
				"refuses, and with notClearable for a property that cannot be cleared.",
		}, h.clearProperty),
	}
}

type editableArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	Element string `json:"element" jsonschema:"element ref, e.g. a11y:e12"`
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
	Element      string `json:"element" jsonschema:"element ref"`
	DescriptorID string `json:"descriptorId" jsonschema:"descriptorId from get_editable_properties on this element"`
	Value        any    `json:"value" jsonschema:"the new value: a string, number or boolean, as the descriptor's editor says"`
}

type clearPropertyArgs struct {
	sessionField
	Element      string `json:"element" jsonschema:"element ref"`
	DescriptorID string `json:"descriptorId" jsonschema:"descriptorId from get_editable_properties on this element"`
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
