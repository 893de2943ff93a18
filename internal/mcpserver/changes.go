package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

// Live changes (docs/design.md, "Live changes"): the get_a11y_tree_changes,
// get_visual_tree_changes and get_events tools, and one subscribable
// resource per session, uiscope://session/<id>/a11y-tree (visual-tree for
// a visual session). Subscriptions go through the SDK's own
// machinery in both protocol eras: resources/subscribe and unsubscribe
// (2025-11-25) and subscriptions/listen (2026-07-28) both end in the
// server's SubscribeHandler and UnsubscribeHandler, and
// Server.ResourceUpdated sends notifications/resources/updated to whoever
// subscribed, as each era wants it.

// resourcePrefix begins every session resource's URI.
const resourcePrefix = "uiscope://session/"

// resourceURI is a session's tree resource: a11y-tree or visual-tree,
// after the session's mode.
func resourceURI(session, mode string) string { return resourcePrefix + session + "/" + mode + "-tree" }

// resourceReadTimeout bounds the tree read behind a resources/read that
// no watcher answers from its cache.
const resourceReadTimeout = 10 * time.Second

// resources keeps the sessions' resources and their subscriptions. One
// watcher runs per subscribed session (core.Follow), for as long as any
// client is subscribed; it stops with the last unsubscribe, with the
// session's disconnect, and with the end of every subscriber's MCP session
// (a closed transport).
type resources struct {
	sessions *core.Sessions

	mu      sync.Mutex
	srv     *mcp.Server
	subs    map[string]*subscription    // by URI
	watched map[*mcp.ServerSession]bool // MCP sessions whose end is watched
}

type subscription struct {
	stop    func()
	clients map[*mcp.ServerSession]bool
}

func newResources(sessions *core.Sessions) *resources {
	return &resources{sessions: sessions, subs: map[string]*subscription{}, watched: map[*mcp.ServerSession]bool{}}
}

// options are the server options that serve subscriptions.
func (r *resources) options(o *mcp.ServerOptions) {
	o.SubscribeHandler = r.subscribe
	o.UnsubscribeHandler = r.unsubscribe
	// Resources come and go with sessions, so the capability is declared
	// rather than inferred from what exists at connect. (Declaring any
	// capability drops the SDK's default "logging", which the server never
	// used: it sends no log messages.)
	o.Capabilities = &mcp.ServerCapabilities{
		Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
	}
}

// bind gives r its server; sessions opened from now on get resources.
func (r *resources) bind(s *mcp.Server) {
	r.mu.Lock()
	r.srv = s
	r.mu.Unlock()
}

// opened adds a new session's resource.
func (r *resources) opened(s *core.Session) {
	if r == nil {
		return
	}
	r.mu.Lock()
	srv := r.srv
	r.mu.Unlock()
	if srv == nil {
		return
	}
	what := "accessibility tree"
	if s.Mode == core.ModeVisual {
		what = "native window tree"
	}
	srv.AddResource(&mcp.Resource{
		URI:      resourceURI(s.ID, s.Mode),
		Name:     s.ID + "-" + s.Mode + "-tree",
		Title:    fmt.Sprintf("%s (pid %d): %s", s.App.Name, s.App.Pid, what),
		MIMEType: "application/json",
		Description: "The " + what + " of session " + s.ID + " as {tree, snapshot, events}: tree is its outline; " +
			"events are the changes since this resource was last read (the whole tree as added events when snapshot " +
			"is true; more true when events were held back to keep the answer within 32000 bytes: read again for the rest). Subscribe to be told of changes (notifications/resources/updated).",
	}, r.read)
}

// closed removes a disconnected session's resource and its subscriptions
// (the session's watcher has stopped with it).
func (r *resources) closed(id string) {
	if r == nil {
		return
	}
	for _, mode := range []string{core.ModeA11y, core.ModeVisual} {
		uri := resourceURI(id, mode)
		r.mu.Lock()
		sub := r.subs[uri]
		delete(r.subs, uri)
		srv := r.srv
		r.mu.Unlock()
		if sub != nil {
			sub.stop()
		}
		if srv != nil {
			srv.RemoveResources(uri)
		}
	}
}

