package platform

import "testing"

func TestSeenLabel(t *testing.T) {
	for _, c := range []struct {
		name, want string
		ok         bool
	}{
		{"_Save Save", "Save", true},
		{"Replace _All Replace All", "Replace All", true},
		{"_Find Find", "Find", true},
		{"Save _As… Save As…", "Save As…", true},
		{"snake__case _x snake_case x", "snake_case x", true},
		{"Save", "", false},
		{"_Save", "", false},
		{"_Save Open", "", false},
		{"file_name.txt", "", false},
		{"a_b a b", "", false},
		{"Save Save", "Save", true},
		{"Cancel Cancel", "Cancel", true},
		{"Save As Save As", "Save As", true},
		{"Save As", "", false},
		{"a a a", "", false},
		{"_ ", "", false},
		{"", "", false},
	} {
		got, ok := SeenLabel(c.name)
		if got != c.want || ok != c.ok {
			t.Errorf("SeenLabel(%q) = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
