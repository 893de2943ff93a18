package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
)

// rawServer serves New over a lineTransport with maxLine and returns a
// function that writes one raw line and a channel of decoded output lines.
func rawServer(t *testing.T, maxLine int) (send func(string), lines <-chan map[string]any) {
	t.Helper()
	return rawServerOn(t, fakePlatform(), maxLine)
}

func rawServerOn(t *testing.T, desk platform.Desktop, maxLine int) (send func(string), lines <-chan map[string]any) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	srv := New(Config{}, core.NewSessions(desk))
	lt := &lineTransport{in: inR, out: outW, maxLine: maxLine}
	ss, err := srv.Connect(lt.serveContext(ctx), lt, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan map[string]any, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Errorf("output line is not JSON-RPC 2.0: %q", sc.Text())
				continue
			}
			ch <- m
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		ss.Wait()
		cancel()
		outW.Close()
	})
	return func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("writing %.80q: %v", line, err)
		}
	}, ch
}

// next returns the next output line, failing after a generous wait.
func next(t *testing.T, lines <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case m, ok := <-lines:
		if !ok {
			t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(30 * time.Second):
		t.Fatal("no output line within 30 s")
	}
	return nil
}

// TestLineTransportKeepsServing: every line the SDK could not decode gets
// its JSON-RPC error, and the requests between them are answered.
func TestLineTransportKeepsServing(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const maxLine = 4096
		send, lines := rawServer(t, maxLine)
		send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
		if m := next(t, lines); m["id"] != float64(1) || m["result"] == nil {
			t.Fatalf("initialize: %v", m)
		}
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		bad := []struct {
			name, line string
			code       float64
			id         any
		}{
			{"garbage", `this is not json {`, -32700, nil},
			{"truncated object", `{"jsonrpc":"2.0","id":5,"method":"tools/list"`, -32700, nil},
			{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\xfe\"}}", -32700, nil},
			{"two values", `{"a":1} {"b":2}`, -32700, nil},
			{"too long", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 2*maxLine) + `"}}`, -32700, nil},
			{"number", `42`, -32600, nil},
			{"string", `"hello"`, -32600, nil},
			{"batch", `[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]`, -32600, nil},
			{"empty batch", `[]`, -32600, nil},
			{"wrong version", `{"jsonrpc":"1.0","id":10,"method":"tools/list"}`, -32600, float64(10)},
			{"no method no id", `{"jsonrpc":"2.0"}`, -32600, nil},
			{"object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`, -32600, nil},
		}
		for i, b := range bad {
			send(b.line)
			m := next(t, lines)
			e, _ := m["error"].(map[string]any)
			if e == nil || e["code"] != b.code || m["id"] != b.id {
				t.Errorf("%s: want error %v with id %v, got %v", b.name, b.code, b.id, m)
			}
			if msg, _ := e["message"].(string); len(msg) > 200 {
				t.Errorf("%s: error message of %d bytes", b.name, len(msg))
			}
			// The server still answers.
			id := 100 + i
			send(`{"jsonrpc":"2.0","id":` + jsonInt(id) + `,"method":"tools/list"}`)
			if m := next(t, lines); m["id"] != float64(id) || m["result"] == nil {
				t.Fatalf("after %s: want the tools/list answer %d, got %v", b.name, id, m)
			}
		}
		// Blank lines and CRLF endings are not errors.
		send("")
		send("   \r")
		send("{\"jsonrpc\":\"2.0\",\"id\":200,\"method\":\"tools/list\"}\r")
		if m := next(t, lines); m["id"] != float64(200) || m["result"] == nil {
			t.Fatalf("after blank lines: %v", m)
		}
	})
}

func jsonInt(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestEncodeLine: the framed response is the message the SDK would write.
func TestEncodeLine(t *testing.T) {
	t.Parallel()
	id, _ := jsonrpc.MakeID(float64(7))
	sid, _ := jsonrpc.MakeID("abc")
	msgs := []jsonrpc.Message{
		&jsonrpc.Response{ID: id, Result: json.RawMessage(`{"content":[{"type":"text","text":"{\"ok\":true}"}],"structuredContent":{"ok":true}}`)},
		&jsonrpc.Response{ID: sid, Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32602, Message: "bad"}},
		&jsonrpc.Response{ID: id, Result: json.RawMessage("{\n\"a\": 1}")},
		&jsonrpc.Request{ID: id, Method: "ping"},
		&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progress":1}`)},
	}
	for _, m := range msgs {
		got, err := encodeLine(m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[len(got)-1] != '\n' || strings.Count(string(got), "\n") != 1 {
			t.Errorf("%s: not one line: %q", want, got)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%q: %v", got, err)
		}
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("encodeLine = %s, the SDK's encoding = %s", got, want)
		}
	}
}
