package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) propsTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_element_properties",
			Annotations: readOnly("Read one element"),
			Description: "Read one element live by its ref: role, name, description, states, bounds, interfaces, " +
				"actions, text (Text interface content, at most 4000 characters; never for redacted fields), " +
				"value (Value interface), attributes, parent. names selects a subset. A ref whose element is " +
				"gone fails with elementGone: read the tree again.",
		}, h.getProperties),
	}
}

type propsArgs struct {
	Session string   `json:"session" jsonschema:"session id from connect"`
	Element string   `json:"element" jsonschema:"element ref, e.g. a11y:e12"`
	Names   []string `json:"names,omitempty" jsonschema:"only these properties (e.g. states, value, text)"`
}

type propsResult struct {
	Session    string         `json:"session"`
	Element    string         `json:"element"`
	Properties map[string]any `json:"properties"`
}

func (h *handlers) getProperties(ctx context.Context, _ *mcp.CallToolRequest, in propsArgs) (propsResult, error) {
	req := core.PropsRequest{Element: in.Element, Names: in.Names}
	if err := req.Validate(); err != nil {
		return propsResult{}, err
	}
	s, err := h.sessions.Get(ctx, in.Session)
	if err != nil {
		return propsResult{}, err
	}
	r, err := h.sessions.Properties(ctx, s, req)
	if err != nil {
		return propsResult{}, err
	}
	return propsResult{Session: s.ID, Element: r.Ref, Properties: r.Properties}, nil
}
