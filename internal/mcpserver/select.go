package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) selectTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetInteract, "set_expanded",
			"Expand or collapse a tree row or expander.", actTimeout,
			func(ctx context.Context, in expandArgs) (*core.ActResult, error) {
				return s.SetExpanded(ctx, in.Session, in.Element, in.Expanded)
			}),
		action(ToolsetInteract, "select",
			"Select or deselect a list item, table cell, tab or combo box entry.", actTimeout,
			func(ctx context.Context, in selectArgs) (*core.ActResult, error) {
				return s.Select(ctx, in.Session, in.Element, in.Mode)
			}),
		action(ToolsetInteract, "focus",
			"Give an element the keyboard focus.", actTimeout,
			func(ctx context.Context, in elementArgs) (*core.ActResult, error) {
				return s.Focus(ctx, in.Session, in.Element)
			}),
		action(ToolsetInteract, "select_text",
			"Select a range of an element's text by character offsets.", actTimeout,
			func(ctx context.Context, in selectTextArgs) (*core.ActResult, error) {
				end := -1
				if in.End != nil {
					end = *in.End
				}
				return s.SelectText(ctx, in.Session, in.Element, in.Start, end)
			}),
	}
}

type expandArgs struct {
	sessionField
	observeField
	Element  string `json:"element"`
	Expanded bool   `json:"expanded"`
}

type selectArgs struct {
	sessionField
	observeField
	Element string `json:"element"`
	Mode    string `json:"mode,omitempty" jsonschema:"replace (default), add or remove"`
}

type selectTextArgs struct {
	sessionField
	observeField
	Element string `json:"element"`
	Start   int    `json:"start,omitempty"`
	End     *int   `json:"end,omitempty" jsonschema:"exclusive; default the end"`
}
