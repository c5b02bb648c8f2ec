public import Foundation

/// A data model: the entities an app stores, loaded from a JSON model file and validated.
///
/// A `Schema` is immutable and `Sendable`; share one between every context and store.
/// ```swift
/// let schema = try Schema(contentsOf: URL(fileURLWithPath: "Schemas/TodoList.json"))
/// let todo = schema.entity(named: "Todo")!
/// print(todo.attribute(named: "title")!.type)   // string
/// ```
public struct Schema: Sendable, Hashable {
    public let name: String
    public let version: String?
    /// Changes the model's version hash without changing anything else, to force a migration.
    public let versionHashModifier: String?
    /// Every entity, in the order of the model file, with inherited properties resolved.
    public let entities: [EntityDescription]
    public let configurations: [ConfigurationDescription]
    /// The stable hash of what in the whole model affects storage; see ``EntityDescription/versionHash``
    /// and `Docs/SchemaFormat.md` for what goes in.
    public let versionHash: String

    /// How many ancestors an entity may have: a model with a longer inheritance chain is
    /// invalid (diagnostic `inheritanceTooDeep`). Far more than any real model needs, few
    /// enough that loading, validating and hashing a model stay fast (an entity's version hash
    /// covers the names of all its ancestors).
    public static let maximumInheritanceDepth = 100

    private let entityIndex: [String: Int]

    /// A relationship without an inverse, with the entity that declares it (subentities
    /// inherit it): nothing on its destination's side knows of its references, so deleting a
    /// destination must look for them.
    package struct OneWayRelationship: Sendable, Hashable {
        package let entity: String
        package let relationship: RelationshipDescription
    }

    /// Every relationship without an inverse, in model order; found once, when the model is
    /// built (every save that deletes asks for them).
    package let oneWayRelationships: [OneWayRelationship]

    /// Builds and validates a model in code, with the same rules as a model file.
    ///
    /// Entities are given with their declared properties; inheritance is resolved here.
    /// - Throws: ``SchemaError`` with every problem found.
    public init(
        name: String,
        version: String? = nil,
        versionHashModifier: String? = nil,
        entities: [EntityDescription],
        configurations: [ConfigurationDescription] = []
    ) throws(SchemaError) {
        let json = SchemaEncoder.encode(
            name: name, version: version, versionHashModifier: versionHashModifier,
            entities: entities, configurations: configurations)
        let result = Self.load(json: JSONNode(json), file: nil)
        guard let schema = result.schema else {
            throw SchemaError(code: .invalidSchema, diagnostics: result.diagnostics)
        }
        self = schema
    }

    /// Loads a model file and throws if it has errors (warnings are allowed).
    /// - Throws: ``SchemaError`` — `unreadableFile`, or `invalidSchema` with every diagnostic.
    public init(contentsOf url: URL) throws(SchemaError) {
        let result = try Self.load(contentsOf: url)
        guard let schema = result.schema else {
            throw SchemaError(code: .invalidSchema, file: url.relativePath, diagnostics: result.diagnostics)
        }
        self = schema
    }

    /// Loads a model from the bytes of a model file and throws if it has errors.
    /// - Parameter data: the bytes of a model file (JSON).
    /// - Parameter file: how diagnostics name the source (for example its path).
    public init(data: Data, file: String? = nil) throws(SchemaError) {
        let result = Self.load(data: data, file: file)
        guard let schema = result.schema else {
            throw SchemaError(code: .invalidSchema, file: file, diagnostics: result.diagnostics)
        }
        self = schema
    }

    /// Reads and checks a model file, returning every diagnostic, warnings included.
    /// - Throws: ``SchemaError`` with code `unreadableFile` only when the file cannot be read;
    ///   problems inside the file are in the result.
    public static func load(contentsOf url: URL) throws(SchemaError) -> SchemaLoadResult {
        let file = url.relativePath
        do throws(StrataError) {
            // Reading a FIFO would block until a writer comes.
            try FileIdentity.requireRegularFile(url, role: "model file")
        } catch {
            throw SchemaError(code: .unreadableFile, file: file, reason: error.message)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.fileExists(atPath: url.path)
                ? (error as NSError).localizedDescription
                : "no such file"
            throw SchemaError(code: .unreadableFile, file: file, reason: reason)
        }
        return load(data: data, file: file)
    }

    /// Checks the bytes of a model file, returning every diagnostic, warnings included.
    public static func load(data: Data, file: String? = nil) -> SchemaLoadResult {
        let root: JSONNode
        do {
            root = try JSONParser.parse(Array(data))
        } catch {
            let diagnostic = Diagnostic(
                severity: .error, code: "invalidJSON", message: "malformed JSON: \(error.message)",
                path: "", file: file, location: error.location)
            return SchemaLoadResult(schema: nil, diagnostics: [diagnostic])
        }
        return load(json: root, file: file)
    }

    static func load(json root: JSONNode, file: String?) -> SchemaLoadResult {
        var decoder = SchemaDecoder(file: file)
        guard let draft = decoder.decode(root) else {
            return SchemaLoadResult(schema: nil, diagnostics: decoder.collector.sortedDiagnostics())
        }
        var validator = SchemaValidator(draft: draft, collector: decoder.collector)
        let collector = validator.validate()
        let diagnostics = collector.sortedDiagnostics()
        guard !collector.hasErrors else {
            return SchemaLoadResult(schema: nil, diagnostics: diagnostics)
        }
        return SchemaLoadResult(schema: Schema(validated: draft), diagnostics: diagnostics)
    }

