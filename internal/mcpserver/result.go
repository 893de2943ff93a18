package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

// failure is every tool's failure shape.
type failure struct {
	OK bool `json:"ok"`
	*core.Error
}

// fail turns an error into a failure result: data the agent can act on,
// with isError set, never a protocol error.
func fail(err error) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{IsError: true}, failure{OK: false, Error: core.AsError(err)}, nil
}

// success wraps a tool's answer.
func success(v map[string]any) (*mcp.CallToolResult, any, error) {
	v["ok"] = true
	return nil, v, nil
}

// Schemas. Every tool's output schema is {"type":"object","anyOf":[success,
// failure]} with open additionalProperties: clients validate every result
// against it and must tolerate fields added later.
type schema = map[string]any

func obj(props schema, required ...string) schema {
	s := schema{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func arr(items schema) schema { return schema{"type": "array", "items": items} }

var (
	str     = schema{"type": "string"}
	integer = schema{"type": "integer"}
	boolean = schema{"type": "boolean"}
	anyObj  = schema{"type": "object"}
	rect    = obj(schema{"x": integer, "y": integer, "width": integer, "height": integer})

	failureSchema = obj(schema{
		"ok":               schema{"const": false},
		"error":            str,
		"errorCode":        str,
		"retryable":        boolean,
		"errorDisposition": schema{"enum": []string{"terminal", "transient", "ownershipLost"}},
		"candidates": arr(obj(schema{
			"pid": integer, "name": str, "window": str, "title": str,
		})),
	}, "ok", "error", "errorCode", "retryable")

	elementSchema = obj(schema{
		"id": str, "ref": str, "key": str, "role": str, "name": str, "description": str,
		"accessibleId": str, "states": arr(str), "bounds": rect, "interfaces": arr(str),
		"actions": arr(str), "redacted": boolean, "childCount": integer,
		"children": arr(anyObj), "childrenOmitted": integer, "error": str,
	}, "id", "ref", "role", "name", "states")

	windowSchema = obj(schema{"window": str, "title": str, "bounds": rect, "mapped": boolean}, "window", "title")

	appSchema = obj(schema{
		"pid": integer, "name": str, "executable": str, "toolkit": str, "toolkitVersion": str,
		"accessible": boolean, "windows": arr(windowSchema),
	}, "pid", "name", "accessible", "windows")

	frameworkSchema = obj(schema{"name": str, "version": str, "evidence": str}, "name")

	fetchSchema = obj(schema{"strategy": str, "ms": integer, "calls": integer})
)

// outputSchema builds the anyOf for a tool whose success carries props.
func outputSchema(props schema, required ...string) schema {
	props["ok"] = schema{"const": true}
	return schema{
		"type":  "object",
		"anyOf": []any{obj(props, append([]string{"ok"}, required...)...), failureSchema},
	}
}
