// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// The keys of messages to the server (contract §7): checked here so that a bad one stops the
/// daemon at start with 78, not a message at send time.
extension ConfigurationLoader {
    /// Empty turns acknowledgements off; otherwise `{id}` must occur exactly once, or the
    /// daemon could not tell which message a frame acknowledges.
    func upstreamAckText(reader: inout SettingReader) -> String? {
        guard let text = reader.string(.upstreamAckText) else { return Configuration.Defaults.upstreamAckText }
        guard !text.isEmpty else { return nil }
        guard text.ranges(of: "{id}").count == 1 else {
            reader.reject(.upstreamAckText, "must contain {id} once (the id of the message acknowledged), or be empty when the server does not acknowledge")
            return Configuration.Defaults.upstreamAckText
        }
        return text
    }

    func outboxWindow(reader: inout SettingReader) -> Int {
        guard let window = reader.integer(.outboxWindow) else { return Configuration.Defaults.outboxWindow }
        guard (1...Configuration.Defaults.maximumOutboxWindow).contains(window) else {
            reader.reject(.outboxWindow, "must be from 1 to \(Configuration.Defaults.maximumOutboxWindow)")
            return Configuration.Defaults.outboxWindow
        }
        return window
    }

    /// 0 keeps trying forever.
    func outboxTTL(reader: inout SettingReader) -> Duration? {
        guard reader.isSet(.outboxTTL) else { return Configuration.Defaults.outboxTTL }
        guard let ttl = reader.duration(.outboxTTL, allowsZero: true) else { return Configuration.Defaults.outboxTTL }
        return ttl == .zero ? nil : ttl
    }

    /// A JSON object once `{message_id}`, `{user}` and `{read_at}` are replaced; empty is unset.
    func readReceiptText(reader: inout SettingReader) -> String? {
        guard let text = reader.string(.readReceiptText), !text.isEmpty else { return nil }
        guard text.contains("{message_id}") else {
            reader.reject(.readReceiptText, "must contain {message_id}, the id of the notification read")
            return nil
        }
        var sample = text.replacing("{message_id}", with: "m").replacing("{user}", with: "u").replacing("{read_at}", with: "0")
        let isObject = sample.withUTF8 { utf8 in
            utf8.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) == UInt8(ascii: "{")
                && JSONObjectScanner.scalars(of: [], in: utf8) != nil
        }
        guard isObject else {
            reader.reject(
                .readReceiptText,
                #"must be a JSON object once {message_id}, {user} and {read_at} are replaced, like {"type":"read","id":"{message_id}","by":"{user}","read_at":{read_at}}"#)
            return nil
        }
        return text
    }

    /// The local API's socket lies beside a database other than the packaged one, so its path
    /// must leave room for `.sock`.
    func database(reader: inout SettingReader) -> String {
        guard let path = nonEmpty(.database, reader: &reader) else { return defaultDatabase }
        let socket = Configuration.localAPISocket(forDatabase: path)
        guard socket.utf8.count <= Configuration.longestSocketPath else {
            reader.reject(.database, "is too long: the local API's socket beside it, \(socket), would exceed the \(Configuration.longestSocketPath) bytes a Unix socket path may have")
            return defaultDatabase
        }
        return path
    }
}
