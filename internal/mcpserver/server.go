// Package mcpserver is uiscope's MCP surface (docs/api.md): the tool
// inventory, the handlers and the output contract. The behaviour (reads,
// waits, actions, identity checks) is the core's; handlers parse
// arguments, call internal/core and shape its answer.
//
// What it holds:
//   - the server and the inventory (server.go): every feature's tools,
//     registered only with their toolset's capability;
//   - a file per feature, named as its file in internal/core (tree.go,
//     find.go, click.go, table.go, ...): each tool's argument and result
//     structs, its description and its handler; read.go and act.go hold
//     what the reading and the acting tools share;
//   - serveTool (tool.go), which runs every handler: it checks the
//     arguments against the input schema itself (a wrongly typed or
//     unknown argument is invalidArgument data), turns errors into failure
//     data and panics into internal failures, and writes the one JSON text
//     the result carries twice (text block and structuredContent); each
//     output schema is derived from the success struct and wrapped with the
//     failure branch (outputSchemaFor);
//   - the guard (guard.go): rate limits and the audit record of every call;
//   - clients (clients.go): who owns a session, over every transport;
//   - live changes (changes.go): change feeds, session resources and
//     subscriptions;
//   - stdio (transport.go, splice.go): one JSON-RPC message a line, a line
//     it cannot decode answered with a JSON-RPC error while the server goes
//     on, results spliced into their line;
//   - streamable HTTP (http*.go): the token, Host and Origin checks,
//     bounded bodies and connections, the discovery file.
//
// It imports internal/core, internal/security (policy, no platform code),
// internal/atomicfile, the SDK with its JSON schema library and the
// standard library: nothing of the platform (TestLayers).
package mcpserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"io"
	"os"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/security"
)

//go:embed instructions.md
var instructions string

// Version is reported to clients.
var Version = "0.1.0"

// Config is what the command line decides about a server.
type Config struct {
	// Caps are the capabilities granted beyond inspection. The interact
	// and keyboard toolsets are registered only when granted, and the core
	// refuses what was not granted anyway (core.Sessions.Caps).
	Caps security.Caps
	// Limits, when set, limits each client's calls per class.
	Limits *security.Limiter
	// Audit, when set, gets one record per tool call.
	Audit *security.Audit
	// Log receives what the server reports besides the protocol (a tool
	// that panicked); nil is stderr. Never stdout: it carries JSON-RPC.
	Log io.Writer
}

// Toolsets group tools by the capability they need.
const (
	ToolsetInspect  = "inspect"
	ToolsetInteract = "interact"
	ToolsetKeyboard = "keyboard"
)

// toolDef is one entry of the inventory.
type toolDef struct {
	Tool    *mcp.Tool
	Toolset string
	// InputArgs are arguments of an inspection tool that need input
	// rights (screenshot's path writes a file): the tool is registered
	// always, the core refuses them without --allow-input, and with it the
	// tool is not annotated read-only.
	InputArgs []string
	register  func(s *mcp.Server, t *mcp.Tool, g *guard)
	// serve is the tool's handler under g, as registered: run_steps
	// calls a step's tool through it, the same path as a call of its own.
	serve func(g *guard) mcp.ToolHandler
	// Runner marks a tool that runs other tools (run_steps): read-only
	// without input capabilities, and with them destructive, as the
	// acting tools it may run.
	Runner bool
	// check decodes arguments as the handler would, and refuses them as
	// it would, without running anything.
	check func(raw json.RawMessage) error
}

// mutating reports whether a tool changes an application (or the disk).
func (t toolDef) mutating() bool { return t.Toolset != ToolsetInspect }

// handlers holds what tool handlers share.
type handlers struct {
	cfg      Config
	sessions *core.Sessions
	res      *resources // the sessions' resources (changes.go); nil in Inventory alone
	// all is the whole inventory and steps the tools run_steps runs, with
	// their handlers (steps.go); set by New once the inventory is built.
	all   []toolDef
	steps map[string]stepTool
}

