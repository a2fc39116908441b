// The Jetty server's check mode (INTEROP_MODE=check, Tests/Interop/README.md): the conformance
// checker's server. Pushes come as `push TEXT` lines on standard input, are kept until
// acknowledged (`ack {id}`), sent in order and again on the next connection; `close CODE` closes
// once what was sent is acknowledged; a client's message is taken once and acknowledged each
// time; the first text frame is the hello; a client's 1009 sets the largest push it was sent aside.

import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import org.eclipse.jetty.util.ajax.JSON;
import org.eclipse.jetty.websocket.api.Session;

class Check {
    static class Peer {
        final Session session;
        final Set<Integer> sent = new HashSet<>();
        final List<Integer> waiting = new ArrayList<>();
        boolean first = true, closed;
        int closeCode;
        Peer(Session session) { this.session = session; }
    }

    static final List<String[]> pushes = new ArrayList<>(); // {id, text}
    static final Set<Integer> acked = new HashSet<>(), aside = new HashSet<>();
    static final Set<String> taken = new HashSet<>();
    static final Map<Integer, Peer> peers = new HashMap<>();
    static int current;

    static void readCommands() {
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    String[] parts = line.split(" ", 2);
                    String rest = parts.length > 1 ? parts[1] : "";
                    synchronized (Check.class) {
                        if (parts[0].equals("push")) {
                            Object value = parse(rest);
                            Object id = value instanceof Map ? ((Map<?, ?>) value).get("id") : null;
                            pushes.add(new String[] {id instanceof String ? (String) id : null, rest});
                            if (current != 0) deliver(current);
                        } else if (parts[0].equals("close") && current != 0) {
                            int n = current;
                            peers.get(n).closeCode = rest.isEmpty() ? 1001 : Integer.parseInt(rest);
                            finishClose(n, false);
                            Timer timer = new Timer(true);
                            timer.schedule(new TimerTask() {
                                @Override public void run() { synchronized (Check.class) { finishClose(n, true); } }
                            }, 5000);
                        }
                    }
                }
            } catch (IOException e) {
                System.err.println("check: " + e);
            }
        });
        reader.setDaemon(true);
        reader.start();
    }

    static Object parse(String text) {
        try { return JSON.parse(text); } catch (RuntimeException e) { return null; }
    }

    // A session the client is closing (its 1009, say) refuses the frame with a WebSocketException, a
    // RuntimeException: the push stays unacknowledged and goes on the next connection, and the
    // command reader that asked for it goes on reading.
    static void send(Peer peer, String text) {
        try { peer.session.getRemote().sendString(text); } catch (IOException | RuntimeException e) { System.err.println("check: " + e); }
    }

    static synchronized void opened(int n, Session session) {
        peers.put(n, new Peer(session));
        current = n;
        deliver(n);
    }

    static void deliver(int n) {
        Peer peer = peers.get(n);
        if (peer == null || peer.closeCode != 0) return;
        Set<Integer> elsewhere = new HashSet<>();
        for (Map.Entry<Integer, Peer> other : peers.entrySet()) if (other.getKey() != n) elsewhere.addAll(other.getValue().waiting);
        for (int i = 0; i < pushes.size(); i++) {
            if (acked.contains(i) || aside.contains(i) || peer.sent.contains(i) || elsewhere.contains(i)) continue;
            peer.sent.add(i);
            peer.waiting.add(i);
            send(peer, pushes.get(i)[1]);
        }
    }

    static void finishClose(int n, boolean timedOut) {
        Peer peer = peers.get(n);
        if (peer != null && peer.closeCode != 0 && !peer.closed && (timedOut || peer.waiting.isEmpty())) {
            peer.closed = true;
            peer.session.close(peer.closeCode, "going away");
        }
    }

    static synchronized void received(int n, String text) {
        Peer peer = peers.get(n);
        if (peer == null) return;
        if (peer.first) {
            peer.first = false;
            JettyServer.emit("hello", "connection", n);
            return;
        }
        if (text.startsWith("ack ")) {
            String id = text.substring(4);
            for (Iterator<Integer> it = peer.waiting.iterator(); it.hasNext(); ) {
                int i = it.next();
                if (id.equals(pushes.get(i)[0])) {
                    it.remove();
                    acked.add(i);
                    JettyServer.emit("ack", "connection", n, "id", id);
                    break;
                }
            }
            finishClose(n, false);
            return;
        }
        Object value = parse(text);
        Object id = value instanceof Map ? ((Map<?, ?>) value).get("id") : null;
        if (id instanceof String) {
            if (taken.add((String) id)) JettyServer.emit("taken", "id", id);
            send(peer, "received message " + id);
        }
    }

    static synchronized void ended(int n, int code) {
        Peer peer = peers.remove(n);
        if (peer != null && (code == 1007 || code == 1009) && !peer.waiting.isEmpty()) {
            int largest = peer.waiting.get(0);
            for (int i : peer.waiting) if (pushes.get(i)[1].length() > pushes.get(largest)[1].length()) largest = i;
            aside.add(largest);
        }
        if (current == n) current = 0;
        for (int other : new ArrayList<>(peers.keySet())) deliver(other);
    }
}
