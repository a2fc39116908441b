// SPDX-License-Identifier: Apache-2.0

import TestSupport
/// The usual start of an integration test: a fresh directory and token, a devserver, and a
/// daemon (short intervals) that has connected to it.
///
/// `verifyingDatabase` makes the server check every acknowledgement against the daemon's
/// database; `extra` and `environment` go to the daemon, `serverArguments` to the server.
func startConnected(
    extra: [String: String] = [:],
    environment: [String: String] = [:],
    serverArguments: [String] = [],
    verifyingDatabase: Bool = false,
    in existing: TemporaryDirectory? = nil
) async throws -> (directory: TemporaryDirectory, token: String, server: DevServerHandle, daemon: DaemonHandle) {
    let directory = try existing ?? TemporaryDirectory("it")
    let token = makeToken()
    let server = try await DevServerHandle(
        directory: directory, token: token,
        verifyDatabase: verifyingDatabase ? directory.file(DaemonHandle.databaseName) : nil,
        extraArguments: serverArguments
    )
    let daemon = try DaemonHandle(
        directory: directory, serverPort: server.port, token: token, extra: extra, environment: environment
    )
    try await server.waitFor("the daemon to connect") { $0.connectionsOpen == 1 }
    // The server counts the connection at its 101; the daemon is connected once it has read it.
    try await eventually("the daemon to record that it is connected") {
        (try? DaemonDatabase(path: daemon.databasePath).liveState()?.state) == .connected
    }
    return (directory, token, server, daemon)
}

/// `startConnected` with the daemon reporting to a notify socket (`NOTIFY_SOCKET`) that the test reads.
func startConnectedNotifying(
    extra: [String: String] = [:], environment: [String: String] = [:]
) async throws -> (directory: TemporaryDirectory, token: String, server: DevServerHandle, notify: NotifySocket, daemon: DaemonHandle) {
    let directory = try TemporaryDirectory("it")
    let notify = try NotifySocket(directory: directory)
    let (_, token, server, daemon) = try await startConnected(
        extra: extra, environment: environment.merging(["NOTIFY_SOCKET": notify.path]) { $1 }, in: directory)
    return (directory, token, server, notify, daemon)
}
