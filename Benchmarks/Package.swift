// swift-tools-version: 6.0
import PackageDescription

// Benchmarks live in their own package so that the library never depends on what it is measured
// against. Run in release mode: `swift run -c release --package-path Benchmarks <name>`; the
// measured tables are in the README. XMLBenchmarks takes OBJECTS, RUNS and PROFILE=read|write
// (repeat one side, for perf) from the environment.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: ".."),
    ],
    targets: [
        // Save and load of 100k objects in the binary store against Python's plistlib.
        .executableTarget(
            name: "BinaryPlistBenchmark",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataBinaryPlist", package: "Strata"),
            ]
        ),
        // Save and load of 100k objects in the XML store against a raw libxml2 SAX parse and a
        // plain buffered write of the same bytes.
        .executableTarget(
            name: "XMLBenchmarks",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataXML", package: "Strata"),
                "CLibXML2Bench",
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
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
