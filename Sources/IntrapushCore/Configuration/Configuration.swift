/// The daemon's settings, one property per key of `intrapush.conf` (contract section 2).
///
/// Built by `ConfigurationLoader`, which applies the defaults, the environment overrides and the
/// validation; the initializer's defaults are the contract's, for tests and tools that build one by
/// hand. Durations are `Duration`, sizes are bytes.
public struct Configuration: Sendable, Equatable {
    /// `name[:port]` or `[v6]:port`, as written.
    public var host: String
    public var org: String
    public var client: String
    /// The credential in the URL; its description is `***`.
    public var token: Secret
    /// Where the token came from, for messages: `token`, `INTRAPUSH_TOKEN`, `token_file /etc/intrapush/token`.
    public var tokenSource: String
    /// `wss` instead of `ws`.
    public var tls: Bool
    /// PEM trust anchors for `wss`; `nil` means the system trust store.
    public var caFile: String?
    /// The URL path with `{client}`, `{org}` and `{token}` placeholders.
    public var pathTemplate: String
    public var heartbeatInterval: Duration
    public var heartbeatText: String
    /// The acknowledgement text; `{id}` becomes the message id.
    public var ackText: String
    /// The JSON member that holds a push's message id.
    public var idField: String
    /// Silence after which the connection counts as dead.
    public var deadPeerTimeout: Duration
    public var connectTimeout: Duration
    public var reconnectMin: Duration
    public var reconnectMax: Duration
    /// The largest frame accepted, in bytes; a larger one closes the connection with 1009.
    public var maxMessageSize: Int
    /// The SQLite file.
    public var database: String
    /// Days a notification is kept; 0 keeps forever.
    public var retentionDays: Int
    /// Rows kept at most; 0 is unlimited.
    public var retentionMaxRows: Int
    /// A command line run for each new notification, as written; the loader accepts only what
    /// `HookCommandLine(parsing:)` accepts, and `hookCommand` is its split form.
    public var onNotification: String?
    public var logLevel: LogLevel
    /// Extra lines for the opening handshake, as written (`{token}` not replaced).
    public var headers: [HandshakeHeader]
    /// Asked for with `Sec-WebSocket-Protocol`; a server that does not select it fails the handshake.
    public var subprotocol: String?
    /// The first frame of every new connection, as written (`{token}` not replaced).
    public var helloText: String?

    public init(
        host: String,
        org: String,
        client: String = Defaults.client,
        token: Secret,
        tokenSource: String = "token",
        tls: Bool = false,
        caFile: String? = nil,
        pathTemplate: String = Defaults.pathTemplate,
        heartbeatInterval: Duration = Defaults.heartbeatInterval,
        heartbeatText: String = Defaults.heartbeatText,
        ackText: String = Defaults.ackText,
        idField: String = Defaults.idField,
        deadPeerTimeout: Duration? = nil,
        connectTimeout: Duration = Defaults.connectTimeout,
        reconnectMin: Duration = Defaults.reconnectMin,
        reconnectMax: Duration = Defaults.reconnectMax,
        maxMessageSize: Int = Defaults.maxMessageSize,
        database: String = Defaults.database,
        retentionDays: Int = Defaults.retentionDays,
        retentionMaxRows: Int = Defaults.retentionMaxRows,
        onNotification: String? = nil,
        logLevel: LogLevel = .info,
        headers: [HandshakeHeader] = [],
        subprotocol: String? = nil,
        helloText: String? = nil
    ) {
        self.host = host
        self.org = org
        self.client = client
        self.token = token
        self.tokenSource = tokenSource
        self.tls = tls
        self.caFile = caFile
        self.pathTemplate = pathTemplate
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatText = heartbeatText
        self.ackText = ackText
        self.idField = idField
        self.deadPeerTimeout = deadPeerTimeout ?? heartbeatInterval * Defaults.deadPeerFactor
        self.connectTimeout = connectTimeout
        self.reconnectMin = reconnectMin
        self.reconnectMax = reconnectMax
        self.maxMessageSize = maxMessageSize
        self.database = database
        self.retentionDays = retentionDays
        self.retentionMaxRows = retentionMaxRows
        self.onNotification = onNotification
        self.logLevel = logLevel
        self.headers = headers
        self.subprotocol = subprotocol
        self.helloText = helloText
    }

    /// `on_notification` split into a program and its arguments; `nil` when unset (or, for a
    /// configuration built by hand, when it does not parse).
    public var hookCommand: HookCommandLine? {
        onNotification.flatMap { try? HookCommandLine(parsing: $0) }
    }

    /// Whether a reload with `other` must drop the live connection (host, org, client, token,
    /// tls, ca_file, path, connect_timeout, max_message_size, heartbeat_*, dead_peer_timeout,
    /// ack_text, id_field, headers, subprotocol, hello_text).
    public func requiresReconnect(comparedTo other: Configuration) -> Bool {
        host != other.host || org != other.org || client != other.client || token != other.token
            || tls != other.tls || caFile != other.caFile || pathTemplate != other.pathTemplate
            || connectTimeout != other.connectTimeout || maxMessageSize != other.maxMessageSize
            || heartbeatInterval != other.heartbeatInterval || heartbeatText != other.heartbeatText
            || deadPeerTimeout != other.deadPeerTimeout || ackText != other.ackText
            || idField != other.idField || headers != other.headers || subprotocol != other.subprotocol
            || helloText != other.helloText
    }

    /// The `headers` lines as the handshake sends them, `{token}` replaced by the token.
    public var handshakeHeaders: [HandshakeHeader] {
        headers.map { $0.expanded(token: token.value) }
    }

    /// `hello_text` as sent, `{token}` replaced by the token; `nil` when unset.
    public var helloFrame: String? {
        helloText?.replacing("{token}", with: token.value)
    }
}

extension Configuration {
    /// The contract's defaults, in one place. Those that depend on the environment (`database`
    /// under `STATE_DIRECTORY`, `token_file` under `CREDENTIALS_DIRECTORY`) are resolved by the loader.
    public enum Defaults {
        public static let client = "linux"
        public static let pathTemplate = "/connect/{client}/{org}/{token}"
        public static let heartbeatInterval: Duration = .seconds(10)
        public static let heartbeatText = "KA"
        public static let ackText = "received message"
        public static let idField = "id"
        /// `dead_peer_timeout` is this many heartbeat intervals unless set.
        public static let deadPeerFactor = 3
        public static let connectTimeout: Duration = .seconds(10)
        public static let reconnectMin: Duration = .seconds(1)
        public static let reconnectMax: Duration = .seconds(60)
        public static let maxMessageSize = 1_048_576
        public static let database = "/var/lib/intrapush/notifications.sqlite3"
        public static let tokenFile = "/etc/intrapush/token"
        public static let configurationFile = "/etc/intrapush/intrapush.conf"
        public static let retentionDays = 90
        public static let retentionMaxRows = 1_000_000
    }
}