// sessionOf parses a resource URI into its session's id and the kind of
// tree it names: the core looks the session up (and refuses one of the
// other kind) when it reads or follows it.
func sessionOf(uri string) (id, kind string, err error) {
	rest, ok := strings.CutPrefix(uri, resourcePrefix)
	id, tree, ok2 := strings.Cut(rest, "/")
	kind, ok3 := strings.CutSuffix(tree, "-tree")
	if !ok || !ok2 || !ok3 || id == "" || (kind != core.KindA11y && kind != core.KindVisual) {
		return "", "", mcp.ResourceNotFoundError(uri)
	}
	return id, kind, nil
}

// notFound says whether a core error means the URI names no resource of
// the caller's: no such session (or another client's), or a session of
// the other kind.
func notFound(err error) bool {
	if err == nil {
		return false
	}
	code := core.AsError(err).Code
	return code == core.CodeUnknownSession || code == core.CodeWrongTree
}

// treeContents is what resources/read returns, as JSON.
type treeContents struct {
	Session  string `json:"session"`
	View     string `json:"view"`
	Snapshot bool   `json:"snapshot"`
	// Tree is the outline of the tree the events bring the reader to.
	Tree      string        `json:"tree"`
	NodeCount int           `json:"nodeCount"`
	Events    []core.Change `json:"events"`
	// More says events were held back for size: read again for the rest.
	More bool   `json:"more,omitempty"`
	Note string `json:"note,omitempty"`
}

// resourceOutlineShare is the part of a resource read's budget
// (core.DefaultMaxBytes; a read takes no arguments) its outline may use,
// cut breadth-first like get_a11y_tree's; the events have the rest.
const resourceOutlineShare = core.DefaultMaxBytes / 4

func (r *resources) read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, kind, err := sessionOf(uri)
	if err != nil {
		return nil, err
	}
	budget, _ := core.ChangesBudget(nil)
	p, err := r.sessions.ResourcePatch(ctx, id, kind, resourceReadTimeout, budget-resourceOutlineShare)
	if notFound(err) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, fmt.Errorf("%s [%s]", core.AsError(err).Msg, core.AsError(err).Code)
	}
	out := treeContents{Session: id, View: p.View, Snapshot: p.Snapshot, Events: p.Events, More: p.More, Note: core.PatchNote(p)}
	if p.Tree != nil {
		out.NodeCount = p.Tree.Len()
		out.Tree, _, _ = p.Tree.Outline(core.ViewOptions{View: p.View, Depth: -1, MaxBytes: resourceOutlineShare})
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

func (r *resources) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	id, kind, err := sessionOf(uri)
	if err != nil {
		return err
	}
	ss := req.Session
	r.mu.Lock()
	defer r.mu.Unlock()
	sub := r.subs[uri]
	if sub == nil {
		srv := r.srv
		stop, err := r.sessions.Follow(ctx, id, kind, func() {
			// The patch is cached by now: a read that follows is instant.
			_ = srv.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
		})
		if notFound(err) {
			return mcp.ResourceNotFoundError(uri)
		}
		if err != nil {
			return err
		}
		sub = &subscription{stop: stop, clients: map[*mcp.ServerSession]bool{}}
		r.subs[uri] = sub
	} else if err := r.sessions.CanRead(ctx, id, kind); notFound(err) {
		return mcp.ResourceNotFoundError(uri)
	} else if err != nil {
		return err
	}
	sub.clients[ss] = true
	if ss != nil && !r.watched[ss] {
		r.watched[ss] = true
		go func() {
			_ = ss.Wait()
			r.gone(ss)
		}()
	}
	return nil
}

func (r *resources) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	r.drop(req.Params.URI, req.Session)
	return nil
}

// drop ends one client's subscription, and the watcher with the last.
func (r *resources) drop(uri string, ss *mcp.ServerSession) {
	r.mu.Lock()
	sub := r.subs[uri]
	if sub == nil {
		r.mu.Unlock()
		return
	}
	delete(sub.clients, ss)
	if len(sub.clients) > 0 {
		r.mu.Unlock()
		return
	}
	delete(r.subs, uri)
	r.mu.Unlock()
	sub.stop()
}

// gone drops every subscription of an MCP session that ended.
func (r *resources) gone(ss *mcp.ServerSession) {
	r.mu.Lock()
	delete(r.watched, ss)
	var uris []string
	for uri, sub := range r.subs {
		if sub.clients[ss] {
			uris = append(uris, uri)
		}
	}
	r.mu.Unlock()
	for _, uri := range uris {
		r.drop(uri, ss)
	}
}

