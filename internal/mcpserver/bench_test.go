package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// benchDesk is fakeDesk serving one large prebuilt tree: what the server
// does with a fetched tree is measured, not the fetch.
type benchDesk struct {
	fakeDesk
	root  *platform.Node
	nodes int
}

func (d benchDesk) Tree(_ context.Context, app platform.App, _ platform.TreeOptions) (*platform.Node, platform.TreeStats, error) {
	if app.Name != fakeApp {
		return nil, platform.TreeStats{}, platform.ErrAppNotFound
	}
	return d.root, platform.TreeStats{Strategy: "bench", Nodes: d.nodes}, nil
}

// benchTree builds a widget-factory-like tree of about n nodes: panels of
// labelled buttons, check boxes and entries, with bounds, states, actions.
func benchTree(n int) (*platform.Node, int) {
	shown := fake.States("enabled", "sensitive", "showing", "visible", "focusable")
	count := 0
	node := func(role, name string, x, y int) *platform.Node {
		count++
		return &platform.Node{Key: fmt.Sprintf("/org/a11y/atspi/accessible/%d", count), Role: fake.Role(role), Name: name,
			Description: "", States: shown, Bounds: &platform.Rect{X: x, Y: y, Width: 120, Height: 28},
			Interfaces: []string{"accessible", "component", "action"}, Actions: []string{"click"}}
	}
	add := func(p *platform.Node, k *platform.Node) {
		p.Children = append(p.Children, k)
		p.ChildCount = len(p.Children)
	}
	root := &platform.Node{Key: "root", Role: platform.RoleApplication, Name: fakeApp}
	count++
	frame := node("frame", "Widget factory", 0, 0)
	add(root, frame)
	roles := []string{"push button", "check box", "text", "label", "toggle button", "radio button"}
	for p := 0; count < n; p++ {
		panel := node("panel", "", 10, 10+p*40)
		add(frame, panel)
		for i := 0; i < 10 && count < n; i++ {
			add(panel, node(roles[i%len(roles)], fmt.Sprintf("Item %d.%d", p, i), 20+i*130, 10+p*40))
		}
	}
	return root, count
}

// BenchmarkServeTreeJSON measures the MCP layer alone: from a fetched tree
// (served by a fake desktop without work) to the response's bytes written
// on the transport, for a get_a11y_tree json read of the whole tree. The
// metric ms/1000nodes is the figure of merit (the target: at most 3);
// cpu-ms/1000nodes is the CPU time the process spent for it (the server
// and this benchmark's reading of the bytes), steadier on a loaded machine.
func BenchmarkServeTreeJSON(b *testing.B) {
	for _, n := range []int{300, 3000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			root, count := benchTree(n)
			desk := fakePlatform()
			desk.Accessibility = benchDesk{root: root, nodes: count}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			srv := New(Config{}, core.NewSessions(desk))
			t := &lineTransport{in: inR, out: outW, maxLine: MaxLineBytes}
			ss, err := srv.Connect(t.serveContext(ctx), t, nil)
			if err != nil {
				b.Fatal(err)
			}
			out := bufio.NewReaderSize(outR, 1<<20)
			defer func() {
				// A notification the server sends late (the resource list
				// changed after connect) blocks its writer until read: keep
				// reading while it ends.
				go io.Copy(io.Discard, out)
				inW.Close()
				ss.Wait()
				outW.Close()
			}()
			roundTrip := func(req string) []byte {
				if _, err := io.WriteString(inW, req+"\n"); err != nil {
					b.Fatal(err)
				}
				for {
					line, err := out.ReadBytes('\n')
					if err != nil {
						b.Fatal(err)
					}
					// The server's own notifications (a resource list
					// changed after connect) are not the answer.
					if !bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","method":`)) {
						return line
					}
				}
			}
			roundTrip(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
			if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
				b.Fatal(err)
			}
			conn := roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"connect","arguments":{"pid":%d}}}`, os.Getpid()))
			var connected struct {
				Result struct {
					StructuredContent struct {
						Session string `json:"session"`
					} `json:"structuredContent"`
				} `json:"result"`
			}
			if err := json.Unmarshal(conn, &connected); err != nil || connected.Result.StructuredContent.Session == "" {
				b.Fatalf("connect: %s", conn)
			}
			req := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_a11y_tree","arguments":{"session":%q,"format":"json","maxNodes":100000,"maxBytes":100000000}}}`, connected.Result.StructuredContent.Session)
			first := roundTrip(req)
			if !bytes.Contains(first, []byte(`"ok":true`)) || !bytes.Contains(first, []byte(fmt.Sprintf(`"nodeCount":%d`, count))) {
				b.Fatalf("get_a11y_tree: %.500s", first)
			}
			// The timed calls' answers (the same as the first, checked
			// above) are counted, not kept: the client's part is reading
			// the bytes.
			discard := func() int {
				n := 0
				for {
					chunk, err := out.ReadSlice('\n')
					n += len(chunk)
					if err == nil {
						return n
					}
					if err != bufio.ErrBufferFull {
						b.Fatal(err)
					}
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			bytesOut := 0
			for range b.N {
				if _, err := io.WriteString(inW, req+"\n"); err != nil {
					b.Fatal(err)
				}
				bytesOut += discard()
			}
			b.StopTimer()
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/1e6/float64(b.N)/float64(count)*1000, "cpu-ms/1000nodes")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/float64(count)*1000, "ms/1000nodes")
			b.ReportMetric(float64(bytesOut)/float64(b.N), "bytes/op")
		})
	}
}
