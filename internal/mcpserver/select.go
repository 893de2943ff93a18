package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) selectTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetInteract, "set_expanded", "Expand or collapse",
			"Expand or collapse a tree row, expander or similar; a no-op (method none) when it already is.", actTimeout,
			func(ctx context.Context, in expandArgs) (*core.ActResult, error) {
				return s.SetExpanded(ctx, in.Session, in.Element, in.Expanded)
			}),
		action(ToolsetInteract, "select", "Select an item",
			"Select (replace or add) or deselect (remove) an item through its container's selection; items "+
				"without one, like a closed combo box's menu items, are activated instead.", actTimeout,
			func(ctx context.Context, in selectArgs) (*core.ActResult, error) {
				return s.Select(ctx, in.Session, in.Element, in.Mode)
			}),
		action(ToolsetInteract, "focus", "Focus an element",
			"Give an element the keyboard focus (Component.GrabFocus). In a visual session it activates the "+
				"top-level window holding the element; click a field to focus it.", actTimeout,
			func(ctx context.Context, in elementArgs) (*core.ActResult, error) {
				return s.Focus(ctx, in.Session, in.Element)
			}),
		action(ToolsetInteract, "select_text", "Select text",
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
	Element  string `json:"element" jsonschema:"element ref"`
	Expanded bool   `json:"expanded" jsonschema:"true to expand, false to collapse"`
}

type selectArgs struct {
	sessionField
	observeField
	Element string `json:"element" jsonschema:"ref of the item to select (a list item, table cell, menu item, tab)"`
	Mode    string `json:"mode,omitempty" jsonschema:"replace (default), add or remove"`
}

type selectTextArgs struct {
	sessionField
	observeField
	Element string `json:"element" jsonschema:"element ref"`
	Start   int    `json:"start,omitempty" jsonschema:"first character (default 0)"`
	End     *int   `json:"end,omitempty" jsonschema:"character after the last (default: the end)"`
}
