package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"maps"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/security"
)

// handlerFunc is a tool's logic: parsed arguments in, its success shape or
// an error out. Errors become failure data (see failResult).
type handlerFunc[In, Out any] func(context.Context, *mcp.CallToolRequest, In) (Out, error)

// newTool binds a typed handler to its tool description. The input schema
// is inferred from In as the SDK would; the output schema is derived from
// Out by outputSchemaFor (both once per process: schemasFor). The handler
// runs inside serveTool, which owns argument decoding, panics and the
// shape of every answer.
func newTool[In, Out any](toolset string, t *mcp.Tool, h handlerFunc[In, Out]) toolDef {
	schemas := schemasFor[In, Out](t.Name)
	t.InputSchema, t.OutputSchema = schemas.input, schemas.output
	args := schemas.args
	d := toolDef{Tool: t, Toolset: toolset}
	class := classOf(d)
	d.serve = func(g *guard) mcp.ToolHandler { return serveTool(t.Name, class, args, h, g) }
	d.check = func(raw json.RawMessage) error {
		var in In
		if err := args.decode(raw, &in); err != nil {
			return err
		}
		if p, ok := any(in).(prechecker); ok {
			return p.precheck()
		}
		return nil
	}
	d.register = func(s *mcp.Server, t *mcp.Tool, g *guard) { s.AddTool(t, d.serve(g)) }
	return d
}

// toolSchemas are what a tool's argument and result types give it: its
// input schema as listed, its output schema and what serveTool checks
// arguments against. Never changed once made: every server the process
// builds shares them.
type toolSchemas struct {
	input, output *jsonschema.Schema
	args          *argSpec
}

// derived holds the toolSchemas of each pair of argument and result types
// ([2]reflect.Type). Deriving them reflects over every type and resolves
// every argument's schema, about a millisecond a tool: a process that
// builds more than one server (the tests build dozens) derives them once,
// as the SDK's SchemaCache does for its own typed tools.
var derived sync.Map

func schemasFor[In, Out any](tool string) *toolSchemas {
	key := [2]reflect.Type{reflect.TypeFor[In](), reflect.TypeFor[Out]()}
	if s, ok := derived.Load(key); ok {
		return s.(*toolSchemas)
	}
	in, err := jsonschema.For[In](&jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", tool, err))
	}
	s, _ := derived.LoadOrStore(key, &toolSchemas{input: listed(in), output: outputSchemaFor[Out](), args: newArgSpec(tool, in)})
	return s.(*toolSchemas)
}

// listed is an input schema as tools/list shows it, a copy of s without
// what costs every client context on every turn and tells it nothing it
// needs: additionalProperties (serveTool refuses an unknown argument
// itself, naming the arguments the tool takes, and an open object is the
// default), here and in an array's items, and "null" beside an optional
// argument's type (leaving it out means the default; serveTool still
// accepts null).
func listed(s *jsonschema.Schema) *jsonschema.Schema {
	s = s.CloneSchemas()
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
		if p.Items != nil {
			p.Items.AdditionalProperties = nil
			for _, m := range p.Items.Properties {
				m.AdditionalProperties = nil
			}
		}
	}
	return s
}

// Annotations as tools/list writes them. The SDK's ToolAnnotations writes
// readOnlyHint and idempotentHint whether true or false (since go-sdk
// 1.7: tool directories refuse a tool whose readOnlyHint is not said), and
// every tool pays for idempotentHint false, its default, on every turn.
// listHints is what the list says instead: readOnlyHint always;
// destructiveHint and idempotentHint only beside readOnlyHint false, the
// only place the protocol gives them a meaning, and idempotentHint only
// when true; openWorldHint and title as set.
type listHints struct {
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
	Title           string `json:"title,omitempty"`
}

func hintsOf(a *mcp.ToolAnnotations) *listHints {
	if a == nil {
		return nil
	}
	h := &listHints{ReadOnlyHint: a.ReadOnlyHint, OpenWorldHint: a.OpenWorldHint, Title: a.Title}
	if !a.ReadOnlyHint {
		h.DestructiveHint, h.IdempotentHint = a.DestructiveHint, a.IdempotentHint
	}
	return h
}

// listedTool is a tool as tools/list writes it: the SDK's, its annotations
// written as listHints (the outer field hides the embedded one).
type listedTool struct {
	*mcp.Tool
	Annotations *listHints `json:"annotations,omitempty"`
}

