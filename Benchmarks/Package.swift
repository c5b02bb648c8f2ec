// swift-tools-version: 6.0
import PackageDescription

// Benchmarks live in their own package so that the library never depends on what it is measured
// against. Run in release: `swift run -c release --package-path Benchmarks XMLBenchmarks`.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "XMLBenchmarks",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataXML", package: "Strata"),
                "CLibXML2Bench",
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // libxml2 for the raw SAX-parse baseline, wrapped like the library's CLibXML2.
        .systemLibrary(
            name: "CLibXML2Bench",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
