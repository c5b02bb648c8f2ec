// swift-tools-version: 6.0
import Foundation
import PackageDescription

// The root package, by path. A path dependency's identity is its directory's name, which
// depends on where the repository is checked out, so it is read from this file's location.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let rootIdentity = root.lastPathComponent.lowercased()

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // The sqlite3 C API for the raw baseline; named apart from Strata's own CSQLite module.
        .systemLibrary(name: "CSQLiteRaw", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "StrataBenchmarks",
            dependencies: [
                .product(name: "Strata", package: rootIdentity),
                .product(name: "StrataSQLite", package: rootIdentity),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CSQLiteRaw",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
