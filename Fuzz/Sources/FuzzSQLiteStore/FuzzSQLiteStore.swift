import FuzzSupport
import Strata

private let file = FuzzInputFile(name: "store.sqlite")

/// Any bytes as a SQLite store file: reading the metadata, opening it with the schema it holds
/// (which may migrate or repair it), fetching and dumping every object must each work or throw,
/// never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSQLiteStore(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    file.write(fuzzInput(start, count))
    StoreProbe.openAndDump(file.url, type: .sqlite)
    return 0
}

@main
enum FuzzSQLiteStore {
    static func main() {
        runLibFuzzer(fuzzSQLiteStore)
    }
}
