// swift-tools-version: 6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .executable(name: "strata", targets: ["StrataCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .target(
            name: "Strata",
            dependencies: [
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The CLI lives in Sources/strata; its module is StrataCLI so that it never
        // collides with the `Strata` module on case-insensitive file systems.
        .executableTarget(
            name: "StrataCLI",
            dependencies: [
                "Strata",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/strata",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: ["Strata"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataCLITests",
            dependencies: ["StrataCLI"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