// listedTools is a tools/list answer whose tools are written as
// listedTool. It embeds the SDK's result, so what the SDK does to a result
// after the handlers (the protocol's resultType, _meta) reaches the
// result it writes.
type listedTools struct{ *mcp.ListToolsResult }

func (l listedTools) MarshalJSON() ([]byte, error) {
	tools := make([]listedTool, len(l.Tools))
	for i, t := range l.Tools {
		tools[i] = listedTool{Tool: t, Annotations: hintsOf(t.Annotations)}
	}
	return json.Marshal(struct {
		*mcp.ListToolsResult
		Tools []listedTool `json:"tools"`
	}{l.ListToolsResult, tools})
}

// listHinted is the receiving middleware that writes tools/list answers
// as listedTools.
func listHinted(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.ListToolsResult); ok && err == nil {
			return listedTools{r}, nil
		}
		return res, err
	}
}

// serveTool wraps h as the SDK's raw handler, the one place every tool
// call passes whatever its transport: the guard's rate limit for class
// first and its audit record last (guard.go); arguments are checked here
// rather than by the SDK, so a wrongly typed or unknown argument is
// invalidArgument data like every other bad input; a panic in h becomes an
// internal failure, logged with its stack on the guard's log, and the
// server goes on.
func serveTool[In, Out any](name string, class security.Class, args *argSpec, h handlerFunc[In, Out], g *guard) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		ctx, call, refused := g.begin(ctx, class)
		var failed error
		defer func() {
			if p := recover(); p != nil {
				log.New(g.log, "uiscope mcp: ", log.LstdFlags).Printf("tool %s panicked: %v\n%s", name, p, debug.Stack())
				failed = core.Errorf(core.CodeInternal, "%s failed with an internal error (logged on the server's stderr); the server goes on: try again, or another way", name)
				res = failResult(failed)
			}
			g.end(call, name, failed)
		}()
		if refused != nil {
			failed = refused
			return failResult(failed), nil
		}
		var in In
		if failed = args.decode(req.Params.Arguments, &in); failed != nil {
			return failResult(failed), nil
		}
		acting := class == security.Actions
		if a, ok := any(in).(actingArgs); ok && a.acting() && !acting {
			// An inspection that writes (screenshot with path) is an
			// action too: limited as one, and logged before it runs.
			acting = true
			if failed = g.spend(call, security.Actions); failed != nil {
				return failResult(failed), nil
			}
		}
		if acting {
			if failed = g.started(call, name); failed != nil {
				return failResult(failed), nil
			}
		}
		out, herr := h(ctx, req, in)
		if herr != nil {
			failed = herr
			return failResult(failed), nil
		}
		res = successResult(out)
		if im, ok := any(out).(imager); ok && !res.IsError {
			res.Content = append(res.Content, im.image())
		}
		return res, nil
	}
}

// prechecker is arguments that can be checked further than their schema
// without running anything, as the handler will check them (run_steps
// checks every step before the first runs).
type prechecker interface{ precheck() error }

// actingArgs are the arguments of a tool that is an inspection unless
// they make it act.
type actingArgs interface{ acting() bool }

// imager is a result that carries an image besides its JSON (screenshot):
// the image goes in its own content block, as raw bytes the SDK encodes.
type imager interface{ image() *mcp.ImageContent }

