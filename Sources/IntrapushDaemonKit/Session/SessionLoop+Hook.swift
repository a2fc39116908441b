// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import NIOCore

/// The session's share of `on_notification` and retention: which runner connections hand their
/// stored notifications to, and what a reload changes.
extension SessionLoop {
    /// A connection dialled before a reload changed the hook got the runner of its dial: give it
    /// the current one (the event reaches the handler on its own event loop).
    func attachCurrentHook(to channel: any Channel) {
        guard !hooks.isEmpty else { return }
        channel.pipeline.fireUserInboundEventTriggered(HookReplaced(runner: hooks.current))
    }

    /// After a reload: a changed `on_notification` gets a new runner, the old one finishes its
    /// running hooks meanwhile; the retention policy goes to the live state, and a pass runs now.
    mutating func reloadedHookAndRetention(_ new: Configuration, tasks: inout DiscardingTaskGroup) {
        let (changed, retired) = hooks.reloaded(command: new.hookCommand)
        if changed {
            channel?.pipeline.fireUserInboundEventTriggered(HookReplaced(runner: hooks.current))
        }
        if let retired {
            tasks.addTask { await HookRunners.retire(retired) }
        }
        persist { state in
            state.retentionDays = new.retentionDays
            state.retentionMaxRows = new.retentionMaxRows
        }
        service.storeWorker.requestPrune()
    }

    /// On the way out, once the connection is closed: hooks still running get their grace period.
    func stopHooks() async {
        await hooks.shutdown()
    }
}
