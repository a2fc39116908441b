// glibc calls that Swift's Glibc module does not import.
#include <malloc.h>      // malloc_trim: hand freed heap pages back to the kernel when idle
#include <sys/random.h>  // getrandom: many WebSocket masking keys per system call

// The on_notification hook (IntrapushDaemonKit/Hook): glibc declares these only under _GNU_SOURCE,
// which Swift's Glibc module is built without.
#include <spawn.h>
#include <sys/syscall.h>
#include <unistd.h>

// glibc >= 2.34: close every descriptor from `from` up in the child, so that none of the
// daemon's (database, socket, notify socket) leaks into a hook even if opened without CLOEXEC.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int pipe2(int descriptors[2], int flags);
extern int memfd_create(const char *name, unsigned int flags);

// MFD_CLOEXEC from <linux/memfd.h>.
static inline int intrapush_memfd_create_cloexec(const char *name) {
    return memfd_create(name, 1U);
}

// Through syscall(2) because glibc only wraps it from 2.36 on; -1 with ENOSYS on kernels < 5.3.
static inline int intrapush_pidfd_open(pid_t pid) {
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

// The network monitor (IntrapushDaemonKit/Network): rtnetlink's constants and message layouts.
#include <linux/netlink.h>    // sockaddr_nl, nlmsghdr, NETLINK_ROUTE, NLMSG_*
#include <linux/rtnetlink.h>  // RTMGRP_*, RTM_*, ifinfomsg, ifaddrmsg, rtmsg, rtattr
// Tests of the monitor and RouteCheck enter a scratch network namespace on one thread.
extern int setns(int fd, int nstype);

// Signals read on the event loop (IntrapushDaemonKit/Daemon/SignalListener): no DispatchSource.
#include <sys/signalfd.h>

// The daemon holds the token in memory: it marks itself non-dumpable, so no core dump and no
// ptrace by another process of its user can read it (reset by execve: hooks are unaffected).
#include <sys/prctl.h>
static inline int intrapush_set_undumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

// Names the calling thread (at most 15 bytes shown), so that top -H, ps -L and /proc tell the
// daemon's threads apart.
static inline int intrapush_name_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

// The calling thread's id, for setpriority(2) on one thread (the local API's scan lane).
static inline pid_t intrapush_gettid(void) {
    return (pid_t)syscall(SYS_gettid);
}