// successResult renders out with "ok": true first. structuredContent and
// the text block are the same bytes, marshalled once.
func successResult(out any) *mcp.CallToolResult {
	if a, ok := out.(jsonAppender); ok {
		b, err := a.appendMembers(make([]byte, 0, a.sizeHint()))
		if err != nil {
			return failResult(core.Errorf(core.CodeInternal, "the result could not be encoded: %v", err))
		}
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
	}
	b, err := json.Marshal(out)
	if err != nil || len(b) < 2 || b[0] != '{' {
		return failResult(core.Errorf(core.CodeInternal, "the result could not be encoded: %v", err))
	}
	if len(b) == 2 {
		b = []byte(`{"ok":true}`)
	} else {
		b = append([]byte(`{"ok":true,`), b[1:]...)
	}
	return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// jsonAppender is a result that writes its own JSON, byte for byte what
// successResult makes of json.Marshal's (a test holds each to that),
// without reflection where the result is large: a tree answer's elements.
type jsonAppender interface {
	// appendMembers appends `{"ok":true,`, the result's members (at least
	// one) and its closing brace.
	appendMembers(b []byte) ([]byte, error)
	// sizeHint is about the bytes appendMembers writes.
	sizeHint() int
}

// failure is every tool's failure shape.
type failure struct {
	OK bool `json:"ok"`
	*core.Error
}

// failResult turns an error into a failure result: data the agent can act
// on, with isError set, never a protocol error.
func failResult(err error) *mcp.CallToolResult {
	var shape any = failure{OK: false, Error: core.AsError(err)}
	var shaped shapedFailure
	if errors.As(err, &shaped) {
		shape = shaped.failureShape()
	}
	b, merr := json.Marshal(shape)
	if merr != nil {
		b, _ = json.Marshal(failure{Error: core.Errorf(core.CodeInternal, "an error could not be encoded")})
	}
	return &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// shapedFailure is an error that answers with more than the failure
// shape (run_steps: what ran before the failure); its shape must hold
// "ok": false and the failure's members.
type shapedFailure interface {
	error
	failureShape() any
}

// argSpec is what serveTool checks arguments against: the tool's input
// schema, one resolved schema per argument.
type argSpec struct {
	names    []string // sorted
	required []string
	props    map[string]*jsonschema.Resolved
	types    map[string]string             // what each argument must be, for messages
	schemas  map[string]*jsonschema.Schema // for messages about an array's items
}

func newArgSpec(tool string, s *jsonschema.Schema) *argSpec {
	a := &argSpec{required: s.Required, props: map[string]*jsonschema.Resolved{}, types: map[string]string{}, schemas: map[string]*jsonschema.Schema{}}
	for name, p := range s.Properties {
		r, err := p.Resolve(nil)
		if err != nil {
			panic(fmt.Sprintf("tool %s: argument %s: %v", tool, name, err))
		}
		a.names = append(a.names, name)
		a.props[name] = r
		a.types[name] = describeType(p)
		a.schemas[name] = p
	}
	slices.Sort(a.names)
	return a
}

// itemProblem says which item of an array of objects is wrong and how
// ("" when value is no such array, or no item is wrong): "argument
// steps[3] lacks tool (a string)" rather than that steps must be an array.
func itemProblem(name string, s *jsonschema.Schema, value any) string {
	items, ok := value.([]any)
	if !ok || s == nil || s.Items == nil || len(s.Items.Properties) == 0 {
		return ""
	}
	var members []string
	for m := range s.Items.Properties {
		members = append(members, m)
	}
	slices.Sort(members)
	for i, item := range items {
		obj, ok := item.(map[string]any)
		if !ok {
			return fmt.Sprintf("argument %s[%d] must be an object, not %s", name, i, core.JSONKind(item))
		}
		for _, m := range slices.Sorted(maps.Keys(obj)) {
			p, ok := s.Items.Properties[m]
			if !ok {
				return fmt.Sprintf("argument %s[%d] has an unknown member %s; it takes: %s", name, i, core.Quote(m), strings.Join(members, ", "))
			}
			if r, err := p.Resolve(nil); err == nil && r.Validate(obj[m]) != nil {
				return fmt.Sprintf("argument %s[%d].%s must be %s, not %s", name, i, m, describeType(p), core.JSONKind(obj[m]))
			}
		}
		for _, m := range s.Items.Required {
			if _, ok := obj[m]; !ok {
				return fmt.Sprintf("argument %s[%d] lacks %s (%s)", name, i, m, describeType(s.Items.Properties[m]))
			}
		}
	}
	return ""
}

// describeType says in words what values a schema admits.
func describeType(s *jsonschema.Schema) string {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	var words []string
	for _, t := range types {
		switch t {
		case "array":
			w := "an array"
			if s.Items != nil {
				w += " of " + strings.TrimPrefix(strings.TrimPrefix(describeType(s.Items), "an "), "a ") + "s"
			}
			words = append(words, w)
		case "integer", "object":
			words = append(words, "an "+t)
		case "null":
			words = append(words, "null")
		default:
			words = append(words, "a "+t)
		}
	}
	if len(words) == 0 {
		return "any value"
	}
	return strings.Join(words, " or ")
}

// decode checks raw against the spec and decodes it into in. Messages name
// the argument and what it must be, and never quote a value whole.
func (a *argSpec) decode(raw json.RawMessage, in any) error {
	bad := func(format string, args ...any) error {
		return core.Errorf(core.CodeInvalidArgument, format, args...)
	}
	var fields map[string]json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &fields); err != nil {
			return bad("arguments must be a JSON object")
		}
	}
	for name, v := range fields {
		r, ok := a.props[name]
		if !ok {
			known := "none"
			if len(a.names) > 0 {
				known = strings.Join(a.names, ", ")
			}
			return bad("unknown argument %s; this tool takes: %s", core.Quote(name), known)
		}
		var value any
		if err := json.Unmarshal(v, &value); err != nil {
			return bad("argument %s is not valid JSON", name)
		}
		if err := r.Validate(value); err != nil {
			if msg := itemProblem(name, a.schemas[name], value); msg != "" {
				return bad("%s", msg)
			}
			return bad("argument %s must be %s, not %s", name, a.types[name], core.JSONKind(value))
		}
	}
	for _, name := range a.required {
		if _, ok := fields[name]; !ok {
			return bad("missing argument %s (%s)", name, a.types[name])
		}
	}
	if fields == nil {
		return nil
	}
	if err := json.Unmarshal(raw, in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return bad("argument %s must be %s (in range)", te.Field, a.types[te.Field])
		}
		return bad("arguments could not be read: %s", core.Quote(err.Error()))
	}
	return nil
}

