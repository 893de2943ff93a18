package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/security"
)

// The tools/list budget. A host puts tools/list in the model's context on
// every turn (names, descriptions and input schemas; many hosts the
// annotations too), so the whole answer is paid for on every call an agent
// makes. A description says what the tool is for and when to use it
// instead of another; what an argument means goes in the argument's
// description, what many tools share and the rest in instructions.md and
// docs/api.md. Output schemas are left out of the count: hosts validate
// results with them and do not show them to the model.
const (
	// maxToolDescription is the most characters of a tool's description.
	maxToolDescription = 250
	// maxToolListBytes is the most bytes of a tools/list answer (its
	// result, output schemas left out) in either toolset configuration.
	maxToolListBytes = 16384
)

// rawLists is a client transport that keeps the result of every tools/list
// answer as the server wrote it, byte for byte.
type rawLists struct {
	mcp.Transport
	mu      sync.Mutex
	pending map[any]bool // ids of the tools/list requests sent
	results []json.RawMessage
}

func (r *rawLists) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return rawListsConn{c, r}, nil
}

type rawListsConn struct {
	mcp.Connection
	r *rawLists
}

func (c rawListsConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if req, ok := m.(*jsonrpc.Request); ok && req.Method == "tools/list" {
		c.r.mu.Lock()
		c.r.pending[req.ID.Raw()] = true
		c.r.mu.Unlock()
	}
	return c.Connection.Write(ctx, m)
}

func (c rawListsConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if res, ok := m.(*jsonrpc.Response); ok {
		c.r.mu.Lock()
		if c.r.pending[res.ID.Raw()] {
			c.r.results = append(c.r.results, bytes.Clone(res.Result))
		}
		c.r.mu.Unlock()
	}
	return m, err
}

// wireToolList lists the tools of a server with cfg, speaking version:
// the tools as the client decoded them, and each as the server wrote it,
// in order (the pages joined).
func wireToolList(t *testing.T, cfg Config, version string) ([]*mcp.Tool, []map[string]json.RawMessage, *rawLists) {
	t.Helper()
	ctx := context.Background()
	t1, t2 := mcp.NewInMemoryTransports()
	ss, err := New(cfg, core.NewSessions(fakePlatform())).Connect(ctx, t1, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw := &rawLists{Transport: t2, pending: map[any]bool{}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "unit", Version: "1"}, nil).Connect(ctx, raw, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	tools := listTools(t, cs)
	raw.mu.Lock()
	defer raw.mu.Unlock()
	if len(raw.results) == 0 {
		t.Fatal("no tools/list answer was seen on the wire")
	}
	var wire []map[string]json.RawMessage
	for _, res := range raw.results {
		var page struct {
			Tools []map[string]json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			t.Fatalf("tools/list answer: %v", err)
		}
		wire = append(wire, page.Tools...)
	}
	if len(wire) != len(tools) {
		t.Fatalf("the client decoded %d tools of the %d on the wire", len(tools), len(wire))
	}
	return tools, wire, raw
}

// listedBytes lists the tools of a server with cfg, speaking version, and
// returns them and the bytes of the tools/list answer as the server wrote
// it (pages summed), without the tools' outputSchema members.
func listedBytes(t *testing.T, cfg Config, version string) ([]*mcp.Tool, int) {
	t.Helper()
	tools, wire, raw := wireToolList(t, cfg, version)
	size := 0
	for _, res := range raw.results {
		size += len(res)
	}
	for _, tool := range wire {
		if s, ok := tool["outputSchema"]; ok {
			// `,"outputSchema":` and the schema: the answer is compact.
			size -= len(`,"outputSchema":`) + len(s)
		}
	}
	return tools, size
}

// TestToolListBudget measures tools/list as the server writes it, read-only
// and with --allow-input, in both protocol eras: every description within
// maxToolDescription characters, the answer without output schemas within
// maxToolListBytes.
func TestToolListBudget(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			name string
			cfg  Config
		}{{"read-only", Config{}}, {"--allow-input", Config{Caps: security.Input}}} {
			for _, era := range eras {
				tools, size := listedBytes(t, c.cfg, era.version)
				longest, longestName, total := 0, "", 0
				for _, tool := range tools {
					n := utf8.RuneCountInString(tool.Description)
					total += n
					if n > maxToolDescription {
						t.Errorf("%s: the description of %s is %d characters, over %d: say what the tool is for and when to use it instead of another; "+
							"move the detail to its arguments' descriptions, instructions.md or docs/api.md", c.name, tool.Name, n, maxToolDescription)
					}
					if n > longest {
						longest, longestName = n, tool.Name
					}
				}
				t.Logf("%s, protocol %s: %d tools; tools/list without output schemas %d bytes; descriptions %d characters on average, the longest %s's, %d",
					c.name, era.name, len(tools), size, total/len(tools), longestName, longest)
				if size > maxToolListBytes {
					t.Errorf("%s, protocol %s: tools/list without output schemas is %d bytes, over %d: shorten descriptions (tools' and arguments'); "+
						"say what many tools share once, in instructions.md", c.name, era.name, size, maxToolListBytes)
				}
			}
		}
	})
}

// TestListedToolsWritesTheSDKsAnswer: listedTools writes a tools/list
// answer as the SDK would, member for member (the cursor, the cache
// hints, _meta, every member of a tool), but for the hints listHints
// leaves out: idempotentHint unless true beside readOnlyHint false, and
// destructiveHint beside readOnlyHint true.
func TestListedToolsWritesTheSDKsAnswer(t *testing.T) {
	res := &mcp.ListToolsResult{NextCursor: "c2", Tools: []*mcp.Tool{
		{Name: "read", Title: "Read", Description: "reads", InputSchema: map[string]any{"type": "object"},
			OutputSchema: map[string]any{"type": "object"}, Meta: mcp.Meta{"m": 1},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(true), Title: "R"}},
		{Name: "act", InputSchema: map[string]any{"type": "object"},
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}},
		{Name: "again", InputSchema: map[string]any{"type": "object"},
			Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false)}},
		{Name: "bare", InputSchema: map[string]any{"type": "object"}},
	}}
	res.TTLMs, res.CacheScope = 5, "private"
	res.SetMeta(map[string]any{"server": "x"})
	decode := func(b []byte) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	sdk, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want := decode(sdk)
	drop := map[string][]string{"read": {"idempotentHint", "destructiveHint"}, "act": {"idempotentHint"}}
	for _, tool := range want["tools"].([]any) {
		tool := tool.(map[string]any)
		if a, ok := tool["annotations"].(map[string]any); ok {
			for _, k := range drop[tool["name"].(string)] {
				delete(a, k)
			}
		}
	}
	mine, err := json.Marshal(listedTools{res})
	if err != nil {
		t.Fatal(err)
	}
	if got := decode(mine); !reflect.DeepEqual(got, want) {
		t.Errorf("listedTools wrote\n%s\nwant the SDK's answer without the dropped hints:\n%s", mine, sdk)
	}
	var r mcp.Result = listedTools{res}
	if r.GetMeta()["server"] != "x" {
		t.Errorf("listedTools does not carry the result's _meta: %v", r.GetMeta())
	}
}
