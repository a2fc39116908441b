// Interop server for the Node.js `ws` stack (Debian node-ws, /usr/share/nodejs/ws).
// Plays the scenario of Tests/Interop/README.md: settings from INTEROP_* environment
// variables, one JSON event per line on stdout. Run as:
//   NODE_PATH=/usr/share/nodejs node Tests/Interop/servers/ws_server.js
'use strict';
const http = require('http');
const { WebSocketServer } = require('ws');

const PORT = Number(process.env.INTEROP_PORT);
const PATH = process.env.INTEROP_PATH;
const N = Number(process.env.INTEROP_PUSHES || 200);
const SUBPROTOCOL = process.env.INTEROP_SUBPROTOCOL;

const t0 = process.hrtime.bigint();
function emit(event, fields) {
  const t = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stdout.write(JSON.stringify({ event, t, ...fields }) + '\n');
}

// Messages in the send order of connection 1: frag, p1 ... pN.
const FRAG = JSON.stringify({ id: 'frag', title: 'fragmented', body: '0123456789'.repeat(300) });
const messages = [{ id: 'frag', text: FRAG }];
for (let i = 1; i <= N; i++) {
  messages.push({ id: `p${i}`, text: JSON.stringify({ id: `p${i}`, title: `push ${i}`, body: `interop push ${i}` }) });
}
const firstHalf = messages.slice(0, 1 + N / 2);
const secondHalf = messages.slice(1 + N / 2);
const acked = new Set();
let connections = 0;
let secondHalfSent = false;

function sendMessage(ws, m) {
  if (m.id !== 'frag') return ws.send(m.text);
  // ASCII only, so characters are bytes: text (FIN clear), continuation (FIN clear), continuation (FIN set).
  ws.send(m.text.slice(0, 1000), { fin: false });
  ws.send(m.text.slice(1000, 2000), { fin: false });
  ws.send(m.text.slice(2000), { fin: true });
}