// Output schemas. Every tool's output schema is {"type":"object","anyOf":
// [success, failure]} with additionalProperties open everywhere: clients
// validate every result against it and must tolerate fields added later.
// The success branch is derived from the tool's result struct, so a field
// added to a result is in its schema.

// schemaTypes are shapes For cannot derive alone. An element's children
// (a window's, in the visual tree) are elements, a cycle for For: the element's schema is derived once with
// children described as objects, and used wherever an element appears.
var schemaTypes = map[reflect.Type]*jsonschema.Schema{
	// JSON passed through whole: another tool's answer (run_steps).
	reflect.TypeFor[json.RawMessage](): {Type: "object"},
	reflect.TypeFor[core.Element](): deriveWith[core.Element](map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[[]*core.Element](): {Type: "array", Items: &jsonschema.Schema{Type: "object"}},
	}),
	reflect.TypeFor[core.VisualElement](): deriveWith[core.VisualElement](map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[[]*core.VisualElement](): {Type: "array", Items: &jsonschema.Schema{Type: "object"}},
	}),
}

// derive is For with the package's type schemas, opened.
func derive[T any]() *jsonschema.Schema { return deriveWith[T](schemaTypes) }

func deriveWith[T any](types map[reflect.Type]*jsonschema.Schema) *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		panic(fmt.Sprintf("schema for %v: %v", reflect.TypeFor[T](), err))
	}
	open(s)
	return s
}

// open removes every additionalProperties:false For puts on structs.
func open(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if a := s.AdditionalProperties; a != nil && a.Not != nil && reflect.ValueOf(*a.Not).IsZero() {
		s.AdditionalProperties = nil
	}
	open(s.AdditionalProperties)
	open(s.Items)
	for _, p := range s.Properties {
		open(p)
	}
	for _, list := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf, s.PrefixItems} {
		for _, x := range list {
			open(x)
		}
	}
}

// withOK adds the "ok" property, required, with its constant value.
func withOK(s *jsonschema.Schema, ok bool) *jsonschema.Schema {
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	s.Properties["ok"] = &jsonschema.Schema{Const: jsonschema.Ptr[any](ok)}
	s.Required = append([]string{"ok"}, slices.DeleteFunc(s.Required, func(r string) bool { return r == "ok" })...)
	s.PropertyOrder = append([]string{"ok"}, slices.DeleteFunc(s.PropertyOrder, func(r string) bool { return r == "ok" })...)
	return s
}

// failureSchema is the failure branch every tool shares.
func failureSchema() *jsonschema.Schema {
	s := withOK(derive[failure](), false)
	s.Properties["errorDisposition"].Enum = []any{core.DispositionTerminal, core.DispositionTransient, core.DispositionOwnershipLost}
	return s
}

// outputSchemaFor is the one helper that builds a tool's output schema from
// its success struct.
func outputSchemaFor[Out any]() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{withOK(derive[Out](), true), failureSchema()}}
}
