package platform

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
	"unicode"
)

// TestWellKnownNames: every Role and State constant in platform.go has the
// number of the role or state its identifier names (RoleCheckMenuItem is
// "check menu item", StateManagesDescendants "manages-descendants"), so
// that comparing with a constant is comparing with that name.
func TestWellKnownNames(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "platform.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	roles := []Role{RoleInvalid, RoleAlert, RoleCheckBox, RoleCheckMenuItem, RoleComboBox, RoleDialog, RoleFileChooser,
		RoleFiller, RoleFrame, RoleList, RoleMenu, RoleMenuItem, RolePanel, RolePasswordText, RoleProgressBar,
		RoleRadioButton, RoleRadioMenuItem, RoleScrollBar, RoleTable, RoleToggleButton, RoleUnknown, RoleWindow,
		RoleApplication, RoleDocumentFrame, RoleSection, RoleDocumentWeb, RoleLevelBar}
	states := []State{StateActive, StateChecked, StateDefunct, StateEditable, StateEnabled, StateExpandable,
		StateExpanded, StateFocusable, StateFocused, StateSelectable, StateSelected, StateSensitive, StateShowing,
		StateVisible, StateManagesDescendants, StateCheckable}
	byName := map[string]string{}
	for _, r := range roles {
		byName["Role"+ident(r.String())] = r.String()
	}
	for _, s := range states {
		byName["State"+ident(s.String())] = s.String()
	}
	seen := 0
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			for _, n := range spec.(*ast.ValueSpec).Names {
				id := n.Name
				if !strings.HasPrefix(id, "Role") && !strings.HasPrefix(id, "State") {
					continue
				}
				seen++
				if _, ok := byName[id]; !ok {
					t.Errorf("%s: no role or state of that name has its number (or it is missing from this test's lists)", id)
				}
			}
		}
	}
	if seen != len(roles)+len(states) {
		t.Errorf("platform.go declares %d Role and State constants, the test lists %d: list the new ones", seen, len(roles)+len(states))
	}
}

// ident is a role or state name as the words of an identifier: "check
// menu item" is CheckMenuItem, "manages-descendants" ManagesDescendants.
func ident(name string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' }) {
		r := []rune(w)
		b.WriteRune(unicode.ToUpper(r[0]))
		b.WriteString(string(r[1:]))
	}
	return b.String()
}
