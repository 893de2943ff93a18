package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) propsTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_element_properties",
			Annotations: readOnly(),
			Description: "One element's live states, bounds, actions, text and value, without a tree read.",
		}, read(propsArgs.request, h.sessions.Properties, propsAnswer)),
	}
}

type propsArgs struct {
	sessionField
	Element string   `json:"element"`
	Names   []string `json:"names,omitempty" jsonschema:"only these, e.g. states, text"`
}

type propsResult struct {
	Session    string         `json:"session"`
	Element    string         `json:"element"`
	Properties map[string]any `json:"properties"`
}

func (in propsArgs) request() (core.PropsRequest, error) {
	return core.PropsRequest{Element: in.Element, Names: in.Names}, nil
}

func propsAnswer(in propsArgs, r *core.PropsRead) propsResult {
	return propsResult{Session: in.Session, Element: r.Ref, Properties: r.Properties}
}

func (in propsArgs) precheck() error {
	r, err := in.request()
	return requestCheck(&r, err)
}
