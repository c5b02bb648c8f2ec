import FuzzSupport
import Strata
import StrataBinaryPlist

private let file = FuzzInputFile(name: "store.plist")

/// Any bytes as a binary property list store file: reading the metadata, the whole file, and
/// opening and dumping it with the schema it holds must each work or throw, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBinaryPlistStore(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    file.write(fuzzInput(start, count))
    StoreProbe.readAndDump(file.url, format: BinaryPlistStoreFormat())
    return 0
}

@main
enum FuzzBinaryPlistStore {
    static func main() {
        runLibFuzzer(fuzzBinaryPlistStore)
    }
}
