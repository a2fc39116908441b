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

const pathOf = (req) => req.url.split('?')[0];

const server = http.createServer((req, res) => {
  // A plain (non-upgrade) request: 401 off the path, 426 on it.
  if (pathOf(req) !== PATH) emit('rejected', {});
  res.writeHead(pathOf(req) === PATH ? 426 : 401, { 'Content-Length': '0', Connection: 'close' });
  res.end();
});

server.on('upgrade', (req, socket, head) => {
  if (pathOf(req) !== PATH) {
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
