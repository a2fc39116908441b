// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "intrapush",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "intrapushd", targets: ["intrapushd"]),
        .executable(name: "intrapush", targets: ["intrapush"]),
        .executable(name: "intrapush-devserver", targets: ["intrapush-devserver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", exact: "0.6.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // glibc's malloc_trim and getrandom (no library to link: libc itself).
        .systemLibrary(name: "CLinux"),
        .target(name: "CIntrapushSearch", dependencies: ["CSQLite"]),
        .target(
            name: "IntrapushCore",
            dependencies: [
                "CSQLite",
                "CIntrapushSearch",
                "CSystemd",
                "CLinux",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]
        ),
        .target(
            name: "IntrapushDevServer",
            dependencies: [
                "CSQLite",
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
                "IntrapushCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "intrapush",
            dependencies: [
                "IntrapushCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "intrapush-devserver",
            dependencies: [
                "IntrapushDevServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "IntrapushCoreTests",
            dependencies: ["IntrapushCore", .product(name: "NIOHTTP1", package: "swift-nio")]
        ),
        .testTarget(name: "IntrapushDevServerTests", dependencies: ["IntrapushDevServer"]),
        .testTarget(name: "IntegrationTests", dependencies: ["IntrapushCore", "IntrapushDevServer"]),
    ]
)