const wss = new WebSocketServer({
  noServer: true,
  handleProtocols: (offered) => (SUBPROTOCOL && offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
});

function onConnection(ws, req) {
  const n = ++connections;
  if (check) {
    emit('open', { connection: n });
    return checkConnection(ws, n);
  }
  const header = (name) => (req.headers[name] === undefined ? null : req.headers[name]);
  emit('open', {
    connection: n,
    protocol: header('sec-websocket-protocol'),
    x_interop: header('x-interop'),
    content_length: header('content-length'),
    transfer_encoding: header('transfer-encoding'),
  });
  let completed = false;
  const checkComplete = () => {
    if (n >= 2 && !completed && messages.every((m) => acked.has(m.id))) {
      completed = true;
      emit('complete', { connection: n });
    }
  };
  ws.on('message', (data, isBinary) => {
    if (isBinary) return console.error(`connection ${n}: binary message of ${data.length} bytes`);
    const text = data.toString('utf8');
    const match = /^ack (.*)$/s.exec(text);
    if (!match) return emit('text', { connection: n, text });
    acked.add(match[1]);
    emit('ack', { connection: n, id: match[1] });
    if (n === 1 && !secondHalfSent && firstHalf.every((m) => acked.has(m.id))) {
      secondHalfSent = true;
      secondHalf.forEach((m) => sendMessage(ws, m));
      ws.close(1001, 'going away');
      emit('closing', { connection: 1 });
    }
    checkComplete();
  });
  ws.on('pong', (data) => emit('pong', { connection: n, payload: data.toString('utf8') }));
  ws.on('close', (code, reason) => console.error(`connection ${n} closed: ${code} ${reason}`));
  ws.on('error', (err) => console.error(`connection ${n} error: ${err.message}`));

  ws.ping(`ping-${n}`);
  if (n === 1) firstHalf.forEach((m) => sendMessage(ws, m));
  else messages.filter((m) => !acked.has(m.id)).forEach((m) => sendMessage(ws, m));
  checkComplete();
}

// The path's segments compared percent-decoded (a client may encode any byte of a segment).
const segments = (path) => path.split('?')[0].split('/').map((segment) => {
  try { return decodeURIComponent(segment); } catch (e) { return segment; }
});
const samePath = (req) => JSON.stringify(segments(req.url)) === JSON.stringify(segments(PATH));

// INTEROP_MODE=check (README.md): the conformance checker's server. Pushes come as `push TEXT`
// lines on standard input, are kept until acknowledged (`ack {id}`), sent in order and again on
// the next connection; `close CODE` closes once what was sent is acknowledged; a client's message
// is taken once and acknowledged each time; the first text frame is the hello; a client's 1009
// sets the largest push it was sent aside.
const check = process.env.INTEROP_MODE === 'check' ? {
  pushes: [], acked: new Set(), setAside: new Set(), taken: new Set(), peers: new Map(), current: null,
} : null;

function checkDeliver(n) {
  const state = check.peers.get(n);
  if (!state || state.closeCode !== null) return;
  const elsewhere = new Set();
  for (const [other, s] of check.peers) if (other !== n) s.waiting.forEach((i) => elsewhere.add(i));
  check.pushes.forEach((push, i) => {
    if (check.acked.has(i) || check.setAside.has(i) || state.sent.has(i) || elsewhere.has(i)) return;
    state.sent.add(i);
    state.waiting.push(i);
    state.ws.send(push.text);
  });
}

function checkFinishClose(n, timedOut) {
  const state = check.peers.get(n);
  if (state && state.closeCode !== null && !state.closed && (timedOut || state.waiting.length === 0)) {
    state.closed = true;
    state.ws.close(state.closeCode, 'going away');
  }
}

function checkConnection(ws, n) {
  check.peers.set(n, { ws, sent: new Set(), waiting: [], first: true, closeCode: null, closed: false });
  check.current = n;
  ws.on('message', (data, isBinary) => {
    const state = check.peers.get(n);
    if (isBinary || !state) return;
    const text = data.toString('utf8');
    if (state.first) {
      state.first = false;
      return emit('hello', { connection: n });
    }
    const match = /^ack (.*)$/s.exec(text);
    if (match) {
      const index = state.waiting.findIndex((i) => check.pushes[i].id === match[1]);
      if (index >= 0) {
        check.acked.add(state.waiting.splice(index, 1)[0]);
        emit('ack', { connection: n, id: match[1] });
      }
      return checkFinishClose(n, false);
    }
    let message = null;
    try { message = JSON.parse(text); } catch (e) { return; }
    if (message && typeof message === 'object' && !Array.isArray(message) && typeof message.id === 'string') {
      if (!check.taken.has(message.id)) {
        check.taken.add(message.id);
        emit('taken', { id: message.id });
      }
      ws.send(`received message ${message.id}`);
    }
  });
  ws.on('close', (code) => {
    const state = check.peers.get(n);
    check.peers.delete(n);
    if (state && (code === 1007 || code === 1009) && state.waiting.length) {
      const largest = state.waiting.reduce((a, b) => (check.pushes[b].text.length > check.pushes[a].text.length ? b : a));
      check.setAside.add(largest);
    }
    if (check.current === n) check.current = null;
    for (const other of check.peers.keys()) checkDeliver(other);
  });
  ws.on('error', (err) => console.error(`connection ${n} error: ${err.message}`));
  checkDeliver(n);
}

if (check) {
  require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
    const space = line.indexOf(' ');
    const verb = space < 0 ? line : line.slice(0, space);
    const rest = space < 0 ? '' : line.slice(space + 1);
    if (verb === 'push') {
      let id = null;
      try { id = JSON.parse(rest).id; } catch (e) { /* not JSON: no id */ }
      check.pushes.push({ id, text: rest });
      if (check.current !== null) checkDeliver(check.current);
    } else if (verb === 'close' && check.current !== null) {
      const n = check.current;
      check.peers.get(n).closeCode = Number(rest || 1001);
      checkFinishClose(n, false);
      setTimeout(() => checkFinishClose(n, true), 5000).unref();
    }
  });
}

const server = http.createServer((req, res) => {
  // A plain (non-upgrade) request: 401 off the path, 426 on it.
  if (!samePath(req)) emit('rejected', {});
  res.writeHead(samePath(req) ? 426 : 401, { 'Content-Length': '0', Connection: 'close' });
  res.end();
});

server.on('upgrade', (req, socket, head) => {
  if (!samePath(req)) {
    emit('rejected', {});
    socket.on('error', () => {});
    socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    socket.destroySoon();
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, req));
});

server.listen(PORT, '127.0.0.1', () => console.error(`ws ${require('ws/package.json').version} listening on 127.0.0.1:${PORT}${PATH}`));

process.stdout.on('error', () => {}); // a closed pipe must not kill the server
process.on('SIGTERM', () => {
  process.stdout.write('', () => process.exit(0)); // exit once what was written is flushed
  setTimeout(() => process.exit(0), 1000).unref();
});