    /// Builds the model from drafts that passed validation, resolving inheritance and hashes.
    private init(validated draft: SchemaDraft) {
        name = draft.name ?? ""
        version = draft.version
        versionHashModifier = draft.versionHashModifier
        configurations = draft.configurations.map { configuration in
            ConfigurationDescription(name: configuration.name ?? "", entityNames: configuration.entities.map(\.name))
        }
        var entities = draft.entities.map(Self.entity(from:))
        var index: [String: Int] = [:]
        for (position, entity) in entities.enumerated() { index[entity.name] = position }
        var children: [String: [String]] = [:]
        for entity in entities {
            if let parent = entity.parentName { children[parent, default: []].append(entity.name) }
        }
        for position in entities.indices {
            var ancestors: [String] = []
            var parent = entities[position].parentName
            while let name = parent, let parentPosition = index[name] {
                ancestors.append(name)
                parent = entities[parentPosition].parentName
            }
            let lineage = ancestors.reversed().compactMap { index[$0] }
            let name = entities[position].name
            entities[position].resolve(
                inheritedAttributes: lineage.flatMap { entities[$0].declaredAttributes },
                inheritedRelationships: lineage.flatMap { entities[$0].declaredRelationships },
                ancestors: ancestors,
                subentities: children[name] ?? [])
        }
        for position in entities.indices {
            entities[position].versionHash = VersionHash.entityHash(entities[position])
        }
        let resolved = entities
        for position in entities.indices {
            entities[position].resolveInverses { name in index[name].map { resolved[$0] } }
        }
        var oneWay: [OneWayRelationship] = []
        for entity in entities {
            let parent = entity.ancestorNames.first.flatMap { index[$0] }.map { entities[$0] }
            for relationship in entity.relationships where relationship.inverse == nil && parent?.relationship(named: relationship.name) == nil {
                oneWay.append(OneWayRelationship(entity: entity.name, relationship: relationship))
            }
        }
        self.oneWayRelationships = oneWay
        self.entities = entities
        self.entityIndex = index
        self.versionHash = VersionHash.modelHash(entities: entities, modifier: draft.versionHashModifier)
    }

    private static func entity(from draft: EntityDraft) -> EntityDescription {
        EntityDescription(
            name: draft.name ?? "",
            parentName: draft.parent,
            isAbstract: draft.isAbstract,
            attributes: draft.attributes.map { attribute in
                AttributeDescription(
                    name: attribute.name ?? "", type: attribute.type ?? .string, isOptional: attribute.isOptional,
                    defaultValue: attribute.defaultValue, isIndexed: attribute.isIndexed,
                    isTransient: attribute.isTransient, minimum: attribute.minimum, maximum: attribute.maximum,
                    minLength: attribute.minLength, maxLength: attribute.maxLength, regex: attribute.regex,
                    renamingIdentifier: attribute.renamingIdentifier, transformerName: attribute.transformer,
                    allowsExternalStorage: attribute.externalStorage,
                    versionHashModifier: attribute.versionHashModifier)
            },
            relationships: draft.relationships.map { relationship in
                RelationshipDescription(
                    name: relationship.name ?? "", destination: relationship.destination ?? "",
                    inverse: relationship.inverse, isToMany: relationship.isToMany,
                    isOrdered: relationship.isOrdered, isOptional: relationship.isOptional,
                    minCount: relationship.minCount, maxCount: relationship.maxCount,
                    deleteRule: relationship.deleteRule, renamingIdentifier: relationship.renamingIdentifier,
                    versionHashModifier: relationship.versionHashModifier)
            },
            uniquenessConstraints: draft.uniquenessConstraints.map { $0.map(\.name) },
            indexes: draft.indexes.map { index in
                IndexDescription(
                    name: index.name ?? "",
                    elements: index.elements.map { IndexDescription.Element(property: $0.property.name, order: $0.order) })
            },
            versionHashModifier: draft.versionHashModifier,
            renamingIdentifier: draft.renamingIdentifier)
    }

    // MARK: - Looking things up

    public func entity(named name: String) -> EntityDescription? {
        entityIndex[name].map { entities[$0] }
    }

    /// The entity and all its descendants, in model order (what a fetch of `name` covers).
    public func entityAndDescendants(of name: String) -> [EntityDescription] {
        guard let start = entityIndex[name] else { return [] }
        // Down the subentity lists: as many steps as there are entities in the result.
        var positions = [start]
        var next = 0
        while next < positions.count {
            for child in entities[positions[next]].subentityNames {
                if let position = entityIndex[child] { positions.append(position) }
            }
            next += 1
        }
        return positions.sorted().map { entities[$0] }
    }

    public func configuration(named name: String) -> ConfigurationDescription? {
        configurations.first { $0.name == name }
    }

    /// The version hash of each entity, by name.
    public var entityVersionHashes: [String: String] {
        Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.versionHash) })
    }

    // MARK: - Canonical JSON

    /// The model as canonical JSON: a fixed key order, two-space indentation, defaults omitted.
    /// Loading it gives an equal `Schema`.
    public var jsonString: String {
        let json = SchemaEncoder.encode(
            name: name, version: version, versionHashModifier: versionHashModifier,
            entities: entities, configurations: configurations)
        return JSONWriter().string(from: json)
    }

    /// ``jsonString`` as UTF-8 data.
    public var jsonData: Data { Data(jsonString.utf8) }
}
