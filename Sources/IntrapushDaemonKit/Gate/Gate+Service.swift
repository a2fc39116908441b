import IntrapushInterface
import IntrapushStore
import IntrapushSupport

extension Gate {
    /// `org.varlink.service`: answered to anyone who may connect; it says nothing of the data.
    func answerService(_ call: VarlinkCall, on connection: VarlinkConnectionHandler) {
        switch call.member {
        case "GetInfo":
            connection.send(VarlinkReply(parameters: [
                "vendor": .string(VarlinkInterfaces.vendor), "product": .string(VarlinkInterfaces.product),
                "version": .string(VarlinkInterfaces.version), "url": .string(VarlinkInterfaces.url),
                "interfaces": .array(VarlinkInterfaces.descriptions.keys.sorted().map { .string($0) }),
            ]))
        case "GetInterfaceDescription":
            guard let name = call.parameters["interface"]?.string else { return connection.fail(.invalidParameter("interface")) }
            guard let description = VarlinkInterfaces.descriptions[name] else { return connection.fail(.interfaceNotFound(name)) }
            connection.send(VarlinkReply(parameters: ["description": .string(description)]))
        default:
            connection.fail(.methodNotFound(call.method))
        }
    }

    /// `io.intrapush.Daemon`: who the caller is, and the daemon's live state.
    func answerDaemon(_ call: VarlinkCall, grant: Grant, on connection: VarlinkConnectionHandler) {
        switch call.member {
        case "WhoAmI":
            withCaller(on: connection) { caller in
                connection.send(VarlinkReply(parameters: [
                    "uid": JSONValue(Int64(caller.userID)), "user": JSONValue(caller.userName),
                    "groups": .array(caller.groupNames.map { .string($0) }),
                    "reads": .bool(grant.reads), "reads_all": .bool(grant.readsAll), "sends": .bool(grant.sends),
                ]))
            }
        case "Status":
            guard grant.reads || grant.sends else {
                return connection.fail(Self.permissionDenied(
                    "you may not ask this daemon; an administrator can add you to the group \(AccessPolicy.readerGroup)"))
            }
            var state = liveState()
            state.updatedAt = WallClock.nowMilliseconds()
            guard grant.reads else {
                return connection.send(VarlinkReply(parameters: ["state": state.varlinkValue, "notifications": JSONValue(0), "unread": JSONValue(0)]))
            }
            withCaller(on: connection) { caller in
                var all = NotificationQuery()
                all.viewer = self.viewer(of: caller, grant: grant)
                var unreadOnly = all
                unreadOnly.unreadOnly = true
                let (visible, unread) = (all, unreadOnly)
                self.queries.run(for: caller.userID) { reader in
                    (try reader.count(visible), try reader.count(unread))
                }.assumeIsolated().whenComplete { result in
                    switch result {
                    case .success(let (total, unread)):
                        connection.send(VarlinkReply(parameters: [
                            "state": state.varlinkValue, "notifications": JSONValue(total), "unread": JSONValue(unread),
                        ]))
                    case .failure(let error):
                        connection.fail(self.queryFailure(error, interface: call.interface))
                    }
                }
            }
        default:
            connection.fail(.methodNotFound(call.method))
        }
    }
}
