// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// Opens a link the person clicked with `xdg-open`, without a shell, and without waiting for it.
package enum LinkOpener {
    /// Starts `xdg-open link`; the reason when it could not be started.
    package static func open(_ link: String) -> String? {
        // Children are reaped by the kernel (SIGCHLD ignored in the agent); xdg-open itself gets
        // the default disposition back, since it waits for its own children.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGCHLD)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let arguments = ["xdg-open", link]
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawnp(&child, "xdg-open", nil, &attributes, &pointers, environ)
        return result == 0 ? nil : String(cString: strerror(result))
    }

    /// Lets the kernel reap the openers this process starts.
    package static func reapChildrenAutomatically() {
        signal(SIGCHLD, SIG_IGN)
    }
}
