// Interop server for the Jetty 9.4 stack (Debian libjetty9-java), using Jetty's native WebSocket
// API. Plays the scenario of Tests/Interop/README.md: settings from the INTEROP_* environment
// variables, one JSON event per line on stdout; Jetty's own log (StdErrLog) goes to stderr.
// Built and run with these jars of /usr/share/java:
//   CP=jetty9-server.jar:jetty9-http.jar:jetty9-io.jar:jetty9-util.jar:jetty9-util-ajax.jar:servlet-api.jar:
//      jetty9-websocket-api.jar:jetty9-websocket-common.jar:jetty9-websocket-server.jar:jetty9-websocket-servlet.jar
//      (each /usr/share/java/…)
//   javac -d .build/interop/jetty -cp $CP Tests/Interop/servers/JettyServer.java Tests/Interop/servers/JettyCheck.java
//   java -cp .build/interop/jetty:$CP JettyServer

import java.io.*;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.server.*;
import org.eclipse.jetty.websocket.api.*;
import org.eclipse.jetty.websocket.server.WebSocketHandler;
import org.eclipse.jetty.websocket.servlet.*;

public class JettyServer {
    static final String PATH = System.getenv("INTEROP_PATH");
    static final String SUBPROTOCOL = System.getenv("INTEROP_SUBPROTOCOL");
    static final int N = Integer.parseInt(System.getenv().getOrDefault("INTEROP_PUSHES", "200"));
    static final long IDLE_TIMEOUT_MS = 10 * 60 * 1000; // longer than any run
    static final Map<String, String> MESSAGES = new LinkedHashMap<>(); // id -> text, in the send order of connection 1
    static final List<String> FIRST_HALF = new ArrayList<>(); // frag, p1 ... pN/2
    static final Set<String> acked = ConcurrentHashMap.newKeySet();
    static int connections; // guarded by acked
    static final long T0 = System.nanoTime();
    static final PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

    // {"event":E,"t":…,k1:v1,…} on one line; values are strings, integers or null.
    static void emit(String event, Object... fields) {
        StringBuilder line = new StringBuilder("{\"event\":").append(quote(event)).append(",\"t\":")
            .append(String.format(Locale.ROOT, "%.6f", (System.nanoTime() - T0) / 1e9));
        for (int i = 0; i < fields.length; i += 2) {
            Object v = fields[i + 1];
            line.append(',').append(quote((String) fields[i])).append(':')
                .append(v == null ? "null" : v instanceof String ? quote((String) v) : v.toString());
        }
        synchronized (out) { out.print(line.append("}\n")); out.flush(); }
    }

