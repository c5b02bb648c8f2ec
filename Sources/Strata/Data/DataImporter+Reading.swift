import Foundation

extension DataImporter {
    /// Reads one file's tokens into objects. A syntax error is thrown (the importer then forgets
    /// the file); every other problem is reported and reading goes on, so that one load lists
    /// them all.
    struct Document {
        let importer: DataImporter
        let file: Int
        let size: Int?

        /// The object being read: its attributes and problems wait for its `@id`.
        private var pendingAttributes: [(attribute: Int, value: AttributeValue?)] = []
        private var pendingProblems: [(message: String, path: String, location: SourceLocation)] = []
        /// By key slot: the number of the object that last had the key (duplicate keys).
        private var seenKeys: [Int] = []
        private var objectNumber = 0

        init(importer: DataImporter, file: Int, size: Int?) {
            self.importer = importer
            self.file = file
            self.size = size
        }

        mutating func read<Source: JSONByteSource>(_ reader: inout JSONReader<Source>) throws(JSONSyntaxError) {
            importer.reportProgress(.reading, completed: importer.items.count, file: file, fraction: size.map { _ in 0 })
            let first = try reader.next()
            let rootLocation = reader.tokenLocation
            guard first == .beginObject else {
                let kind = try readWhole(&reader, first).value.kindName
                _ = try reader.next()
                report("expected an object like {\"objects\": {\"Entity\": [...]}}, found \(kind)", path: "", at: rootLocation)
                return
            }
            var keys: Set<String> = []
            while try reader.next() == .key {
                let key = reader.string
                let keyLocation = reader.tokenLocation
                if !keys.insert(key).inserted { throw reader.syntaxError("duplicate key '\(key)' in the same object", at: keyLocation) }
                let value = try reader.next()
                if key == "objects" {
                    try readEntities(&reader, value)
                } else {
                    try skip(&reader, value)
                    report("unknown key '\(Echo.value(key))'; the data format has only 'objects'\(Suggestion.didYouMean(key, in: ["objects"]))", path: key, at: keyLocation)
                }
            }
            _ = try reader.next()
            if !keys.contains("objects") {
                report("missing 'objects': the data format is {\"objects\": {\"Entity\": [...]}}", path: "", at: rootLocation)
            }
        }

        private mutating func readEntities<Source: JSONByteSource>(_ reader: inout JSONReader<Source>, _ token: JSONToken) throws(JSONSyntaxError) {
            guard token == .beginObject else {
                let location = reader.tokenLocation
                let kind = try readWhole(&reader, token).value.kindName
                report("'objects' must map entity names to arrays of objects, found \(kind)", path: "objects", at: location)
                return
            }
            var names: Set<String> = []
            while try reader.next() == .key {
                let name = reader.string
                let keyLocation = reader.tokenLocation
                if !names.insert(name).inserted { throw reader.syntaxError("duplicate key '\(name)' in the same object", at: keyLocation) }
                let value = try reader.next()
                let valueLocation = reader.tokenLocation
                let path = "objects.\(name)"
                guard let entity = importer.entityIndex[name] else {
                    try skip(&reader, value)
                    report("the model has no entity '\(Echo.value(name))'\(Suggestion.didYouMean(name, in: importer.schema.entities.map(\.name)))", path: path, at: keyLocation)
                    continue
                }
                let description = importer.schema.entities[entity]
                guard !description.isAbstract else {
                    try skip(&reader, value)
                    report("entity '\(description.name)' is abstract and has no objects of its own; list them under its subentities (\(description.subentityNames.joined(separator: ", ")))", path: path, at: keyLocation)
                    continue
                }
                guard value == .beginArray else {
                    let kind = try readWhole(&reader, value).value.kindName
                    report("'\(name)' must be an array of objects, found \(kind)", path: path, at: valueLocation)
                    continue
                }
                let table = importer.table(entity)
                if seenKeys.count < table.keys.count { seenKeys += Array(repeating: -1, count: table.keys.count - seenKeys.count) }
                var position = 0
                while true {
                    let element = try reader.next()
                    if element == .endArray { break }
                    try readObject(&reader, element, entity: entity, table: table, position: position)
                    position += 1
                    if importer.items.count & 255 == 0 {
                        importer.reportProgress(.reading, completed: importer.items.count, file: file,
                                                fraction: size.map { Double(reader.offset) / Double(max($0, 1)) })
                    }
                }
            }
        }

