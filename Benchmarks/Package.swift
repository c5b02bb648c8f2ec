// swift-tools-version: 6.0
import PackageDescription

// Benchmarks live in their own package so that the library never depends on what it is measured
// against. Run in release mode: `swift run -c release --package-path Benchmarks <name>`.
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
    ],
    swiftLanguageModes: [.v6]
)
