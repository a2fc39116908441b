// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// Everything an open connection depends on, derived from the configuration in one place.
///
/// A reload re-opens the connection exactly when this value changes, so no list of "connection
/// keys" is kept by hand. It carries the real token (in the path, the headers and the hello), so
/// it describes and mirrors itself by its redacted URL only.
package struct ConnectionSettings: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// Where to connect; `endpoint.path` carries the real token.
    package var endpoint: ServerEndpoint
    /// PEM trust anchors for `wss`; `nil` means the system trust store.
    package var caFile: String?
    /// The client certificate and key for mutual TLS; `nil`: none.
    package var clientIdentity: ClientIdentity?
    /// `tls_pins` (base64 SHA-256 of a SubjectPublicKeyInfo); empty: no pinning.
    package var tlsPins: [String]
    /// The HTTP proxy to tunnel through with CONNECT; `nil`: direct.
    package var proxy: HTTPProxy?
    /// TCP connect, TLS handshake and upgrade together.
    package var connectTimeout: Duration
    /// This host's identity, sent as `Intrapush-Host`; `nil`: none known (no header).
    package var hostIdentity: String?
    /// `headers`, `{host}` and `{token}` replaced.
    package var headers: [HandshakeHeader]
    /// Asked for with `Sec-WebSocket-Protocol`; the server must select it.
    package var subprotocol: String?
    /// `hello_text`, `{host}` and `{token}` filled in for the template's shape (`FrameTemplate`): the first
    /// frame of every connection.
    package var helloText: String?
    package var heartbeatInterval: Duration
    package var heartbeatText: String
    package var deadPeerTimeout: Duration
    /// The acknowledgement, its `{id}` filled in for the template's shape (decided once).
    package var ackTemplate: FrameTemplate
    /// The JSON member that holds a push's message id.
    package var idField: String
    /// The members holding a push's priority, link and recipients.
    package var priorityField: String
    package var linkField: String
    package var recipientsField: String
    /// The largest frame, or fragmented message, accepted.
    package var maxMessageSize: Int
    /// The server's acknowledgement of a message to it, `{id}` in it; `nil`: none is sent.
    package var upstreamAckText: String?
    /// The member of a server frame that names the request it answers.
    package var replyToField: String
    /// Messages to the server unacknowledged at once, at most.
    package var outboxWindow: Int
    /// What `Intrapush-Protocol` says of the six wire-form settings.
    package var protocolProfile: ProtocolProfile

    package var usesTLS: Bool { endpoint.scheme == "wss" }

    /// `ack_text` as written.
    package var ackText: String {
        get { ackTemplate.text }
        set { ackTemplate = FrameTemplate(newValue, placeholder: "{id}") }
    }

    /// `ack_text` has no `{id}`: every acknowledgement is the same text (the default).
    package var isAcknowledgementFixed: Bool { !ackTemplate.hasPlaceholder }

    /// The acknowledgement for a push: `ack_text` with `{id}` filled by its id as the template
    /// needs (a JSON-shaped template gets JSON; a number id stays a number where a JSON value
    /// stands). Callers with a fixed text build it once instead (`isAcknowledgementFixed`).
    package func acknowledgement(for messageID: String?, isNumber: Bool = false) -> String {
        ackTemplate.filled(with: messageID.map { isNumber ? .number($0) : .string($0) } ?? .null)
    }

    package var description: String { endpoint.redactedURL }
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension Configuration {
    /// The settings of a connection to server `index` of `hosts` (the same but for the endpoint:
    /// each server gets its own SNI and name check).
    package func connection(toServer index: Int) -> ConnectionSettings {
        var settings = connection
        if index > 0, index < hosts.count { settings.endpoint = endpoint(for: hosts[index]) }
        return settings
    }

    /// The settings of the connection to the primary server.
    package var connection: ConnectionSettings {
        ConnectionSettings(
            endpoint: endpoint,
            caFile: caFile,
            clientIdentity: clientIdentity,
            tlsPins: tlsPins,
            proxy: proxy,
            connectTimeout: connectTimeout,
            hostIdentity: hostIdentity?.value,
            headers: headers.map { $0.expanded(token: token.value, host: hostIdentity?.value ?? "") },
            subprotocol: subprotocol,
            helloText: helloText.map {
                FrameTemplate($0.replacing("{host}", with: hostIdentity?.value ?? ""), placeholder: "{token}")
                    .filled(with: .numberOrString(token.value))
            },
            heartbeatInterval: heartbeatInterval,
            heartbeatText: heartbeatText,
            deadPeerTimeout: deadPeerTimeout,
            ackTemplate: FrameTemplate(ackText, placeholder: "{id}"),
            idField: idField,
            priorityField: priorityField,
            linkField: linkField,
            recipientsField: recipientsField,
            maxMessageSize: maxMessageSize,
            upstreamAckText: upstreamAckText,
            replyToField: replyToField,
            outboxWindow: outboxWindow,
            protocolProfile: protocolProfile
        )
    }
}

/// The wire protocol's profile a client speaks: `canonical` when the six settings that shape
/// frames (`heartbeat_text`, `ack_text`, `id_field`, `upstream_id_field`, `upstream_ack_text`,
/// `reply_to_field`) keep their defaults, which the protocol fixes; `custom` otherwise.
package enum ProtocolProfile: String, Sendable, Equatable {
    case canonical
    case custom

    /// The major version of the wire protocol this client speaks.
    package static let version = 1

    /// The value of the `Intrapush-Protocol` header of the upgrade.
    package var headerValue: String { "\(Self.version); profile=\(rawValue)" }
}

extension Configuration {
    /// `canonical` when every wire-form setting has its default value.
    package var protocolProfile: ProtocolProfile {
        let isCanonical = heartbeatText == Defaults.heartbeatText && ackText == Defaults.ackText
            && idField == Defaults.idField && upstreamIDField == Defaults.idField
            && upstreamAckText == Defaults.upstreamAckText && replyToField == Defaults.idField
        return isCanonical ? .canonical : .custom
    }
}