        private mutating func readObject<Source: JSONByteSource>(
            _ reader: inout JSONReader<Source>, _ token: JSONToken, entity: Int, table: EntityTable, position: Int
        ) throws(JSONSyntaxError) {
            let location = reader.tokenLocation
            let path = ObjectPath(entity: table.entity.name, position: position)
            guard token == .beginObject else {
                let kind = try readWhole(&reader, token).value.kindName
                report("expected an object, found \(kind)", path: path.text, at: location)
                return
            }
            objectNumber += 1
            pendingAttributes.removeAll(keepingCapacity: true)
            pendingProblems.removeAll(keepingCapacity: true)
            var unknownKeys: [String] = []
            let givenMark = importer.givens.count
            let referenceMark = importer.references.count
            var id: Int64?
            var idLocation: SourceLocation?
            var expected = 0
            while try reader.next() == .key {
                let keyLocation = reader.tokenLocation
                let slotIndex = reader.withTokenBytes { bytes in Self.find(bytes, in: table.keys, from: expected) }
                if let slotIndex {
                    if seenKeys[slotIndex] == objectNumber {
                        throw reader.syntaxError("duplicate key '\(reader.string)' in the same object", at: keyLocation)
                    }
                    seenKeys[slotIndex] = objectNumber
                    expected = slotIndex + 1
                } else {
                    let key = reader.string
                    if unknownKeys.contains(key) { throw reader.syntaxError("duplicate key '\(key)' in the same object", at: keyLocation) }
                    unknownKeys.append(key)
                }
                let value = try reader.next()
                let valueLocation = reader.tokenLocation
                switch slotIndex.map({ table.keys[$0].slot }) {
                case .id:
                    idLocation = valueLocation
                    id = value == .number ? reader.integerValue.flatMap { $0 >= 1 ? $0 : nil } : nil
                    try skip(&reader, value)
                case .attribute(let index):
                    try readAttribute(&reader, value, table, index: index, path: path, keyLocation: keyLocation, valueLocation: valueLocation)
                case .relationship(let index):
                    try readRelationship(&reader, value, index, path: path, valueLocation: valueLocation)
                case nil:
                    try skip(&reader, value)
                    let name = unknownKeys.last!
                    problem("entity '\(table.entity.name)' has no property '\(Echo.value(name))'\(Suggestion.didYouMean(name, in: table.propertyNames))", path: path.text + "." + name, at: keyLocation)
                }
            }
            finishObject(entity: entity, table: table, position: position, location: location, id: id, idLocation: idLocation,
                         path: path, givenMark: givenMark, referenceMark: referenceMark)
        }

        /// Keeps the object just read, unless its `@id` is missing, invalid or taken.
        private mutating func finishObject(
            entity: Int, table: EntityTable, position: Int, location: SourceLocation, id: Int64?, idLocation: SourceLocation?,
            path: ObjectPath, givenMark: Int, referenceMark: Int
        ) {
            func discard() {
                importer.givens.removeSubrange(givenMark...)
                importer.references.removeSubrange(referenceMark...)
            }
            guard let idLocation else {
                discard()
                report("a \(table.entity.name) object needs '@id', its primary key", path: path.text, at: location)
                return
            }
            guard let id else {
                discard()
                report("'@id' must be a whole number of 1 or more", path: path.text + ".@id", at: idLocation)
                return
            }
            let key = Key(root: table.root, id: id)
            if let first = importer.imported[key].map({ importer.items[$0] }) {
                discard()
                let place = " at \(importer.files[first.file].map { "\($0):" } ?? "")\(first.location)"
                report("duplicate @id \(id) in the '\(table.entity.rootName)' hierarchy (first used\(place)); every object of a hierarchy needs its own @id", path: path.text + ".@id", at: idLocation)
                return
            }
            var values = table.entity.attributeDefaults
            var given = PropertyMask()
            for (attribute, value) in pendingAttributes {
                let position = table.positions[attribute]
                values[position: position] = value
                given.insert(position)
            }
            let index = importer.items.count
            // A bulk load writes the values now and keeps none.
            let streaming = importer.stream != nil
            importer.items.append(Item(values: streaming ? Self.noValues : values, given: streaming ? PropertyMask() : given, object: nil,
                                       id: id, file: file, entity: entity, position: position, location: location, idLocation: idLocation))
            importer.imported[key] = index
            for problem in pendingProblems { report(problem.message, path: problem.path, at: problem.location) }
            for given in givenMark..<importer.givens.count { importer.givens[given].source = index }
            if streaming { importer.streamItem(index, values: values, givens: givenMark..<importer.givens.count) }
        }

        private mutating func readAttribute<Source: JSONByteSource>(
            _ reader: inout JSONReader<Source>, _ token: JSONToken, _ table: EntityTable, index: Int, path: ObjectPath,
            keyLocation: SourceLocation, valueLocation: SourceLocation
        ) throws(JSONSyntaxError) {
            // Fields read in place: a copy of the description retains each of its own.
            let type = table.attributes[index].type
            guard !table.attributes[index].isTransient else {
                let attribute = table.attributes[index]
                try skip(&reader, token)
                problem("'\(attribute.name)' is a transient attribute: it is never stored, so it cannot be loaded", path: path.text + "." + attribute.name, at: keyLocation)
                return
            }
            let json: JSONValue
            switch token {
            case .null:
                pendingAttributes.append((index, nil))
                return
            case .string:
                if type == .string {
                    pendingAttributes.append((index, .string(reader.string)))
                    return
                }
                json = .string(reader.string)
            case .number:
                if let range = type.integerRange, let value = reader.integerValue, range.contains(value) {
                    pendingAttributes.append((index, .integer(value)))
                    return
                }
                json = .number(reader.string)
            case .true: json = .bool(true)
            case .false: json = .bool(false)
            default: json = try readWhole(&reader, token).value
            }
            do {
                pendingAttributes.append((index, try AttributeValue(json: json, as: type)))
            } catch {
                let attribute = table.attributes[index]
                problem("invalid \(attribute.type.rawValue) for '\(attribute.name)': \(error.message)", path: path.text + "." + attribute.name, at: valueLocation)
            }
        }

