// The gorilla server's check mode (INTEROP_MODE=check, Tests/Interop/README.md): the conformance
// checker's server. Pushes come as `push TEXT` lines on standard input, are kept until
// acknowledged (`ack {id}`), sent in order and again on the next connection; `close CODE` closes
// once what was sent is acknowledged; a client's message is taken once and acknowledged each
// time; the first text frame is the hello; a client's 1009 sets the largest push it was sent aside.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

type checkPush struct{ id, text string }

type checkPeer struct {
	ws        *websocket.Conn
	sent      map[int]bool
	waiting   []int
	first     bool
	closeCode int
	closed    bool
}

var (
	checking bool
	checkMu  sync.Mutex // guards everything below, and every write to a peer's connection
	pushList []checkPush
	ackedSet = map[int]bool{}
	asideSet = map[int]bool{}
	takenSet = map[string]bool{}
	peers    = map[int]*checkPeer{}
	current  int
)

func readCommands() {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	for scanner.Scan() {
		verb, rest, _ := strings.Cut(scanner.Text(), " ")
		checkMu.Lock()
		switch verb {
		case "push":
			var value map[string]any
			id := ""
			if json.Unmarshal([]byte(rest), &value) == nil {
				id, _ = value["id"].(string)
			}
			pushList = append(pushList, checkPush{id, rest})
			if current != 0 {
				deliver(current)
			}
		case "close":
			if n := current; n != 0 {
				code, err := strconv.Atoi(rest)
				if err != nil {
					code = websocket.CloseGoingAway
				}
				peers[n].closeCode = code
				finishClose(n, false)
				time.AfterFunc(5*time.Second, func() {
					checkMu.Lock()
					defer checkMu.Unlock()
					finishClose(n, true)
				})
			}
		}
		checkMu.Unlock()
	}
}

// deliver sends connection n what it may be sent; checkMu is held.
func deliver(n int) {
	peer := peers[n]
	if peer == nil || peer.closeCode != 0 {
		return
	}
	elsewhere := map[int]bool{}
	for other, p := range peers {
		if other != n {
			for _, i := range p.waiting {
				elsewhere[i] = true
			}
		}
	}
	for i, push := range pushList {
		if ackedSet[i] || asideSet[i] || peer.sent[i] || elsewhere[i] {
			continue
		}
		peer.sent[i] = true
		peer.waiting = append(peer.waiting, i)
		peer.ws.WriteMessage(websocket.TextMessage, []byte(push.text))
	}
}

// finishClose sends the close once nothing sent waits (or the wait timed out); checkMu is held.
func finishClose(n int, timedOut bool) {
	peer := peers[n]
	if peer != nil && peer.closeCode != 0 && !peer.closed && (timedOut || len(peer.waiting) == 0) {
		peer.closed = true
		peer.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(peer.closeCode, "going away"))
	}
}

func checkConnection(ws *websocket.Conn, n int) {
	checkMu.Lock()
	peers[n] = &checkPeer{ws: ws, sent: map[int]bool{}, first: true}
	current = n
	deliver(n)
	checkMu.Unlock()
	closeCode := 0
	ws.SetCloseHandler(func(code int, text string) error {
		closeCode = code
		checkMu.Lock()
		defer checkMu.Unlock()
		return ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(time.Second))
	})
	for {
		kind, data, err := ws.ReadMessage()
		if err != nil {
			break
		}
		if kind == websocket.TextMessage {
			received(n, ws, string(data))
		}
	}
	checkMu.Lock()
	defer checkMu.Unlock()
	peer := peers[n]
	delete(peers, n)
	if peer != nil && (closeCode == 1007 || closeCode == 1009) && len(peer.waiting) > 0 {
		largest := peer.waiting[0]
		for _, i := range peer.waiting {
			if len(pushList[i].text) > len(pushList[largest].text) {
				largest = i
			}
		}
		asideSet[largest] = true
	}
	if current == n {
		current = 0
	}
	for other := range peers {
		deliver(other)
	}
}

func received(n int, ws *websocket.Conn, text string) {
	checkMu.Lock()
	defer checkMu.Unlock()
	peer := peers[n]
	if peer.first {
		peer.first = false
		emit(map[string]any{"event": "hello", "connection": n})
		return
	}
	if strings.HasPrefix(text, "ack ") {
		id := strings.TrimPrefix(text, "ack ")
		for index, i := range peer.waiting {
			if pushList[i].id == id {
				peer.waiting = append(peer.waiting[:index], peer.waiting[index+1:]...)
				ackedSet[i] = true
				emit(map[string]any{"event": "ack", "connection": n, "id": id})
				break
			}
		}
		finishClose(n, false)
		return
	}
	var message map[string]any
	if json.Unmarshal([]byte(text), &message) != nil {
		return
	}
	if id, ok := message["id"].(string); ok {
		if !takenSet[id] {
			takenSet[id] = true
			emit(map[string]any{"event": "taken", "id": id})
		}
		ws.WriteMessage(websocket.TextMessage, []byte("received message "+id))
	}
}
