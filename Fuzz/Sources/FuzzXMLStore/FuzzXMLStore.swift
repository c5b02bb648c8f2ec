import FuzzSupport
import Strata
import StrataXML

private let file = FuzzInputFile(name: "store.xml")

/// Any bytes as an XML store file: reading the metadata, the whole file, and opening and dumping
/// it with the schema it holds must each work or throw, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMLStore(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    file.write(fuzzInput(start, count))
    StoreProbe.readAndDump(file.url, format: XMLStoreFormat())
    return 0
}

@main
enum FuzzXMLStore {
    static func main() {
        runLibFuzzer(fuzzXMLStore)
    }
}