        private mutating func readRelationship<Source: JSONByteSource>(
            _ reader: inout JSONReader<Source>, _ token: JSONToken, _ index: Int, path: ObjectPath, valueLocation: SourceLocation
        ) throws(JSONSyntaxError) {
            let table = importer.relationshipTables[index]
            // Diagnostics only: made when a problem is reported.
            func memberPath() -> String { path.text + "." + table.relationship.name }
            var given = Given(source: -1, relationship: index, start: importer.references.count, count: 0, isNull: false, location: valueLocation)
            if table.isToMany {
                switch token {
                case .null:
                    return
                case .beginArray:
                    while true {
                        let element = try reader.next()
                        if element == .endArray { break }
                        try readReference(&reader, element, table, path: memberPath() + "[\(given.count)]")
                        given.count += 1
                    }
                default:
                    try skip(&reader, token)
                    problem("to-many '\(table.relationship.name)' must be an array of @id numbers of \(table.relationship.destination) objects", path: memberPath(), at: valueLocation)
                    return
                }
            } else if token == .null {
                given.isNull = true
            } else {
                let before = importer.references.count
                try readReference(&reader, token, table, path: memberPath())
                guard importer.references[before].line != 0 else {
                    importer.references.removeLast()
                    return
                }
                given.count = 1
            }
            importer.givens.append(given)
        }

        /// Records the `@id` a relationship names (or reports what is there instead).
        private mutating func readReference<Source: JSONByteSource>(
            _ reader: inout JSONReader<Source>, _ token: JSONToken, _ table: RelationshipTable, path: @autoclosure () -> String
        ) throws(JSONSyntaxError) {
            let location = reader.tokenLocation
            if token == .number, let id = reader.integerValue {
                importer.references.append(Reference(id: id, line: location.line, column: location.column))
                return
            }
            try skip(&reader, token)
            importer.references.append(Reference(id: 0, line: 0, column: 0))
            problem("expected the @id (a whole number) of a \(table.relationship.destination) object, found \(token.kindName)", path: path(), at: location)
        }

        /// A value read whole, as a tree: one the importer does not take token by token (it is
        /// in error, or skipped), so never one of valid data.
        private func readWhole<Source: JSONByteSource>(_ reader: inout JSONReader<Source>, _ token: JSONToken) throws(JSONSyntaxError) -> JSONNode {
            if token == .beginObject || token == .beginArray { importer.treesBuilt += 1 }
            return try reader.readValue(startingWith: token)
        }

        private func skip<Source: JSONByteSource>(_ reader: inout JSONReader<Source>, _ token: JSONToken) throws(JSONSyntaxError) {
            if token == .beginObject || token == .beginArray { _ = try readWhole(&reader, token) }
        }

        /// The index of the key named `bytes`, trying the one after the last key first (objects of
        /// an entity tend to list their keys in one order).
        private static func find(_ bytes: UnsafeBufferPointer<UInt8>, in keys: [(name: [UInt8], slot: Slot)], from expected: Int) -> Int? {
            func matches(_ index: Int) -> Bool {
                let name = keys[index].name
                guard name.count == bytes.count else { return false }
                return name.withUnsafeBufferPointer { name in
                    guard let first = name.baseAddress, let second = bytes.baseAddress else { return name.isEmpty }
                    return memcmp(first, second, bytes.count) == 0
                }
            }
            if expected < keys.count, matches(expected) { return expected }
            for index in keys.indices where index != expected && matches(index) { return index }
            return nil
        }

        private static let noValues = AttributeValues(layout: .empty)

        /// Where an object is in the input (`objects.Book[12]`), spelt out only for a diagnostic:
        /// building the text for every object and relationship cost more than reading them.
        struct ObjectPath {
            let entity: String
            let position: Int

            var text: String { "objects.\(entity)[\(position)]" }
        }

        /// A problem of the object being read, reported only if the object is created.
        private mutating func problem(_ message: String, path: String, at location: SourceLocation) {
            pendingProblems.append((message, path, location))
        }

        private func report(_ message: String, path: String, at location: SourceLocation) {
            importer.report(message, file: file, path: path, location: location)
        }
    }
}
