public import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Loads objects in Strata's JSON data format into a context:
/// ```json
/// { "objects": { "Tag": [ { "@id": 1, "name": "home", "todos": [1] } ],
///                "Todo": [ { "@id": 1, "title": "Buy milk", "tags": [1] } ] } }
/// ```
/// Objects keep their `@id` as primary key; missing attributes take their defaults; a
/// relationship may be given from either side (the inverse follows) or both (they must agree);
/// every reference names an object of the input or one already stored. Add every file, then
/// ``save()``: the whole load is one save. (Or ``finish()``, to have the objects made in the
/// context, then save the context.)
///
/// Files are read as a stream of JSON tokens, never as a whole tree: each object's attributes
/// are converted straight from the tokens when its closing brace is read; relationships are kept
/// as the `@id`s they name and resolved in one pass at the end. A load that touches no stored
/// object is saved as records, never made into objects (see ``save()``).
///
/// ```swift
/// let importer = DataImporter(context: context)
/// try importer.add(contentsOf: url)
/// try importer.save()
/// ```
public final class DataImporter {
    public let context: ManagedObjectContext
    var schema: Schema { context.coordinator.schema }

    /// An object's place among the objects of one inheritance hierarchy.
    struct Key: Hashable {
        var root: Int
        var id: Int64
    }

    /// An object read from the input: its attribute values (defaults, then what the input
    /// gives), and its object once the load goes through the context.
    struct Item {
        var values: AttributeValues
        /// The positions of the attributes the input gives (the others keep their defaults).
        var given: PropertyMask
        var object: ManagedObject?
        var id: Int64
        var file: Int
        var entity: Int
        /// Its index in its entity's array.
        var position: Int
        var location: SourceLocation
        /// Where its `@id` value is.
        var idLocation: SourceLocation
    }

    /// A relationship given in the input: `references[start ..< start + count]` for a to-many,
    /// one reference for a to-one, none for a to-one given as null.
    struct Given {
        var source: Int
        var relationship: Int
        var start: Int
        var count: Int
        var isNull: Bool
        var location: SourceLocation
        /// Written to the store as it was read (a streamed load).
        var isWritten = false
    }

    /// One `@id` named by a relationship; `line` 0 marks an element that is no `@id` (already
    /// reported), kept so that the others keep their index.
    struct Reference {
        var id: Int64
        var line: Int
        var column: Int

        var location: SourceLocation { SourceLocation(line: line, column: column) }
    }

    /// What the reader knows of one entity. A class: the reader passes it per object.
    final class EntityTable {
        let entity: EntityDescription
        let root: Int
        let attributes: [AttributeDescription]
        /// By attribute index: its position in the entity's attribute layout.
        let positions: [Int]
        let keys: [(name: [UInt8], slot: Slot)]
        let propertyNames: [String]

        init(entity: EntityDescription, root: Int, attributes: [AttributeDescription], positions: [Int], keys: [(name: [UInt8], slot: Slot)], propertyNames: [String]) {
            self.entity = entity
            self.root = root
            self.attributes = attributes
            self.positions = positions
            self.keys = keys
            self.propertyNames = propertyNames
        }
    }

    enum Slot {
        case id
        case attribute(Int)
        case relationship(Int)
    }

    /// A relationship of one entity, with the entities its destination may be. A class: the
    /// loops over relationships given read it per relationship, and copying it retained each of
    /// its fields.
    final class RelationshipTable {
        let entity: Int
        let relationship: RelationshipDescription
        /// Its position in the entity's relationships.
        let position: Int
        let isToMany: Bool
        let destinationRoot: Int
        let destination: EntityDescription?
        /// By entity index: whether an object of that entity may be the destination.
        let accepts: [Bool]

        init(entity: Int, relationship: RelationshipDescription, position: Int, destinationRoot: Int, destination: EntityDescription?, accepts: [Bool]) {
            self.entity = entity
            self.relationship = relationship
            self.position = position
            isToMany = relationship.isToMany
            self.destinationRoot = destinationRoot
            self.destination = destination
            self.accepts = accepts
        }
    }

    // The reader's state, read and written per token: `@exclusivity(unchecked)` spares the
    // dynamic exclusivity check of every access (a sixth of a load's reading time). An importer
    // is used by one thread, and no access here overlaps another to the same property.
    var files: [String?] = []
    @exclusivity(unchecked) var entityTables: [EntityTable?]
    /// By entity index: the index of its root in `rootNames` (-1 until its table is made).
    @exclusivity(unchecked) var entityRoots: [Int]
    var entityIndex: [String: Int] = [:]
    var rootNames: [String] = []
    @exclusivity(unchecked) var relationshipTables: [RelationshipTable] = []
    var relationshipIndex: [String: Int] = [:]

