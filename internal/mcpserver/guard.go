package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/security"
)

// guard is what wraps every tool call, whatever transport brought it: the
// client's rate limit for the tool's class before anything runs, and one
// audit record after. The capability gate is the core's (it refuses
// whatever was registered); the allowlist too.
type guard struct {
	log   io.Writer
	limit *security.Limiter // nil: no limits
	audit *security.Audit   // nil: no log
}

func newGuard(cfg Config, logw io.Writer) *guard {
	return &guard{log: logw, limit: cfg.Limits, audit: cfg.Audit}
}

// clientOf is who a call is limited and audited as: the client the
// request was stamped with (clients.go), the same that owns its sessions.
func clientOf(ctx context.Context) string {
	if c := core.ClientOf(ctx); c != "" {
		return string(c)
	}
	return "unnamed" // a server driven without the clients middleware (tests)
}

// classOf is the rate-limit class of a tool.
func classOf(d toolDef) security.Class {
	switch {
	case d.mutating():
		return security.Actions
	case d.Tool.Name == "list_apps" || d.Tool.Name == "connect" || d.Tool.Name == "disconnect":
		return security.Discovery
	}
	return security.Inspection
}

// begin starts a call: it names the client, puts the call in ctx for the
// core to note its target, and spends the call from the client's limit
// (a refusal to answer with when none is left).
func (g *guard) begin(ctx context.Context, class security.Class) (context.Context, *security.Call, error) {
	c := &security.Call{Client: clientOf(ctx)}
	ctx = security.WithCall(ctx, c)
	if g.limit == nil {
		return ctx, c, nil
	}
	return ctx, c, g.limit.Allow(c.Client, class)
}

// spend takes one more call of class from the client's limit, for a call
// that turned out to be of that class as well.
func (g *guard) spend(c *security.Call, class security.Class) error {
	if g.limit == nil {
		return nil
	}
	return g.limit.Allow(c.Client, class)
}

// refusals are the codes that mean the server declined on policy.
var refusals = map[string]bool{
	security.CodeInputNotAllowed:     true,
	security.CodeRateLimited:         true,
	security.CodeAppNotAllowed:       true,
	security.CodeConsentDenied:       true,
	security.CodeConsentTimeout:      true,
	security.CodeAuditFailed:         true,
	security.CodeClipboardNotAllowed: true,
}

// started writes the record of an action before it runs, with --audit-log
// set: an action that cannot be logged is refused, not run unrecorded (a
// full disk fails closed). Reads are logged after the fact only.
func (g *guard) started(c *security.Call, op string) error {
	if g.audit == nil {
		return nil
	}
	r := security.Record{Time: time.Now().UTC(), Client: g.audit.Client(c.Client), Operation: op, Outcome: security.OutcomeStarted}
	if err := g.audit.Write(r); err != nil {
		log.New(g.log, "uiscope mcp: ", log.LstdFlags).Printf("audit log: %v; %s refused", err, op)
		return &security.Refusal{Code: security.CodeAuditFailed, Msg: fmt.Sprintf(
			"the audit log could not be written (%v), so %s was not run: the server runs with --audit-log, and an action is never run unrecorded; the user must free space or fix the log", err, op)}
	}
	return nil
}

// end writes the call's audit record: who, which process, which tool, how
// it ended and the code why — nothing of the arguments or the result.
func (g *guard) end(c *security.Call, op string, err error) {
	if g.audit == nil {
		return
	}
	r := security.Record{Time: time.Now().UTC(), Client: g.audit.Client(c.Client), Operation: op, Outcome: security.OutcomeOK}
	r.Pid, r.StartTime = c.Target()
	if err != nil {
		e := core.AsError(err)
		r.Outcome, r.Reason = security.OutcomeFailed, e.Code
		if refusals[e.Code] {
			r.Outcome = security.OutcomeRefused
		}
	}
	if werr := g.audit.Write(r); werr != nil {
		log.New(g.log, "uiscope mcp: ", log.LstdFlags).Printf("audit log: %v", werr)
	}
}

// middleware puts resource reads under the same guard as tool calls: a
// read of a session's tree is an inspection, limited and audited like
// get_a11y_tree. It must sit inside the clients middleware (added before
// it), which names the client.
func (g *guard) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "resources/read" {
			return next(ctx, method, req)
		}
		ctx, call, refused := g.begin(ctx, security.Inspection)
		if refused != nil {
			g.end(call, method, refused)
			e := core.AsError(refused)
			// Resources have no failure data: the refusal is the
			// protocol error, its code and wait in the message.
			return nil, fmt.Errorf("%s [%s, retryAfterMs %d]", e.Msg, e.Code, e.RetryAfterMs)
		}
		res, err := next(ctx, method, req)
		g.end(call, method, err)
		return res, err
	}
}
