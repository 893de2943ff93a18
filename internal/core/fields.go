package core

import "slices"

// FieldKey names the element field a read leaves out unless asked for:
// the durable key. Refs name elements for a session; a key, 40 to 90
// bytes on every element, is for what outlives it (a CLI command passing
// an element to the next, a platform-level check).
const FieldKey = "key"

// Fields are the optional element fields a read asks for (FieldKey).
type Fields []string

// Validate checks that each field is one an element can carry.
func (f Fields) Validate() error {
	for _, name := range f {
		if name != FieldKey {
			return Errorf(CodeInvalidArgument, "fields may hold %q, not %s", FieldKey, Quote(name))
		}
	}
	return nil
}

// Key reports whether the durable key is asked for.
func (f Fields) Key() bool { return slices.Contains(f, FieldKey) }

// trim leaves out of els, and of their children, the fields not asked for.
func (f Fields) trim(els ...*Element) {
	if f.Key() {
		return
	}
	for _, e := range els {
		if e != nil {
			e.Key = ""
			f.trim(e.Children...)
		}
	}
}
