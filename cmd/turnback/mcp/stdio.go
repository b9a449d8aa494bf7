package mcp

// The stdio transport: newline-delimited JSON-RPC on stdin and stdout,
// as the SDK's StdioTransport, but a line that is not a request (not
// JSON, an id that is an array, a batch) is answered with JSON-RPC's
// error and the server goes on; at the end of input, the calls already
// read are answered before Read reports it.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one message (the SDK's default).
const maxLine = sdk.DefaultMaxLineLength

// LineTransport serves on In and Out (stdin and stdout).
type LineTransport struct {
	In  io.Reader
	Out io.Writer
}

// Connect starts reading In.
func (t *LineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{out: t.Out, msgs: make(chan jsonrpc.Message), done: make(chan struct{}),
		drained: make(chan struct{}), pending: map[jsonrpc.ID]bool{}}
	go c.readLoop(t.In)
	return c, nil
}

type lineConn struct {
	out  io.Writer
	wmu  sync.Mutex // one message a Write
	msgs chan jsonrpc.Message
	done chan struct{} // closed by Close
	once sync.Once

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // calls read and not yet answered
	eof     bool                // In has ended
	drained chan struct{}       // closed once eof and nothing pending
}

// readLoop reads In line by line until it ends.
func (c *lineConn) readLoop(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if tooLong {
			c.fail(nil, jsonrpc.CodeParseError, "parse error: a message is over 16 MiB")
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			if msg := c.decode(line); msg != nil {
				select {
				case c.msgs <- msg:
				case <-c.done:
					return
				}
			}
		}
		if err != nil {
			break
		}
	}
	c.mu.Lock()
	c.eof = true
	c.settle()
	c.mu.Unlock()
	close(c.msgs)
}

// readLine reads one line (its newline dropped); tooLong: it was over
// maxLine and is skipped.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		part, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, part...)
			if len(line) > maxLine {
				tooLong, line = true, nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// decode returns the message of one line, or nil after answering a
// line that is not one with its error.
func (c *lineConn) decode(line []byte) jsonrpc.Message {
	if !json.Valid(line) {
		c.fail(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
		return nil
	}
	switch line[0] {
	case '[':
		c.fail(nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported")
		return nil
	case '{':
	default:
		c.fail(nil, jsonrpc.CodeInvalidRequest, "invalid request: a request is a JSON object")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		var id json.RawMessage // null unless the id is a string or number
		why := err.Error()
		if json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 {
			switch b := probe.ID[0]; {
			case b == '"' || b == '-' || b >= '0' && b <= '9':
				id = probe.ID
			case b != 'n':
				why = "the id must be a string, a number or null"
			}
		}
		c.fail(id, jsonrpc.CodeInvalidRequest, "invalid request: "+why)
		return nil
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.pending[req.ID] = true
		c.mu.Unlock()
	}
	return msg
}

// fail writes an error response with id (nil: null).
func (c *lineConn) fail(id json.RawMessage, code int64, msg string) {
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	resp.JSONRPC, resp.ID = "2.0", id
	if id == nil {
		resp.ID = json.RawMessage("null")
	}
	resp.Error.Code, resp.Error.Message = code, msg
	data, err := json.Marshal(resp)
	if err == nil {
		_ = c.write(data)
	}
}

func (c *lineConn) write(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// settle closes drained once In has ended and every call is answered
// (c.mu held).
func (c *lineConn) settle() {
	if c.eof && len(c.pending) == 0 {
		select {
		case <-c.drained:
		default:
			close(c.drained)
		}
	}
}

// Read returns the next message; at the end of input, io.EOF once the
// calls read are answered.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg, ok := <-c.msgs:
		if ok {
			return msg, nil
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.done:
		return nil, io.EOF
	}
	select {
	case <-c.drained:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.done:
	}
	return nil, io.EOF
}

// Write writes msg as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.write(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		c.settle()
		c.mu.Unlock()
	}
	return err
}

// Close stops reading (a read of In already under way ends with it).
func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
