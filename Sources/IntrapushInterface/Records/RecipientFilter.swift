// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushStore

/// Selects the notifications meant for one person: those addressed to no one in particular, to
/// their user name, or to one of their groups (`intrapush list --mine`, the desktop agent).
package struct RecipientFilter: Sendable, Equatable {
    /// The user's name and the names of their groups.
    package var names: [String]

    package init(names: [String]) {
        self.names = names
    }

    /// The user running this process, and every group they are in (as the group database says,
    /// which is what a new login would get, not only this process's groups).
    package static func currentUser() -> RecipientFilter? {
        guard let entry = getpwuid(geteuid()), let namePointer = entry.pointee.pw_name else { return nil }
        let name = String(cString: namePointer)
        let primaryGroup = entry.pointee.pw_gid
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(namePointer, primaryGroup, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            if getgrouplist(namePointer, primaryGroup, &groups, &count) < 0 { count = 0 }
        }
        var names = [name]
        for group in groups.prefix(Int(max(0, count))) {
            if let entry = getgrgid(group), let groupName = entry.pointee.gr_name {
                names.append(String(cString: groupName))
            }
        }
        return RecipientFilter(names: names)
    }

    /// Whether a notification is for this person.
    package func selects(_ record: NotificationRecord) -> Bool {
        Recipients.isAddressed(record.recipients, toAnyOf: names)
    }

    /// The SQL condition (no leading AND) on the `recipients` column; `nil` for a database that
    /// has no such column, where every notification is for everyone.
    package func condition(schemaVersion: Int) -> (sql: String, values: [SQLValue])? {
        Viewer.addressed(to: names, schemaVersion: schemaVersion)
    }
}
