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
        .library(name: "StrataSQLite", targets: ["StrataSQLite"]),
        .library(name: "StrataXML", targets: ["StrataXML"]),
        .library(name: "StrataBinaryPlist", targets: ["StrataBinaryPlist"]),
        .library(name: "StrataCoreData", targets: ["StrataCoreData"]),
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        // The conformance suite and test helpers, for the tests of Strata and of third-party stores.
        .library(name: "StrataTestKit", targets: ["StrataTestKit"]),
        .executable(name: "strata", targets: ["StrataCLI"]),
        .executable(name: "todo-example", targets: ["TodoExample"]),
        .executable(name: "customers-example", targets: ["CustomersExample"]),
        .executable(name: "moody-example", targets: ["MoodyExample"]),
        .executable(name: "people-example", targets: ["PeopleExample"]),
        // Generates the typed classes of the models a target lists, at every build.
        .plugin(name: "StrataGeneratorPlugin", targets: ["StrataGeneratorPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // `swift package generate-documentation`: the DocC catalogs of the library modules.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
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
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // What the SQL stores share, whatever their engine: the dialects, the tables' plan (and
        // next, the predicate compiler). No product: package access for the store modules.
        .target(
            name: "StrataSQL",
            dependencies: ["Strata"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataSQLite",
            dependencies: ["Strata", "StrataSQL", "CSQLite", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        // The PostgreSQL store on libpq: blocking calls behind Strata's synchronous store protocol.
        // Declarations only (no pkg-config, whose flags would link it): the store loads libpq
        // with dlopen when it first connects, so programs that never do pay nothing for it.
        .systemLibrary(
            name: "CLibPQ",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(
            name: "StrataPostgres",
            dependencies: ["Strata", "StrataSQL", "CLibPQ"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataXML",
            dependencies: ["Strata", "CLibXML2"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataBinaryPlist",
            dependencies: ["Strata"],
            swiftSettings: strictSettings
        ),
        // Core Data's own files: `.xcdatamodel(d)` models, and Core Data's SQLite and XML stores
        // (read with the readers of the store modules).
        .target(
            name: "StrataCoreData",
            dependencies: ["Strata", "StrataSQLite", "StrataXML", "StrataBinaryPlist", "CSQLite", "CLibXML2"],
            swiftSettings: strictSettings
        ),
        // The conformance suite every store runs from its tests, and the helpers of the test
        // targets. It imports Testing (the toolchain's), so apps that do not use it never link it.
        .target(
            name: "StrataTestKit",
            dependencies: ["Strata"],
            swiftSettings: strictSettings
        ),
        // The CLI lives in Sources/strata; its module is StrataCLI so that it never
        // collides with the `Strata` module on case-insensitive file systems.
        .executableTarget(
            name: "StrataCLI",
            dependencies: [
                "Strata", "StrataSQLite", "StrataXML", "StrataBinaryPlist", "StrataCoreData", "StrataGenerator",
                "StrataPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/strata",
            swiftSettings: strictSettings
        ),
        // Swift classes from a model: `strata generate`, and the tool the build plugin runs.
        .target(
            name: "StrataGenerator",
            dependencies: ["Strata"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata-generate",
            dependencies: ["StrataGenerator", "Strata"],
            path: "Sources/strata-generate",
            swiftSettings: strictSettings
        ),
        // The PostgreSQL store's load test: worker processes doing conflicting saves on one store.
        // Not a product; the tests run it from the build's products directory, and
        // Scripts/postgres-load-test.sh for a developer.
        .executableTarget(
            name: "strata-pg-stress",
            dependencies: ["Strata", "StrataPostgres", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/strata-pg-stress",
            swiftSettings: strictSettings
        ),
        .plugin(
            name: "StrataGeneratorPlugin",
            capability: .buildTool(),
            dependencies: ["strata-generate"]
        ),
        // The examples (`swift run <name>-example`), each with the classes the plugin generates
        // from the model its strata.json names.
        .executableTarget(
            name: "TodoExample",
            dependencies: ["Strata", "StrataSQLite", "StrataXML", "StrataBinaryPlist", "StrataPostgres"],
            path: "Examples/TodoList",
            swiftSettings: strictSettings,
            plugins: ["StrataGeneratorPlugin"]
        ),
        .executableTarget(
            name: "CustomersExample",
            dependencies: ["Strata", "StrataSQLite", "StrataXML", "StrataBinaryPlist"],
            path: "Examples/Customers",
            swiftSettings: strictSettings,
            plugins: ["StrataGeneratorPlugin"]
        ),
        .executableTarget(
            name: "MoodyExample",
            dependencies: ["Strata", "StrataSQLite"],
            path: "Examples/Moody",
            swiftSettings: strictSettings,
            plugins: ["StrataGeneratorPlugin"]
        ),
        .executableTarget(
            name: "PeopleExample",
            dependencies: ["Strata", "StrataBinaryPlist"],
            path: "Examples/People",
            swiftSettings: strictSettings,
            plugins: ["StrataGeneratorPlugin"]
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: ["StrataTestKit", "Strata"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataSQLiteTests",
            dependencies: ["StrataTestKit", "StrataSQLite", "StrataSQL", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataXMLTests",
            dependencies: ["StrataTestKit", "StrataXML"],
            // Golden files the tests read from the source tree.
            exclude: ["Golden"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataBinaryPlistTests",
            dependencies: ["StrataTestKit", "StrataBinaryPlist"],
            // Golden files, read from the source tree by path and compared byte for byte.
            exclude: ["Golden"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataCoreDataTests",
            dependencies: ["StrataTestKit", "StrataCoreData", "Strata", "StrataSQLite", "StrataXML", "StrataBinaryPlist"],
            swiftSettings: strictSettings
        ),
        // The conformance suite of StrataTestKit, run against every store type of this package.
        .testTarget(
            name: "StrataConformanceTests",
            dependencies: ["StrataTestKit", "Strata", "StrataSQLite", "StrataXML", "StrataBinaryPlist"],
            swiftSettings: strictSettings
        ),
        // The test kit's own tests, and a store written outside Strata run through the whole
        // conformance suite with public API only.
        .testTarget(
            name: "StrataTestKitTests",
            dependencies: ["StrataTestKit", "Strata", "StrataBinaryPlist"],
            swiftSettings: strictSettings
        ),
        // The generator's output for a model with every kind of property, compiled here and
        // compared with what the generator makes now.
        .testTarget(
            name: "StrataGeneratorTests",
            dependencies: ["StrataTestKit", "StrataGenerator", "Strata"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        // The PostgreSQL store against a real server (STRATA_POSTGRES_URL; Scripts/postgres-server.sh).
        .testTarget(
            name: "StrataPostgresTests",
            dependencies: ["StrataTestKit", "StrataPostgres", "Strata", "StrataSQLite", "StrataCLI", "strata-pg-stress"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataCLITests",
            // The store modules too, to plant problems in store files for `strata check`; the
            // examples, so that they are built for the tests that run them.
            dependencies: [
                "StrataTestKit", "StrataCLI", "Strata", "StrataSQLite", "StrataXML", "StrataBinaryPlist", "StrataCoreData",
                "TodoExample", "CustomersExample", "MoodyExample", "PeopleExample",
            ],
            // Expected CLI output, read from the source tree by path and compared exactly.
            exclude: ["Golden"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
