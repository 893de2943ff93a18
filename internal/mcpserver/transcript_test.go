package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
	"github.com/uiscope/uiscope/internal/security"
)

// Transcript tests: JSON-RPC exchanges with the server, kept in txtar files
// under testdata/transcripts, one per tool (gopls's MCP tests are the
// model) and two for the protocol itself (initialize, protocol). Each file
// has a comment, an optional "config" section ("allowInput"), a "client"
// section — the lines sent, one message (or one malformed line) per line,
// as the stdio transport reads them — and a "server" section: every
// message the server wrote, indented. Run with -update to rewrite the
// server sections, and review the diff.
//
// The server is the real one over the stdio framing (lineTransport), on
// pipes, with the fixture app of server_test.go on platform/fake, so the
// transcripts run on every system. What varies from run to run is
// normalized: session ids ($S1, $S2… in the order they appear; the client
// lines use the same names), the fixture's pid ($PID) and executable
// ($EXE), durations (0), the instructions (their file name), a tool
// result's text block once checked equal to its structuredContent,
// tools/list's schemas (testdata/tools holds them). Notifications the
// server sends on its own (list changed) are left out: when they come is
// the SDK's debounce.

// The fixture's process, as the fake desktop knows it.
const (
	transcriptPid = 4242
	transcriptExe = "/usr/bin/fixture"
)

// transcriptDesk is the fixture app (fakeTree) and its window on
// platform/fake, with the two parts fakeDesk has: accessibility, and
// processes.
func transcriptDesk() platform.Desktop {
	d := fake.New()
	d.AddApp(fake.App{Pid: transcriptPid, Name: fakeApp, Executable: transcriptExe, Toolkit: "GTK", ToolkitVersion: "3.24", Tree: fakeTree()})
	d.AddWindow(transcriptPid, "Fake fixture", platform.Rect{Width: 400, Height: 300})
	return platform.Desktop{Accessibility: d, Processes: loadsNothing{d}}
}

// loadsNothing is the fake's processes with no toolkit library loaded in
// any: connect names only the toolkit the tree reports.
type loadsNothing struct{ *fake.Desktop }

func (loadsNothing) Frameworks(context.Context, int) ([]platform.Framework, error) { return nil, nil }

func TestTranscripts(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata/transcripts")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) { runTranscript(t, path) })
	}
}

func runTranscript(t *testing.T, path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(raw)
	client, ok := section(ar, "client")
	if !ok {
		t.Fatalf("%s has no client section", path)
	}
	var cfg Config
	if c, _ := section(ar, "config"); strings.Contains(string(c), "allowInput") {
		cfg.Caps = security.Input
	}

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lt := &lineTransport{in: inR, out: outW, maxLine: 1 << 20}
	ss, err := New(cfg, core.NewSessions(transcriptDesk())).Connect(lt.serveContext(ctx), lt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { inW.Close(); ss.Wait(); outW.Close() }()
	lines := make(chan []byte, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- bytes.Clone(sc.Bytes())
		}
	}()

	var got bytes.Buffer
	sessions := map[string]string{} // real id → $Sn
	for _, line := range strings.Split(string(client), "\n") {
		line = strings.ReplaceAll(line, "$PID", fmt.Sprint(transcriptPid))
		for real, name := range sessions {
			line = strings.ReplaceAll(line, name, real)
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		for n := expectedReplies(line); n > 0; {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the server closed its output after %q", line)
				}
				if isNotification(l) {
					continue
				}
				got.Write(normalize(t, l, sessions))
				n--
			case <-time.After(30 * time.Second):
				t.Fatalf("no reply to %.200q within 30 s", line)
			}
		}
	}

	server, _ := section(ar, "server")
	if *update {
		setSection(ar, "server", got.Bytes())
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got.Bytes(), server) {
		t.Errorf("%s: the server's messages differ (run with -update if the change is intended, and review the diff):\n got:\n%s\nwant:\n%s", path, got.Bytes(), server)
	}
}

// isNotification tells a message the server sends on its own (a list
// changed): when it comes is the SDK's debounce, so transcripts leave it out.
func isNotification(line []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(line, &m) == nil && m.Method != "" && m.ID == nil
}

// expectedReplies is how many messages the server answers a line with: one
// for a request or a line that is no message, none for a notification or
// a response.
func expectedReplies(line string) int {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &m) != nil || m == nil {
		return 1
	}
	_, hasID := m["id"]
	_, hasMethod := m["method"]
	if hasMethod && !hasID {
		return 0
	}
	if !hasMethod && hasID && (m["result"] != nil || m["error"] != nil) {
		return 0
	}
	return 1
}

// normalize indents one server message with what varies replaced.
func normalize(t *testing.T, line []byte, sessions map[string]string) []byte {
	t.Helper()
	var msg struct {
		Result struct {
			StructuredContent struct {
				Session string `json:"session"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &msg); err != nil {
		t.Fatalf("the server wrote a line that is not JSON: %q", line)
	}
	if id := msg.Result.StructuredContent.Session; id != "" && sessions[id] == "" {
		sessions[id] = fmt.Sprintf("$S%d", len(sessions)+1)
	}
	text := string(line)
	for real, name := range sessions {
		text = strings.ReplaceAll(text, real, name)
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch {
				case k == "pid" && x == float64(transcriptPid):
					v[k] = "$PID"
				case k == "executable" && x == transcriptExe:
					v[k] = "$EXE"
				case k == "ms" || k == "waitedMs":
					v[k] = 0
				case k == "instructions" && x == instructions:
					v[k] = "(instructions.md)"
				default:
					v[k] = walk(x)
				}
			}
			// tools/list: names only, the schemas are in testdata/tools.
			if tools, ok := v["tools"].([]any); ok {
				for i, tool := range tools {
					if m, ok := tool.(map[string]any); ok && m["inputSchema"] != nil {
						tools[i] = m["name"]
					}
				}
			}
			// A tool result: its text block is its structuredContent.
			if sc, ok := v["structuredContent"]; ok {
				if content, _ := v["content"].([]any); len(content) == 1 {
					if tc, _ := content[0].(map[string]any); tc["type"] == "text" {
						var text any
						if json.Unmarshal([]byte(tc["text"].(string)), &text) == nil && jsonEqual(walk(text), sc) {
							tc["text"] = "(= structuredContent)"
						}
					}
				}
			}
			return v
		case []any:
			for i, x := range v {
				v[i] = walk(x)
			}
			return v
		}
		return v
	}
	out, err := json.MarshalIndent(walk(v), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// section is the data of an archive's file name.
func section(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// setSection replaces the data of an archive's file name, or adds it.
func setSection(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}
