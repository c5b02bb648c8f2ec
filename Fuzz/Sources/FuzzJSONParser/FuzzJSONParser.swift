import FuzzSupport
@testable import Strata

/// Any bytes: the parser must return a value or throw a `JSONSyntaxError` whose location is
/// inside the text. What parses must write back (`JSONWriter`) as JSON that parses to a value
/// written the same way.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONParser(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    let node: JSONNode
    do {
        node = try JSONParser.parse(bytes)
    } catch {
        precondition(error.location.line >= 1 && error.location.column >= 1, "error outside the text: \(error)")
        precondition(!error.message.isEmpty)
        return 0
    }
    for writer in [JSONWriter(sortKeys: false, pretty: true), JSONWriter(sortKeys: true, pretty: false)] {
        let written = writer.string(from: node.value)
        let reparsed: JSONNode
        do {
            reparsed = try JSONParser.parse(Array(written.utf8))
        } catch {
            preconditionFailure("parsed, but its written form does not: \(error)\n\(written)")
        }
        precondition(writer.string(from: reparsed.value) == written, "written form changes when read back:\n\(written)")
    }
    return 0
}

@main
enum FuzzJSONParser {
    static func main() {
        runLibFuzzer(fuzzJSONParser)
    }
}
