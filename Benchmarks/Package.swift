// swift-tools-version: 6.0
import Foundation
import PackageDescription

// Benchmarks live in their own package so that the library never depends on what it is measured
// against. Run in release mode: `swift run -c release --package-path Benchmarks <name>`; the
// measured tables are in the README. XMLBenchmarks takes OBJECTS, RUNS and PROFILE=read|write
// (repeat one side, for perf) from the environment.

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
        .package(url: "https://github.com/vapor/fluent-kit", exact: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", exact: "2.14.0"),
    ],
    targets: [
        // The SQLite store against the raw sqlite3 C API and GRDB records, 100k objects.
        .executableTarget(
            name: "StrataBenchmarks",
            dependencies: [
                .product(name: "Strata", package: rootIdentity),
                .product(name: "StrataSQLite", package: rootIdentity),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CSQLiteRaw",
            ]
        ),
        // Save and load of 100k objects in the binary store against Python's plistlib.
        .executableTarget(
            name: "BinaryPlistBenchmark",
            dependencies: [
                .product(name: "Strata", package: rootIdentity),
                .product(name: "StrataBinaryPlist", package: rootIdentity),
            ]
        ),
        // Save and load of 100k objects in the XML store against a raw libxml2 SAX parse and a
        // plain buffered write of the same bytes.
        .executableTarget(
            name: "XMLBenchmarks",
            dependencies: [
                .product(name: "Strata", package: rootIdentity),
                .product(name: "StrataXML", package: rootIdentity),
                "CLibXML2Bench",
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Save and open of a library-shaped store (issue 12's data set) in the binary and XML
        // stores: AtomicStore's whole save and open, and the formats' encode and decode.
        .executableTarget(
            name: "AtomicStoreBenchmark",
            dependencies: [
                .product(name: "Strata", package: rootIdentity),
                .product(name: "StrataBinaryPlist", package: rootIdentity),
                .product(name: "StrataXML", package: rootIdentity),
            ]
        ),
        // Iterating a million objects of a SQLite store with a batch size: peak resident memory.
        .executableTarget(
            name: "MemoryBenchmark",
            dependencies: [
                .product(name: "Strata", package: rootIdentity),
                .product(name: "StrataSQLite", package: rootIdentity),
            ]
        ),
        // Migrating a SQLite store of 1M objects: Strata in place, raw SQL, a GRDB migration, a
        // copy through objects.
        .executableTarget(
            name: "MigrationBenchmark",
            dependencies: [
                .product(name: "Strata", package: rootIdentity),
                .product(name: "StrataSQLite", package: rootIdentity),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CSQLiteRaw",
            ]
        ),
        // The PostgreSQL store and a context on it against raw libpq and Fluent, 100k objects on
        // the server at STRATA_POSTGRES_URL. Fluent is measured by FluentPostgresBenchmark, which
        // PostgresBenchmarks runs in turn with the others when it is built (Fluent's first build
        // takes a long time; the rest builds without it).
        .executableTarget(
            name: "PostgresBenchmarks",
            dependencies: [
                .product(name: "Strata", package: rootIdentity),
                .product(name: "StrataPostgres", package: rootIdentity),
                "CLibPQRaw",
                "PostgresBenchmarkRows",
            ]
        ),
        .executableTarget(
            name: "FluentPostgresBenchmark",
            dependencies: [
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                "PostgresBenchmarkRows",
            ]
        ),
        // The rows both measure, and the clock.
        .target(name: "PostgresBenchmarkRows"),
        // libpq for the raw baseline, linked here (the library may load it lazily).
        .systemLibrary(name: "CLibPQRaw", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // The sqlite3 C API for the raw baseline; named apart from Strata's own CSQLite module.
        .systemLibrary(name: "CSQLiteRaw", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libxml2 for the raw SAX-parse baseline, wrapped like the library's CLibXML2 (which is
        // not a product of the Strata package).
        .systemLibrary(
            name: "CLibXML2Bench",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
