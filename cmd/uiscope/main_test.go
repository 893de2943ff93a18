package main

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
)

func runCapture(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}

func TestDispatch(t *testing.T) {
	if code, _, errs := runCapture(); code != 2 || !strings.Contains(errs, "usage: uiscope") {
		t.Errorf("no command: exit %d, %q", code, errs)
	}
	if code, _, errs := runCapture("frobnicate"); code != 2 || !strings.Contains(errs, "unknown command") {
		t.Errorf("unknown command: exit %d, %q", code, errs)
	}
	for _, name := range []string{"apps", "tree", "find", "props", "doctor", "demo", "sandbox", "mcp"} {
		if _, ok := commands[name]; !ok {
			t.Errorf("command %q is not registered", name)
		}
		if code, out, _ := runCapture(name, "--no-such-flag"); code != 2 || out != "" {
			t.Errorf("%s with a bad flag: exit %d, stdout %q; want 2 and nothing on stdout", name, code, out)
		}
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "[::]:0", "example.com:0"} {
		if code, _, errs := runCapture("mcp", "--http", addr); code != 2 || !strings.Contains(errs, "--http "+addr) {
			t.Errorf("mcp --http %s: exit %d, %q; want 2 and a refusal", addr, code, errs)
		}
	}
	if code, _, errs := runCapture("mcp", "--http-unsafe-bind"); code != 2 || !strings.Contains(errs, "needs --http") {
		t.Errorf("mcp --http-unsafe-bind alone: exit %d, %q", code, errs)
	}
	if code, _, errs := runCapture("mcp", "--launch", "xterm"); code != 2 || !strings.Contains(errs, "--sandbox") {
		t.Errorf("mcp --launch without --sandbox: exit %d, %q", code, errs)
	}
	if code, _, errs := runCapture("mcp", "--desktop", "sway"); code != 2 || !strings.Contains(errs, "--desktop needs --sandbox") {
		t.Errorf("mcp --desktop without --sandbox: exit %d, %q", code, errs)
	}
}

func TestSplitWords(t *testing.T) {
	cases := map[string][]string{
		`gtk3-widget-factory`:          {"gtk3-widget-factory"},
		`python3 app.py --title 'a b'`: {"python3", "app.py", "--title", "a b"},
		`sh -c "echo \"hi\" \$X"`:      {"sh", "-c", `echo "hi" $X`},
		`a\ b  c`:                      {"a b", "c"},
		``:                             nil,
	}
	for in, want := range cases {
		got, err := splitWords(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`'open`, `"open`, `trailing\`} {
		if _, err := splitWords(bad); err == nil {
			t.Errorf("splitWords(%q): no error", bad)
		}
	}
}

// FuzzSplitWords: --launch parsing never panics, and words without quotes
// or backslashes survive a round trip.
func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{`a b`, `'x y' "z"`, `a\ b`, `"\\"`, `'`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := splitWords(s)
		if err != nil {
			return
		}
		for _, w := range words {
			if w == "" || strings.ContainsAny(w, " \t\n'\"\\") {
				continue
			}
			again, err := splitWords(w)
			if err != nil || len(again) != 1 || again[0] != w {
				t.Fatalf("word %q of %q does not round-trip: %q %v", w, s, again, err)
			}
		}
	})
}