    static String quote(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') q.append('\\').append(c);
            else if (c < 0x20) q.append(String.format("\\u%04x", (int) c));
            else q.append(c);
        }
        return q.append('"').toString();
    }

    static final boolean CHECK = "check".equals(System.getenv("INTEROP_MODE"));

    // The path's segments, each percent-decoded as UTF-8 (a client may encode any byte of a
    // segment; '+' stays '+').
    static List<String> segments(String target) {
        List<String> out = new ArrayList<>();
        for (String segment : target.split("\\?", 2)[0].split("/", -1)) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (int i = 0; i < segment.length(); i++) {
                char c = segment.charAt(i);
                if (c == '%' && i + 2 < segment.length()) {
                    bytes.write(Integer.parseInt(segment.substring(i + 1, i + 3), 16));
                    i += 2;
                } else {
                    byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                    bytes.write(encoded, 0, encoded.length);
                }
            }
            out.add(new String(bytes.toByteArray(), StandardCharsets.UTF_8));
        }
        return out;
    }

    static class Endpoint implements WebSocketListener, WebSocketPingPongListener {
        final String protocol, xInterop, contentLength, transferEncoding;
        Session session;
        int n;
        boolean secondHalfSent, completed;

        Endpoint(ServletUpgradeRequest req) {
            protocol = header(req, "Sec-WebSocket-Protocol");
            xInterop = header(req, "X-Interop");
            contentLength = header(req, "Content-Length");
            transferEncoding = header(req, "Transfer-Encoding");
        }

        static String header(ServletUpgradeRequest req, String name) {
            List<String> values = req.getHeaders(name); // repeated header lines are joined as HTTP does
            return values == null || values.isEmpty() ? null : String.join(", ", values);
        }

        @Override public void onWebSocketConnect(Session s) {
            session = s;
            if (CHECK) {
                synchronized (acked) { n = ++connections; }
                emit("open", "connection", n);
                Check.opened(n, s);
                return;
            }
            List<String> ids;
            synchronized (acked) { // what is sent matches the acks printed before "open"
                n = ++connections;
                emit("open", "connection", n, "protocol", protocol, "x_interop", xInterop,
                     "content_length", contentLength, "transfer_encoding", transferEncoding);
                ids = new ArrayList<>(n == 1 ? FIRST_HALF : MESSAGES.keySet());
                if (n >= 2) ids.removeAll(acked);
            }
            try {
                s.getRemote().sendPing(ByteBuffer.wrap(("ping-" + n).getBytes(StandardCharsets.UTF_8)));
                for (String id : ids) send(id);
            } catch (IOException e) {
                System.err.println("connection " + n + ": send failed: " + e);
            }
            checkComplete();
        }

        void send(String id) throws IOException {
            String text = MESSAGES.get(id);
            if (!id.equals("frag")) { session.getRemote().sendString(text); return; }
            // ASCII only, so characters are bytes: text (FIN clear), continuation (FIN clear), continuation (FIN set).
            session.getRemote().sendPartialString(text.substring(0, 1000), false);
            session.getRemote().sendPartialString(text.substring(1000, 2000), false);
            session.getRemote().sendPartialString(text.substring(2000), true);
        }

        void checkComplete() {
            if (n >= 2 && !completed && acked.containsAll(MESSAGES.keySet())) {
                completed = true;
                emit("complete", "connection", n);
            }
        }

        @Override public void onWebSocketText(String text) {
            if (CHECK) { Check.received(n, text); return; }
            if (!text.startsWith("ack ")) { emit("text", "connection", n, "text", text); return; }
            String id = text.substring(4);
            synchronized (acked) { acked.add(id); emit("ack", "connection", n, "id", id); }
            if (n == 1 && !secondHalfSent && acked.containsAll(FIRST_HALF)) {
                secondHalfSent = true;
                try {
                    for (String rest : MESSAGES.keySet()) if (!FIRST_HALF.contains(rest)) send(rest);
                } catch (IOException e) {
                    System.err.println("connection 1: send failed: " + e);
                }
                session.close(StatusCode.SHUTDOWN, "going away"); // 1001
                emit("closing", "connection", 1);
            }
            checkComplete();
        }

        @Override public void onWebSocketPong(ByteBuffer payload) {
            emit("pong", "connection", n, "payload", StandardCharsets.UTF_8.decode(payload).toString());
        }

        @Override public void onWebSocketPing(ByteBuffer payload) {} // Jetty answers with a pong itself
        @Override public void onWebSocketBinary(byte[] payload, int offset, int len) {
            System.err.println("connection " + n + ": binary message of " + len + " bytes");
        }
        @Override public void onWebSocketClose(int code, String reason) {
            System.err.println("connection " + n + " closed: " + code + " " + reason);
            if (CHECK) Check.ended(n, code);
        }
        @Override public void onWebSocketError(Throwable cause) {
            System.err.println("connection " + n + " error: " + cause);
        }
    }

    public static void main(String[] args) throws Exception {
        MESSAGES.put("frag", "{\"id\":\"frag\",\"title\":\"fragmented\",\"body\":\"" + "0123456789".repeat(300) + "\"}");
        for (int i = 1; i <= N; i++)
            MESSAGES.put("p" + i, "{\"id\":\"p" + i + "\",\"title\":\"push " + i + "\",\"body\":\"interop push " + i + "\"}");
        FIRST_HALF.addAll(new ArrayList<>(MESSAGES.keySet()).subList(0, 1 + N / 2));

        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(Integer.parseInt(System.getenv("INTEROP_PORT")));
        connector.setIdleTimeout(IDLE_TIMEOUT_MS);
        server.addConnector(connector);
        server.setHandler(new WebSocketHandler() {
            @Override public void configure(WebSocketServletFactory factory) {
                factory.getPolicy().setIdleTimeout(IDLE_TIMEOUT_MS);
                factory.setCreator((req, resp) -> {
                    if (SUBPROTOCOL != null && req.getSubProtocols().contains(SUBPROTOCOL))
                        resp.setAcceptedSubProtocol(SUBPROTOCOL);
                    return new Endpoint(req);
                });
            }

            @Override public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse resp)
                    throws IOException, javax.servlet.ServletException {
                if (!segments(req.getRequestURI()).equals(segments(PATH))) { // any request, upgrade or not, for another path
                    emit("rejected");
                    resp.sendError(HttpServletResponse.SC_UNAUTHORIZED);
                    base.setHandled(true);
                    return;
                }
                super.handle(target, base, req, resp);
            }
        });
        if (CHECK) Check.readCommands();
        server.start(); // on SIGTERM the JVM just exits: no shutdown hook, nothing to drain
        System.err.println("jetty " + Server.getVersion() + " listening on 127.0.0.1:" + connector.getLocalPort() + PATH);
        server.join();
    }
}
