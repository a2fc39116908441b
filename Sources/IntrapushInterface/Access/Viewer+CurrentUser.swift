// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushStore

extension Viewer {
    /// The user running this process: an administrator reading the file itself sees everything,
    /// and their own read marks.
    package static func currentUser(seesEverything: Bool) -> Viewer {
        let uid = getuid()
        let name = getpwuid(uid).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
        return Viewer(
            userID: Int64(uid), userName: name,
            visibleNames: seesEverything ? nil : (RecipientFilter.currentUser()?.names ?? name.map { [$0] } ?? []))
    }
}

extension AccessPolicy {
    /// Whether this process reads the database itself rather than through the daemon: root, the
    /// daemon's own user (the owner of the file) and members of `intrapush-admin`, by the
    /// groups this process has.
    package static func currentProcessAdministers(databasePath: String) -> Bool {
        let uid = getuid()
        if uid == 0 { return true }
        var info = stat()
        if stat(databasePath, &info) == 0, info.st_uid == uid { return true }
        guard let admin = getgrnam(adminGroup)?.pointee.gr_gid else { return false }
        if getegid() == admin { return true }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &groups)
        return groups.prefix(Int(max(filled, 0))).contains(admin)
    }
}
