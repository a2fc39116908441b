// gorilla_server is the interop server program for Go's github.com/gorilla/websocket
// (Debian golang-github-gorilla-websocket-dev, built in GOPATH mode). It plays the scenario
// of Tests/Interop/README.md: read that for the environment, the events and the messages.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

type message struct{ id, text string }

var (
	path     = os.Getenv("INTEROP_PATH")
	start    = time.Now() // "t" is monotonic seconds since start
	messages []message    // the send order of connection 1: frag, p1 … pN
	half     int          // frag and p1 … pN/2 are messages[:half]
	upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

	mu          sync.Mutex // guards connections and acked
	connections int
	acked       = map[string]bool{}
)

// emit prints one event as a JSON line (os.Stdout is unbuffered).
func emit(event map[string]any) {
	event["t"] = time.Since(start).Seconds()
	line, _ := json.Marshal(event)
	os.Stdout.Write(append(line, '\n'))
}

// header is a request header as received (lines joined with ", "), or nil for JSON null.
func header(values []string) any {
	if len(values) == 0 {
		return nil
	}
	return strings.Join(values, ", ")
}

func isAcked(id string) bool {
	mu.Lock()
	defer mu.Unlock()
	return acked[id]
}

func allAcked(batch []message) bool {
	for _, m := range batch {
		if !isAcked(m.id) {
			return false
		}
	}
	return true
}

// writeFrame writes one unmasked frame of 126…65535 payload bytes in a single Write. gorilla
// cuts a message into frames only at its write buffer size, which cannot give the 1000, 1000,
// rest split, so the fragmented message bypasses it. Every write to a connection happens on
// its handler goroutine (gorilla runs the ping handler inside ReadMessage), so none overlap.
func writeFrame(ws *websocket.Conn, finAndOpcode byte, payload []byte) error {
	conn := ws.UnderlyingConn()
	conn.SetWriteDeadline(time.Time{}) // gorilla's pong replies leave a deadline behind
	_, err := conn.Write(append([]byte{finAndOpcode, 126, byte(len(payload) >> 8), byte(len(payload))}, payload...))
	return err
}

// send writes the messages of batch that are not acknowledged yet, in order.
func send(ws *websocket.Conn, batch []message) (err error) {
	for _, m := range batch {
		text := []byte(m.text)
		switch {
		case isAcked(m.id):
		case m.id == "frag":
			err = writeFrame(ws, 0x01, text[:1000]) // text, FIN clear
			if err == nil {
				err = writeFrame(ws, 0x00, text[1000:2000]) // continuation, FIN clear
			}
			if err == nil {
				err = writeFrame(ws, 0x80, text[2000:]) // continuation, FIN set
			}
		default:
			err = ws.WriteMessage(websocket.TextMessage, text)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// segments are a request target's path segments, each percent-decoded (a client may encode any
// byte of a segment).
func segments(target string) []string {
	parts := strings.Split(strings.SplitN(target, "?", 2)[0], "/")
	for i, part := range parts {
		if decoded, err := url.PathUnescape(part); err == nil {
			parts[i] = decoded
		}
	}
	return parts
}

func samePath(target string) bool {
	a, b := segments(target), segments(path)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func serve(w http.ResponseWriter, r *http.Request) {
	if !samePath(r.RequestURI) { // the raw request target, each segment decoded
		emit(map[string]any{"event": "rejected"})
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // gorilla has answered with an HTTP error
	}
	defer ws.Close()
	mu.Lock()
	connections++
	n := connections
	mu.Unlock()
	// net/http moves Transfer-Encoding from r.Header to r.TransferEncoding.
	emit(map[string]any{"event": "open", "connection": n, "protocol": header(r.Header.Values("Sec-WebSocket-Protocol")),
		"x_interop": header(r.Header.Values("X-Interop")), "content_length": header(r.Header.Values("Content-Length")),
		"transfer_encoding": header(r.TransferEncoding)})
	ws.SetPongHandler(func(payload string) error {
		emit(map[string]any{"event": "pong", "connection": n, "payload": payload})
		return nil
	})
	if checking {
		checkConnection(ws, n)
		return
	}

	first := messages // connection n >= 2: every message not acknowledged yet
	if n == 1 {
		first = messages[:half]
	}
	err = ws.WriteControl(websocket.PingMessage, []byte(fmt.Sprintf("ping-%d", n)), time.Time{})
	if err == nil {
		err = send(ws, first)
	}
	done := false // connection 1: the rest sent and closed; n >= 2: complete printed
	for err == nil {
		if !done && n == 1 && allAcked(messages[:half]) {
			done = true
			err = send(ws, messages[half:])
			if err == nil {
				err = ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "going away"))
			}
			if err == nil {
				emit(map[string]any{"event": "closing", "connection": 1})
			}
		} else if !done && n >= 2 && allAcked(messages) {
			done = true
			emit(map[string]any{"event": "complete", "connection": n})
		}
		var kind int
		var data []byte
		if kind, data, err = ws.ReadMessage(); err == nil && kind == websocket.TextMessage {
			if verb, id, _ := strings.Cut(string(data), " "); verb == "ack" && id != "" {
				mu.Lock()
				acked[id] = true
				mu.Unlock()
				emit(map[string]any{"event": "ack", "connection": n, "id": id})
			} else {
				emit(map[string]any{"event": "text", "connection": n, "text": string(data)})
			}
		}
	}
	log.Printf("connection %d: %v", n, err)
}

func main() {
	if os.Getenv("INTEROP_MODE") == "check" {
		checking = true
		go readCommands()
	}
	pushes, _ := strconv.Atoi(os.Getenv("INTEROP_PUSHES"))
	if sub := os.Getenv("INTEROP_SUBPROTOCOL"); sub != "" {
		upgrader.Subprotocols = []string{sub} // selected only when the client offers it
	}
	body := strings.Repeat("0123456789", 300)
	messages = append(messages, message{"frag", `{"id":"frag","title":"fragmented","body":"` + body + `"}`})
	for i := 1; i <= pushes; i++ {
		messages = append(messages, message{fmt.Sprintf("p%d", i),
			fmt.Sprintf(`{"id":"p%d","title":"push %d","body":"interop push %d"}`, i, i, i)})
	}
	half = 1 + pushes/2

	listener, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("INTEROP_PORT"))
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(listener, http.HandlerFunc(serve))
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
