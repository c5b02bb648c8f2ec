import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A fixture read with Foundation's plain XML parser, to check Strata's reading against: each
/// `<object>` with its attributes' texts and its relationships' ids as written.
struct PlainCoreDataXML {
    struct Object {
        var type: String
        var id: String
        var attributes: [String: (type: String, text: String)] = [:]
        var relationships: [String: (type: String, idrefs: [String])] = [:]
    }

    var objects: [Object] = []

    init(contentsOf url: URL) throws {
        let delegate = Delegate()
        let parser = try require(XMLParser(contentsOf: url))
        parser.delegate = delegate
        parser.shouldResolveExternalEntities = false
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
        objects = delegate.objects
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var objects: [Object] = []
        var attribute: (name: String, type: String)?
        var text = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
            switch name {
            case "object":
                objects.append(Object(type: attributes["type"]!, id: attributes["id"]!))
            case "attribute" where !objects.isEmpty:
                attribute = (attributes["name"]!, attributes["type"]!)
                text = ""
            case "relationship":
                let idrefs = (attributes["idrefs"] ?? "").split(separator: " ").map(String.init)
                objects[objects.count - 1].relationships[attributes["name"]!] = (attributes["type"]!, idrefs)
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if attribute != nil { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "attribute", let attribute {
                objects[objects.count - 1].attributes[attribute.name] = (attribute.type, text)
                self.attribute = nil
            }
        }
    }
}

private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw CocoaError(.fileReadCorruptFile) }
    return value
}

extension PlainCoreDataXML {
    /// Every difference between the objects as written and `dump` (Strata's JSON data format,
    /// parsed), entity and property names compared case-insensitively; empty when they agree.
    /// To-many members are compared in the dump's order when `ordered` names the relationship,
    /// as sets otherwise.
    func differences(from dump: Data, ordered: Set<String> = []) throws -> [String] {
        let root = try require(try JSONSerialization.jsonObject(with: dump) as? [String: Any])
        let entities = try require(root["objects"] as? [String: [[String: Any]]])
        var problems: [String] = []
        var dumped = 0
        for (_, objects) in entities { dumped += objects.count }
        if dumped != objects.count { problems.append("\(objects.count) objects in the file, \(dumped) in the dump") }
        func key(_ id: String) -> Int { Int(id.drop { !$0.isNumber })! }
        for object in objects {
            let label = "\(object.type) \(object.id)"
            guard let (_, list) = entities.first(where: { $0.key.uppercased() == object.type }),
                  let dumpedObject = list.first(where: { ($0["@id"] as? Int) == key(object.id) })
            else {
                problems.append("\(label) is not in the dump")
                continue
            }
            let values = Dictionary(uniqueKeysWithValues: dumpedObject.map { ($0.key.lowercased(), $0.value) })
            for (name, (type, text)) in object.attributes {
                let value = values[name.lowercased()]
                let matches: Bool
                switch type {
                case "string": matches = (value as? String) == text
                case "int16", "int32", "int64": matches = (value as? Int).map(String.init) == text
                case "bool": matches = (value as? Bool) == (text == "1")
                case "binary", "transformable":
                    let compact = text.filter { !$0.isWhitespace }
                    matches = (value as? String) == Data(base64Encoded: compact)?.base64EncodedString()
                default: matches = false
                }
                if !matches { problems.append("\(label).\(name): \(String(describing: value)) in the dump, \(String(reflecting: text)) (\(type)) in the file") }
            }
            for (name, (type, idrefs)) in object.relationships {
                let value = values[name.lowercased()]
                let keys = idrefs.map(key)
                if type == "1/1" {
                    if (value as? Int) != keys.first && !(keys.isEmpty && value is NSNull) {
                        problems.append("\(label).\(name): \(String(describing: value)) in the dump, \(idrefs) in the file")
                    }
                } else {
                    let members = value as? [Int] ?? [-1]
                    if ordered.contains(name.lowercased()) ? members != keys : members != keys.sorted() {
                        problems.append("\(label).\(name): \(members) in the dump, \(idrefs) in the file")
                    }
                }
            }
            // Whatever the file leaves out is nil or empty in the dump.
            let written = Set(object.attributes.keys.map { $0.lowercased() } + object.relationships.keys.map { $0.lowercased() })
            for (name, value) in values where name != "@id" && !written.contains(name) {
                if !(value is NSNull) && (value as? [Any])?.isEmpty != true {
                    problems.append("\(label).\(name) is \(value) in the dump, missing in the file")
                }
            }
        }
        return problems
    }
}
