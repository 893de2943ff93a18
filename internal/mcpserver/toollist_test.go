package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"
	"testing/synctest"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/security"
)

// The tools/list budget. A host hands every tool's name, description and
// input schema to the model on every turn (annotations and output schemas
// are the host's: approvals, result validation), so that part of the list
// is paid for on every call an agent makes. A description says what
// the tool is for and when to use it instead of another; what an argument
// means goes in the argument's description, what many tools share and the
// rest in instructions.md and docs/api.md.
const (
	// maxToolDescription is the most characters of a tool's description.
	maxToolDescription = 250
	// maxToolListBytes is the most bytes of the model's part of the tool
	// list with every toolset registered (--allow-input).
	maxToolListBytes = 16384
)

// toolListBytes is the size, as compact JSON, of {"tools": [...]} with
// each tool as the client decoded it: whole but for its output schema
// (all), or only its name, description and input schema (model).
func toolListBytes(t *testing.T, tools []*mcp.Tool) (all, model int) {
	t.Helper()
	size := func(list any) int {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]any{"tools": list}); err != nil {
			t.Fatal(err)
		}
		return len(bytes.TrimSpace(b.Bytes()))
	}
	type modelTool struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		InputSchema any    `json:"inputSchema"`
	}
	var whole []mcp.Tool
	var seen []modelTool
	for _, tool := range tools {
		c := *tool
		c.OutputSchema = nil
		whole = append(whole, c)
		seen = append(seen, modelTool{tool.Name, tool.Description, tool.InputSchema})
	}
	return size(whole), size(seen)
}

// TestToolListBudget measures tools/list as a client receives it, read-only
// and with --allow-input: every description within maxToolDescription
// characters, the model's part of the list with --allow-input within
// maxToolListBytes.
func TestToolListBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			name string
			cfg  Config
		}{{"read-only", Config{}}, {"--allow-input", Config{Caps: security.Input}}} {
			tools := listTools(t, connectClient(t, c.cfg, ""))
			longest, longestName := 0, ""
			for _, tool := range tools {
				n := utf8.RuneCountInString(tool.Description)
				if n > maxToolDescription {
					t.Errorf("%s: the description of %s is %d characters, over %d: say what the tool is for and when to use it instead of another; "+
						"move the detail to its arguments' descriptions, instructions.md or docs/api.md", c.name, tool.Name, n, maxToolDescription)
				}
				if n > longest {
					longest, longestName = n, tool.Name
				}
			}
			all, model := toolListBytes(t, tools)
			t.Logf("%s: %d tools; without output schemas %d bytes, the model's part (name, description, input schema) %d; longest description %s, %d characters",
				c.name, len(tools), all, model, longestName, longest)
			if c.cfg.Caps == security.Input && model > maxToolListBytes {
				t.Errorf("%s: the tools' names, descriptions and input schemas are %d bytes, over %d: shorten descriptions (tools' and arguments'); "+
					"say what many tools share once, in instructions.md", c.name, model, maxToolListBytes)
			}
		}
	})
}