// Subscribed is how many resources have a running subscription (tests).
func (r *resources) Subscribed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.subs)
}

func (h *handlers) changesTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_a11y_tree_changes",
			Annotations: readOnlySession(),
			Description: "Tree changes with refs since this tool's last call (the first: the whole tree).",
		}, read(changesRequest(core.KindA11y), h.sessions.TreeChanges, changesAnswer)),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_visual_tree_changes",
			Annotations: readOnlySession(),
			Description: "get_a11y_tree_changes for a visual session.",
		}, read(changesRequest(core.KindVisual), h.sessions.TreeChanges, changesAnswer)),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_events",
			Annotations: readOnlySession(),
			Description: "What the app did since connect or your last call: focus, windows, names, states, values.",
		}, read(eventsArgs.request, h.sessions.Events, eventsAnswer)),
	}
}

type changesArgs struct {
	sessionField
	View      string `json:"view,omitempty"`
	TimeoutMs *int   `json:"timeoutMs,omitempty"`
	MaxBytes  *int   `json:"maxBytes,omitempty"`
}

type changesResult struct {
	Session   string        `json:"session"`
	View      string        `json:"view"`
	Snapshot  bool          `json:"snapshot"`
	Events    []core.Change `json:"events"`
	Count     int           `json:"count"`
	NodeCount int           `json:"nodeCount"`
	// More says maxBytes held events back: call again for the rest.
	More bool   `json:"more,omitempty"`
	Note string `json:"note,omitempty"`
}

// changesRequest is the ask of the tool reading kind's changes.
func changesRequest(kind string) func(changesArgs) (core.ChangesRequest, error) {
	return func(in changesArgs) (core.ChangesRequest, error) {
		return core.ChangesRequest{Kind: kind, View: in.View, MaxBytes: in.MaxBytes, TimeoutMs: in.TimeoutMs}, nil
	}
}

func changesAnswer(in changesArgs, p core.Patch) changesResult {
	out := changesResult{Session: in.Session, View: p.View, Snapshot: p.Snapshot, Events: p.Events, Count: len(p.Events),
		More: p.More, Note: core.PatchNote(p)}
	if p.Tree != nil {
		out.NodeCount = p.Tree.Len()
	}
	return out
}

type eventsArgs struct {
	sessionField
	Types []string `json:"types,omitempty" jsonschema:"only these: windowOpened, windowClosed, focusMoved, nameChanged, stateChanged, valueChanged"`
	Churn bool     `json:"churn,omitempty" jsonschema:"add unnamed containers' state changes"`
	Since *int64   `json:"since,omitempty" jsonschema:"read again after this seq"`
	Limit *int     `json:"limit,omitempty"`
	fieldsArg
}

type eventsResult struct {
	Session string       `json:"session"`
	Events  []core.Event `json:"events"`
	// Next is the seq to pass as since to read on from here.
	Next   int64 `json:"next"`
	More   bool  `json:"more,omitempty"`
	Missed bool  `json:"missed,omitempty"`
	// Churn counts the state changes of unnamed containers left out.
	Churn int    `json:"churnLeftOut,omitempty"`
	Note  string `json:"note,omitempty"`
}

func (in eventsArgs) request() (core.EventsRequest, error) {
	return core.EventsRequest{Since: in.Since, Limit: in.Limit, Filter: core.EventFilter{Types: in.Types, Churn: in.Churn},
		Fields: in.Fields}, nil
}

func eventsAnswer(in eventsArgs, r core.EventsAnswer) eventsResult {
	out := eventsResult{Session: in.Session, Events: r.Events, Next: r.Next, More: r.More, Missed: r.Missed, Churn: r.Churn}
	var notes []string
	if r.Started {
		notes = append(notes, "listening from now on: call again to learn what happened since")
	}
	if r.Missed {
		notes = append(notes, fmt.Sprintf("%d events were dropped for room before they were read (the queue keeps the last %d); read the tree again to be sure of its state", r.Dropped, core.MaxEvents))
	}
	if r.Stale {
		notes = append(notes, "the application did not answer a fresh read in time (busy or frozen): these are the events seen until then")
	}
	out.Note = strings.Join(notes, "; ")
	return out
}