    @exclusivity(unchecked) var items: [Item] = []
    @exclusivity(unchecked) var imported: [Key: Int] = [:]
    @exclusivity(unchecked) var givens: [Given] = []
    @exclusivity(unchecked) var references: [Reference] = []
    @exclusivity(unchecked) var diagnostics: [Diagnostic] = []
    /// How many objects and arrays of the input were read whole, as trees: only values in
    /// error or skipped ever are; valid data is taken token by token.
    package internal(set) var treesBuilt = 0
    /// Whether ``load(contentsOf:)`` wrote the load as it read it (a bulk load).
    package internal(set) var wasStreamed = false
    /// While ``load(contentsOf:)`` streams objects into a store: what it keeps.
    @exclusivity(unchecked) var stream: Stream?
    /// Built on first use by ``describe(_:)`` and ``sortedByInput(_:)``.
    var itemsByObject: [ObjectIdentifier: Int]?

    /// Called as the load goes on (every few hundred objects and relationships), for a
    /// progress display.
    public var progress: ((Progress) -> Void)?

    /// How far a load has come.
    public struct Progress: Sendable, Hashable {
        public enum Phase: Sendable, Hashable {
            /// Reading a file: `completed` objects so far (of every file).
            case reading
            /// ``DataImporter/finish()``: `completed` of `total` relationships resolved.
            case resolving
            /// ``DataImporter/save()``: `total` objects being saved.
            case saving
        }

        public var phase: Phase
        public var completed: Int
        public var total: Int?
        /// The file being read, as named to `add`.
        public var file: String?
        /// How much of the file has been read, from 0 to 1, when its size is known.
        public var fractionOfFile: Double?
    }

    public init(context: ManagedObjectContext) {
        self.context = context
        let schema = context.coordinator.schema
        entityTables = Array(repeating: nil, count: schema.entities.count)
        entityRoots = Array(repeating: -1, count: schema.entities.count)
        for (index, entity) in schema.entities.enumerated() { entityIndex[entity.name] = index }
    }

    // MARK: - Adding files

    /// Reads one file of the data format, already in memory: creates its objects and sets their
    /// attributes. Problems are collected and reported together by ``finish()``.
    public func add(_ data: Data, file: String? = nil) {
        var reader = JSONReader(source: JSONMemorySource(data))
        read(&reader, file: file, size: data.count)
    }

