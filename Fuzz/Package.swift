// swift-tools-version: 6.0
import Foundation
import PackageDescription

// libFuzzer targets, in their own package so that the library and its CI never build them. Build
// and run (see README.md):
//
//     swift build --package-path Fuzz -Xswiftc -sanitize=fuzzer,address
//     Fuzz/.build/debug/FuzzJSONParser Fuzz/Corpus/FuzzJSONParser -dict=Fuzz/Dictionaries/json.dict
//
// Each executable defines `LLVMFuzzerTestOneInput` and a `@main` that hands it to libFuzzer's
// driver (`LLVMFuzzerRunDriver`): SwiftPM links an executable's entry point under a name of its
// own, so libFuzzer's `main` cannot be the entry point. Without `-sanitize=fuzzer` the driver is
// missing and the targets do not link.

// The root package, by path. A path dependency's identity is its directory's name, which
// depends on where the repository is checked out, so it is read from this file's location.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let rootIdentity = root.lastPathComponent.lowercased()

func strata(_ product: String) -> Target.Dependency {
    .product(name: product, package: rootIdentity)
}

/// One executable per fuzz target, each a single file named after its target.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies)
}

let package = Package(
    name: "StrataFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        // The declaration of libFuzzer's driver, which each target's `main` calls.
        .target(name: "CLibFuzzer"),
        // What the targets share: the input as a file, and opening a store file the way
        // `strata dump` does.
        .target(
            name: "FuzzSupport",
            dependencies: ["CLibFuzzer", strata("Strata"), strata("StrataSQLite"), strata("StrataXML"), strata("StrataBinaryPlist")]
        ),
        // The JSON parser (package API, so through `@testable import`): parse, write, parse again.
        fuzzTarget("FuzzJSONParser", [strata("Strata")]),
        // A model file: decode and validate; what loads must encode and load back the same.
        fuzzTarget("FuzzSchema", [strata("Strata")]),
        // `FetchPredicate(format:)`: what parses must print back, and evaluate in memory and in SQL.
        fuzzTarget("FuzzPredicate", [strata("Strata"), strata("StrataSQLite")]),
        // Arbitrary bytes as an XML store file.
        fuzzTarget("FuzzXMLStore", [strata("Strata"), strata("StrataXML")]),
        // Arbitrary bytes as a binary property list store file.
        fuzzTarget("FuzzBinaryPlistStore", [strata("Strata"), strata("StrataBinaryPlist")]),
        // Arbitrary bytes as a SQLite store file.
        fuzzTarget("FuzzSQLiteStore", [strata("Strata"), strata("StrataSQLite")]),
    ],
    swiftLanguageModes: [.v6]
)
