// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import IntrapushSupport
import NIOCore

/// Messages from the daemon's outbox (contract §7): recorded, acknowledged with the upstream
/// acknowledgement unless told to withhold it, and answered when a reply is set or echo is on.
/// A reply is a push like any other: queued for the host that asked, delivered, acknowledged, and
/// delivered again until it is.
extension Hub {
    /// Records an upstream message; returns the acknowledgement to send back, if any. A message
    /// is taken once by its id: a repeat (the client sends again what it did not see
    /// acknowledged) is recorded and acknowledged again, never answered twice.
    func upstreamReceived(_ text: String, messageID: String, on id: ConnectionID) -> String? {
        let host = ledger.host(of: id) ?? HostKey(org: configuration.defaultOrg, host: HostKey.unnamed)
        let isRepeat = upstream.wasTaken(messageID, from: host)
        let wasCommitted = upstreamVerifier?.isCommitted(messageID: messageID) ?? true
        if !wasCommitted {
            logger.error("message \(messageID) arrived before its row was visible in the outbox")
        }
        upstream.received(
            connection: id, host: host, messageID: messageID, payload: text,
            receivedAt: microsecondsSinceStart(at: .now()), wasCommitted: wasCommitted)
        logger.debug("message \(messageID) from the client on connection \(id)\(isRepeat ? ", again: acknowledged, not taken twice" : "")")
        if isRepeat {
            // Taken before: its reply, if any, is a push the server keeps until acknowledged.
        } else if let reply = upstream.takeReply(for: messageID, host: host) {
            queueReply(reply, to: messageID, host: host)
        } else if upstreamSettings.echoes {
            upstream.answered(messageID)
            queueReply(text, to: messageID, host: host, member: "echo")
        }
        guard !upstreamSettings.withholdsAcknowledgements, let template = upstreamSettings.acknowledgementTemplate else {
            return nil
        }
        return FrameTemplate(template, placeholder: "{id}").filled(with: .string(messageID))
    }

    /// `POST /upstream/reply?to=ID`: answers the request now, or when it arrives.
    func setReply(_ reply: String, to messageID: String) {
        if let host = upstream.setReply(reply, for: messageID) {
            queueReply(reply, to: messageID, host: host)
        }
    }

    /// `{"id":"REQUEST","reply":…}` (or `"echo"`; `id` is `reply_to_field`), queued as a push
    /// for the host that asked.
    private func queueReply(_ body: String, to messageID: String, host: HostKey, member: String = "reply") {
        let payload = "{\(JSONText.quoted(configuration.replyToField)):\(JSONText.quoted(messageID)),\"\(member)\":\(body)}"
        _ = queue(payload: ByteBuffer(string: payload), isBinary: false, org: host.org, host: host.host)
    }

    /// `GET /upstream[?since=SEQ]`: what was received (after SEQ), in order, and the counts.
    func upstreamJSON(after sequenceNumber: Int = 0) -> String {
        var output = "{\"count\":\(upstream.receipts.count),\"distinct\":\(upstream.distinctIDs.count)"
        output += ",\"uncommitted\":\(upstream.uncommitted),\"messages\":["
        for (index, receipt) in upstream.receipts.dropFirst(max(0, sequenceNumber)).enumerated() {
            if index > 0 { output += "," }
            output += "{\"seq\":\(receipt.sequenceNumber),\"connection\":\(receipt.connection)"
            output += ",\"org\":\(JSONText.quoted(receipt.org)),\"id\":\(JSONText.quoted(receipt.messageID))"
            output += ",\"received_us\":\(receipt.receivedAt),\"committed\":\(receipt.wasCommitted),\"taken\":\(receipt.wasTaken)"
            output += ",\"payload\":\(JSONText.quoted(receipt.payload))}"
        }
        return output + "]}"
    }
}

/// How the server treats messages from clients; switched by the HTTP API at run time.
struct UpstreamSettings {
    /// `received message {id}` by default; `nil`: never acknowledged.
    var acknowledgementTemplate: String?
    var withholdsAcknowledgements = false
    var echoes = false
}

extension Hub {
    static func isJSON(_ text: String) -> Bool {
        (try? JSONDecoder().decode(AnyJSON.self, from: Data(text.utf8))) != nil
    }
}

/// Any JSON value, decoded only to be validated.
private struct AnyJSON: Decodable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            for key in object.allKeys { _ = try object.decode(AnyJSON.self, forKey: key) }
        } else if var array = try? decoder.unkeyedContainer() {
            while !array.isAtEnd { _ = try array.decode(AnyJSON.self) }
        } else {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() || (try? value.decode(Bool.self)) != nil || (try? value.decode(Double.self)) != nil {
                return
            }
            _ = try value.decode(String.self)
        }
    }
}
