package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPGuardFlags: bad values of the guard's flags are refused before
// anything is served, saying what is wrong, and stdout stays empty.
func TestMCPGuardFlags(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open.jsonl")
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--allow-input=mouse"}, "unknown capability"},
		{[]string{"--rate-limit", "typing=3/min"}, "unknown class"},
		{[]string{"--rate-limit", "actions=lots"}, "whole number"},
		{[]string{"--apps", " , "}, "at least one pattern"},
		{[]string{"--consent", "maybe"}, "off or prompt"},
		{[]string{"--audit-log", open}, "0644"},
		{[]string{"--audit-log", filepath.Join(dir, "missing", "audit.jsonl")}, "audit log"},
	} {
		code, out, errs := runCapture(append([]string{"mcp"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.says) {
			t.Errorf("mcp %v: exit %d, stdout %q, stderr %q; want 2 saying %q", c.args, code, out, errs, c.says)
		}
	}
}