// Inventory lists every tool the server knows, registered or not, sorted by
// name. It is the single place that decides what exists.
func Inventory(cfg Config, sessions *core.Sessions) []toolDef {
	return inventory(&handlers{cfg: cfg, sessions: sessions})
}

func inventory(h *handlers) []toolDef {
	// Each feature's file declares its tools (tree.go, click.go, ...).
	var tools []toolDef
	for _, feature := range []func() []toolDef{
		h.appsTools, h.sessionTools, h.treeTools, h.findTools, h.propsTools, h.tableTools, h.editableTools,
		h.frameworksTools, h.hitTestTools, h.waitTools, h.visualTools, h.changesTools, h.screenshotTools,
		h.clickTools, h.valueTools, h.selectTools, h.scrollTools, h.keyboardTools, h.windowTools, h.heldTools,
		h.stepsTools,
	} {
		tools = append(tools, feature()...)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Tool.Name < tools[j].Tool.Name })
	return tools
}

// toolsetCaps is the capability each acting toolset needs.
var toolsetCaps = map[string]security.Caps{
	ToolsetInteract: security.Interact,
	ToolsetKeyboard: security.Keyboard,
}

// Enabled filters the inventory by the configuration: an acting toolset
// only with its capability.
func Enabled(cfg Config, tools []toolDef) []toolDef {
	var out []toolDef
	for _, t := range tools {
		if need, ok := toolsetCaps[t.Toolset]; ok && !cfg.Caps.Has(need) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// New builds the server with the enabled tools.
func New(cfg Config, sessions *core.Sessions) *mcp.Server {
	res := newResources(sessions)
	opts := &mcp.ServerOptions{Instructions: instructions}
	res.options(opts)
	s := mcp.NewServer(&mcp.Implementation{Name: "uiscope", Title: "uiscope", Version: Version}, opts)
	res.bind(s)
	logw := cfg.Log
	if logw == nil {
		logw = os.Stderr
	}
	g := newGuard(cfg, logw)
	h := &handlers{cfg: cfg, sessions: sessions, res: res}
	h.all = inventory(h)
	enabled := Enabled(cfg, h.all)
	h.steps = stepToolsOf(h.all, enabled, g)
	for _, t := range enabled {
		t.register(s, t.Tool, g)
	}
	s.AddReceivingMiddleware(g.middleware)
	s.AddReceivingMiddleware(listHinted)
	// Added last, so outermost: every handler and every middleware added
	// before it sees the request's client (core.ClientOf, clients.go).
	s.AddReceivingMiddleware(newClients(sessions, res).middleware)
	// Outermost of all: tool results leave encoded once (encode.go).
	s.AddReceivingMiddleware(encodeResults)
	return s
}

// Serve runs the server over stdio until the client leaves or ctx ends. A
// line it cannot decode is answered with a JSON-RPC error and the server
// goes on (see lineTransport).
func Serve(ctx context.Context, cfg Config, sessions *core.Sessions) error {
	t := &lineTransport{in: os.Stdin, out: os.Stdout, maxLine: MaxLineBytes}
	return New(cfg, sessions).Run(t.serveContext(ctx), t)
}

func ptr[T any](v T) *T { return &v }

// Annotations. tools/list carries them on every turn, so a tool states the
// hints hosts act on and nothing a host would infer anyway (docs/api.md,
// "Annotations"): readOnlyHint, destructiveHint where readOnlyHint is false
// (its default is true, and it means nothing beside readOnlyHint true) and
// openWorldHint true (the apps are the open world). No title: hosts show
// the name. The SDK writes readOnlyHint and idempotentHint always, false
// or not; those are the only defaults the list repeats.

// readOnly is the annotation set of every inspection tool.
func readOnly() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)}
}

// readOnlySession is readOnly for connect and disconnect, which change the
// server's sessions (not the app): calling them twice is not the same as once.
func readOnlySession() *mcp.ToolAnnotations {
	a := readOnly()
	a.IdempotentHint = false
	return a
}
