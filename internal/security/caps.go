package security

import (
	"fmt"
	"strings"
)

// Caps is a set of capabilities. Inspection (reading trees, properties,
// windows) is what every server grants; Interact (pointer and semantic
// actions: click, invoke, set_value, window actions...) and Keyboard (real
// keystrokes: type_text, press_key, and a set_value that has to type) are
// granted apart, so that a server may click but never type.
type Caps uint8

const (
	Inspect Caps = 1 << iota
	Interact
	Keyboard

	// Input is what --allow-input alone grants.
	Input = Interact | Keyboard
)

// capNames in the order they are listed.
var capNames = []struct {
	c    Caps
	name string
}{{Inspect, "inspect"}, {Interact, "interact"}, {Keyboard, "keyboard"}}

// Has reports whether c holds every capability of want.
func (c Caps) Has(want Caps) bool { return c&want == want }

// Names lists the capabilities in c.
func (c Caps) Names() []string {
	out := []string{}
	for _, n := range capNames {
		if c.Has(n.c) {
			out = append(out, n.name)
		}
	}
	return out
}

func (c Caps) String() string {
	if c == 0 {
		return "none"
	}
	return strings.Join(c.Names(), "+")
}

// ParseInput reads the value of --allow-input: empty or "true" grants
// interact and keyboard, "false" nothing, else a comma-separated list of
// "interact" and "keyboard".
func ParseInput(v string) (Caps, error) {
	switch strings.TrimSpace(strings.ToLower(v)) {
	case "", "true", "1", "all":
		return Input, nil
	case "false", "0", "none":
		return 0, nil
	}
	var c Caps
	for _, w := range strings.Split(v, ",") {
		switch strings.TrimSpace(strings.ToLower(w)) {
		case "interact":
			c |= Interact
		case "keyboard":
			c |= Keyboard
		default:
			return 0, fmt.Errorf("unknown capability %q: give interact, keyboard or both (interact,keyboard)", strings.TrimSpace(w))
		}
	}
	return c, nil
}

// Require refuses unless have holds need; what names the operation for
// the message ("typing", "clicking").
func Require(have, need Caps, what string) error {
	if have.Has(need) {
		return nil
	}
	missing := need &^ have
	switch {
	case have&Input == 0:
		return refuse(CodeInputNotAllowed, "%s needs the %s capability and the server grants none to act: it runs without --allow-input", what, missing)
	case missing == Keyboard:
		return refuse(CodeInputNotAllowed, "%s needs the keyboard capability, which the server does not grant (it runs with --allow-input=%s, no keystrokes); use the semantic tools instead", what, strings.Join((have&Input).Names(), ","))
	default:
		return refuse(CodeInputNotAllowed, "%s needs the %s capability, which the server does not grant (it grants %s)", what, missing, have)
	}
}
