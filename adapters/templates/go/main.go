// Protocol v1 for memspec (JSON Lines on stdin/stdout) around one handler function.
//
//	go build -o memory-backend . && memspec check --backend './memory-backend {memories}'
//
// Replace handle() and reset() in memory.go with your backend; this file only speaks the protocol.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

type request struct {
	ID      json.RawMessage `json:"id"`
	Input   json.RawMessage `json:"input"`
	Control *string         `json:"control"`
}

func main() {
	folder := os.Getenv("MEMSPEC_MEMORIES") // memspec also passes it as the first argument
	if len(os.Args) > 1 {
		folder = os.Args[1]
	}
	if folder == "" {
		fmt.Fprintln(os.Stderr, "usage: memory-backend MEMORIES_FOLDER")
		os.Exit(2)
	}
	if err := open(folder); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			reply(out, line)
		}
		if err == io.EOF {
			return
		} else if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func reply(out *bufio.Writer, line []byte) {
	var req request
	var answer map[string]any
	if err := json.Unmarshal(line, &req); err != nil {
		answer = map[string]any{"id": nil, "content": "Error: the request is not a JSON object", "is_error": true}
	} else if req.Control != nil {
		switch *req.Control {
		case "reset": // forget every memory, keep the folder: one process then serves every case
			answer = map[string]any{"id": req.ID, "ok": reset() == nil}
		case "hello":
			answer = map[string]any{"id": req.ID, "ok": true, "protocol": 1, "backend": "go template"}
		default:
			answer = map[string]any{"id": req.ID, "ok": false}
		}
	} else {
		var input any // any JSON value: malformed inputs reach the handler too
		dec := json.NewDecoder(bytes.NewReader(req.Input))
		dec.UseNumber() // keep integers exact (18446744073709551615), and 2.0 apart from 2
		if len(req.Input) > 0 {
			_ = dec.Decode(&input)
		}
		text, isError := handle(input)
		answer = map[string]any{"id": req.ID, "content": text, "is_error": isError}
	}
	enc := json.NewEncoder(out) // one line, with its "\n"
	enc.SetEscapeHTML(false)
	_ = enc.Encode(answer)
	_ = out.Flush()
}
