package mcpserver

import (
	"context"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// memTransports are the two ends of a connection that hands each message
// over as the value written, where mcp.NewInMemoryTransports writes it as
// a line of JSON on a pipe for the other end to scan and decode again. The
// message's params or result are JSON already (the SDK encodes them before
// it writes), so the other end decodes the bytes a stream would carry;
// only the framing is left out, which is the stdio transport's to test
// (transport_test.go, the transcripts) and costs the tests' large answers
// three more passes over their bytes.
func memTransports() (mcp.Transport, mcp.Transport) {
	ab, ba := make(chan jsonrpc.Message), make(chan jsonrpc.Message)
	p := &memPipe{done: make(chan struct{})}
	return &memTransport{&memConn{pipe: p, in: ba, out: ab}}, &memTransport{&memConn{pipe: p, in: ab, out: ba}}
}

// memPipe is what both ends share: closing either end closes both, as
// closing one end of a pipe ends the other's reads.
type memPipe struct {
	once sync.Once
	done chan struct{}
}

type memTransport struct{ conn *memConn }

func (t *memTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

type memConn struct {
	pipe *memPipe
	in   <-chan jsonrpc.Message
	out  chan<- jsonrpc.Message
}

func (c *memConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.pipe.done:
		return nil, io.EOF
	case m := <-c.in:
		return m, nil
	}
}

func (c *memConn) Write(ctx context.Context, m jsonrpc.Message) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.pipe.done:
		return io.ErrClosedPipe
	case c.out <- m:
		return nil
	}
}

func (c *memConn) Close() error {
	c.pipe.once.Do(func() { close(c.pipe.done) })
	return nil
}

func (c *memConn) SessionID() string { return "" }