    /// Reads one file of the data format from disk as a stream: creates its objects and sets
    /// their attributes. Problems in the data are collected and reported together by
    /// ``finish()``.
    /// - Parameters:
    ///   - url: the file.
    ///   - file: its name in diagnostics (by default the URL's path).
    /// - Throws: `storeIO` when the file cannot be opened or read (its objects are then not added).
    public func add(contentsOf url: URL, file: String? = nil) throws(StrataError) {
        let name = file ?? url.path
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StrataError(.storeIO, "cannot read the data file '\(Echo.value(name))': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        defer { close(descriptor) }
        var status = stat()
        let size = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : nil
        var reader = JSONReader(source: JSONFileSource(descriptor: descriptor))
        let mark = read(&reader, file: name, size: size)
        if let failure = reader.source.failure {
            rollBack(to: mark)
            throw StrataError(.storeIO, "cannot read the data file '\(Echo.value(name))': \(String(cString: strerror(failure)))")
        }
    }

    /// What the importer holds before a file, to forget the file's objects again.
    struct Mark {
        var items: Int
        var givens: Int
        var references: Int
        var diagnostics: Int
    }

    /// Reads a whole file; a malformed one adds nothing but its syntax error.
    @discardableResult
    private func read<Source: JSONByteSource>(_ reader: inout JSONReader<Source>, file: String?, size: Int?) -> Mark {
        let mark = Mark(items: items.count, givens: givens.count, references: references.count, diagnostics: diagnostics.count)
        files.append(file)
        itemsByObject = nil
        var document = Document(importer: self, file: files.count - 1, size: size)
        do {
            try document.read(&reader)
        } catch {
            rollBack(to: mark)
            report("malformed JSON: \(error.message)", file: files.count - 1, path: "", location: error.location)
        }
        return mark
    }

    /// Forgets the objects, relationships and diagnostics since `mark` (their objects are not
    /// made before ``finish()``).
    private func rollBack(to mark: Mark) {
        for item in items[mark.items...] {
            imported[Key(root: entityRoots[item.entity], id: item.id)] = nil
        }
        items.removeSubrange(mark.items...)
        givens.removeSubrange(mark.givens...)
        references.removeSubrange(mark.references...)
        diagnostics.removeSubrange(mark.diagnostics...)
        itemsByObject = nil
    }

    // MARK: - Tables

    func table(_ entity: Int) -> EntityTable {
        if let table = entityTables[entity] { return table }
        let description = schema.entities[entity]
        let root = rootIndex(description.rootName)
        var keys: [(name: [UInt8], slot: Slot)] = [(Array("@id".utf8), .id)]
        for (index, attribute) in description.attributes.enumerated() {
            keys.append((Array(attribute.name.utf8), .attribute(index)))
        }
        for relationship in description.relationships {
            keys.append((Array(relationship.name.utf8), .relationship(relationshipTable(relationship, of: entity))))
        }
        let names = description.attributes.filter { !$0.isTransient }.map(\.name) + description.relationships.map(\.name)
        let positions = description.attributes.map { description.attributeLayout.position(of: $0.name) ?? 0 }
        let table = EntityTable(entity: description, root: root, attributes: description.attributes, positions: positions, keys: keys, propertyNames: names)
        entityTables[entity] = table
        entityRoots[entity] = root
        return table
    }

    func rootIndex(_ name: String) -> Int {
        if let index = rootNames.firstIndex(of: name) { return index }
        rootNames.append(name)
        return rootNames.count - 1
    }

    private func relationshipTable(_ relationship: RelationshipDescription, of entity: Int) -> Int {
        let destination = schema.entity(named: relationship.destination)
        let accepts = schema.entities.map { candidate in
            candidate.name == relationship.destination || candidate.ancestorNames.contains(relationship.destination)
        }
        relationshipTables.append(RelationshipTable(
            entity: entity, relationship: relationship,
            position: schema.entities[entity].relationshipPosition(of: relationship.name) ?? 0,
            destinationRoot: rootIndex(destination?.rootName ?? relationship.destination),
            destination: destination, accepts: accepts))
        return relationshipTables.count - 1
    }

    // MARK: - Places and problems

    func path(of item: Item) -> String {
        "objects.\(schema.entities[item.entity].name)[\(item.position)]"
    }

    func path(of given: Given) -> String {
        path(of: items[given.source]) + "." + relationshipTables[given.relationship].relationship.name
    }

    func report(_ message: String, file: Int, path: String, location: SourceLocation?) {
        diagnostics.append(Diagnostic(severity: .error, code: "invalidData", message: message, path: path, file: files[file], location: location))
    }

    func reportProgress(_ phase: Progress.Phase, completed: Int, total: Int? = nil, file: Int? = nil, fraction: Double? = nil) {
        progress?(Progress(phase: phase, completed: completed, total: total, file: file.flatMap { files[$0] }, fractionOfFile: fraction))
    }

    // MARK: - Describing objects

    /// Where an object came from, for messages about a failed save: `Todo @id 3 (data.json:12:5)`.
    public func describe(_ objectID: ObjectID) -> String? {
        guard let item = item(for: objectID) else { return nil }
        var text = "\(schema.entities[item.entity].name) @id \(item.id)"
        text += " (\(files[item.file].map { "\($0):" } ?? "")\(item.location))"
        return text
    }

    /// `failures` in the order of the input — by file, line and column, as ``finish()`` orders
    /// its diagnostics — then those of objects that were already stored, by object ID. A save
    /// lists the failures of new objects in no stable order (their IDs are still temporary);
    /// this gives a report that reads top to bottom and is the same on every run.
    public func sortedByInput(_ failures: [ValidationFailure]) -> [ValidationFailure] {
        func position(_ failure: ValidationFailure) -> (file: String, line: Int, column: Int)? {
            guard let item = item(for: failure.objectID) else { return nil }
            return (files[item.file] ?? "", item.location.line, item.location.column)
        }
        return failures.map { ($0, position($0)) }.sorted { lhs, rhs in
            switch (lhs.1, rhs.1) {
            case let (a?, b?) where a != b:
                return a < b
            case (.some, nil):
                return true
            case (nil, .some):
                return false
            case (nil, nil) where lhs.0.objectID != rhs.0.objectID:
                return lhs.0.objectID < rhs.0.objectID
            default:
                return (lhs.0.key ?? "", lhs.0.message) < (rhs.0.key ?? "", rhs.0.message)
            }
        }.map(\.0)
    }

    /// The item of an object: its permanent ID (the load saved as records) names the key it
    /// was read with; a temporary one is found through its object in the context.
    func item(for objectID: ObjectID) -> Item? {
        if let key = objectID.primaryKey {
            guard let entity = entityIndex[objectID.entityName], entityRoots[entity] >= 0,
                  let index = imported[Key(root: entityRoots[entity], id: key)], items[index].entity == entity
            else { return nil }
            return items[index]
        }
        guard let object = context.registeredObject(for: objectID) else { return nil }
        if itemsByObject == nil {
            var map: [ObjectIdentifier: Int] = [:]
            map.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                if let made = item.object { map[ObjectIdentifier(made)] = index }
            }
            itemsByObject = map
        }
        return itemsByObject?[ObjectIdentifier(object)].map { items[$0] }
    }
}
