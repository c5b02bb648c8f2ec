/// The file extensions of the store types `strata` can write, one a line. Suites that take
/// `arguments: storeExtensions` run once per entry (`convert` once per pair), so that each new
/// store type of the CLI is covered by adding one line here: "sqlite" when the SQLite store is
/// merged, "xml" when the XML store is.
let storeExtensions: [String] = [
    "plist",
]

/// Every (source, destination) pair of store extensions, same type included.
let storeExtensionPairs: [(String, String)] = storeExtensions.flatMap { source in
    storeExtensions.map { (source, $0) }
}
