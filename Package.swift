// swift-tools-version: 6.1
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

let package = Package(
    name: "intrapush",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "intrapushd", targets: ["intrapushd"]),
        .executable(name: "intrapush", targets: ["intrapush"]),
        .executable(name: "intrapush-notifier", targets: ["intrapush-notifier"]),
        .executable(name: "intrapush-devserver", targets: ["intrapush-devserver"]),
        .executable(name: "intrapush-fleet-sim", targets: ["intrapush-fleet-sim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", exact: "0.6.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // glibc's malloc_trim and getrandom (no library to link: libc itself).
        .systemLibrary(name: "CLinux"),
        .target(name: "CIntrapushSearch", dependencies: ["CSQLite"]),

        // What both programs share: the process's environment, standard error, the terminal, the
        // clock, the wake-up pipe of the threads that sleep in poll(2), JSON scanning and quoting.
        .target(name: "IntrapushSupport", dependencies: ["CLinux"]),
        // intrapush.conf and the environment: loading, validation, the endpoint, rendering. Its own
        // TOML reader (FlatTOML): TOMLKit would link Foundation and ICU's data into both programs.
        .target(name: "IntrapushConfiguration", dependencies: ["IntrapushSupport"]),
        // The SQLite database: connection, schema and migrations, notifications, the outbox, live
        // state, retention pruning. The daemon writes through it; the CLI reads (and writes only
        // when no daemon runs to do it).
        .target(name: "IntrapushStore", dependencies: ["CSQLite", "CIntrapushSearch", "CLinux", "IntrapushSupport"]),
        // What the daemon and the programs beside it share, without NIO: the local API's Varlink
        // protocol and its generated interfaces (both ends), the notification record a hook and
        // the CLI read, the status report and the read-only view of the database it is gathered
        // from, the outbox's submission rules.
        .target(name: "IntrapushInterface", dependencies: ["IntrapushStore", "IntrapushConfiguration", "IntrapushSupport"]),
        // The CLI's side: queries, follow, marks, tables, JSON, CSV and the status report's text.
        .target(
            name: "IntrapushQuery",
            dependencies: ["IntrapushInterface", "IntrapushStore", "IntrapushConfiguration", "IntrapushSupport"]),
        // The daemon's kit: the session and its machines, the NIO connection, network awareness,
        // hooks, systemd, and the services that wire them.
        .target(
            name: "IntrapushDaemonKit",
            dependencies: [
                "IntrapushInterface",
                "IntrapushStore",
                "IntrapushConfiguration",
                "IntrapushSupport",
                "CSystemd",
                "CLinux",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The desktop agent's kit: the session bus through sd-bus, what a notification looks like
        // on the desktop, and the agent's machine and loop. No NIO, no TLS.
        .target(
            name: "IntrapushNotifier",
            dependencies: ["IntrapushInterface", "IntrapushStore", "IntrapushConfiguration", "IntrapushSupport", "CSystemd"]
        ),
        .target(
            name: "IntrapushDevServer",
            dependencies: [
                "CSQLite",
                "IntrapushSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "intrapushd",
            dependencies: [
                "CLinux",
                "IntrapushDaemonKit",
                "IntrapushConfiguration",
                "IntrapushSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "intrapush",
            dependencies: [
                "IntrapushQuery",
                "IntrapushInterface",
                "IntrapushStore",
                "IntrapushConfiguration",
                "IntrapushSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "intrapush-notifier",
            dependencies: [
                "IntrapushNotifier",
                "IntrapushInterface",
                "IntrapushConfiguration",
                "IntrapushSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "intrapush-devserver",
            dependencies: [
                "IntrapushDevServer",
                "IntrapushSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `make fleet-sim`: the daemon's own session machine driven for a simulated fleet.
        // and a fleet under one token, each host its own identity, against a running devserver.
        .target(name: "IntrapushFleetSimulation", dependencies: ["IntrapushDaemonKit", "IntrapushDevServer"]),
        .executableTarget(
            name: "intrapush-fleet-sim",
            dependencies: ["IntrapushFleetSimulation", "IntrapushDaemonKit", "IntrapushDevServer", "IntrapushSupport"]),
        // What every test target shares: temporary directories and waiting. A library no product
        // links, so release builds of the programs never compile it.
        .target(name: "TestSupport", dependencies: ["IntrapushInterface", "IntrapushStore"], path: "Tests/TestSupport"),
        // A test target per library, its folders following the library's.
        .testTarget(name: "IntrapushSupportTests", dependencies: ["TestSupport", "IntrapushSupport"]),
        .testTarget(
            name: "IntrapushConfigurationTests",
            dependencies: [
                "TestSupport", "IntrapushConfiguration", "IntrapushSupport",
                // Its checks of client identities and log levels, as the daemon makes them.
                "IntrapushDaemonKit",
                // The oracle of FlatTOML's differential test; linked into no program.
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .testTarget(name: "IntrapushStoreTests", dependencies: ["TestSupport", "IntrapushStore", "IntrapushSupport"]),
        .testTarget(
            name: "IntrapushQueryTests",
            dependencies: ["TestSupport", "IntrapushQuery", "IntrapushInterface", "IntrapushStore", "IntrapushSupport"]
        ),
        .testTarget(
            name: "IntrapushDaemonKitTests",
            dependencies: [
                "TestSupport", "IntrapushDaemonKit", "IntrapushQuery", "IntrapushStore", "IntrapushConfiguration",
                "IntrapushSupport", "IntrapushInterface", "IntrapushFleetSimulation",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "IntrapushInterfaceTests", dependencies: ["TestSupport", "IntrapushInterface", "IntrapushQuery", "IntrapushStore", "IntrapushSupport"]),
        .testTarget(name: "IntrapushNotifierTests", dependencies: ["TestSupport", "IntrapushNotifier", "IntrapushInterface", "IntrapushStore"]),
        .testTarget(name: "IntrapushDevServerTests", dependencies: ["TestSupport", "IntrapushDevServer"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "TestSupport", "IntrapushDaemonKit", "IntrapushQuery", "IntrapushStore", "IntrapushConfiguration", "IntrapushSupport",
                "IntrapushInterface", "IntrapushDevServer", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
    ]
)
