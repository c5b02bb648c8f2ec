/// The changes between two versions of a model, each naming its entity and property and saying
/// whether a migration can infer it.
///
/// Elements are matched as Core Data matches them: by **identifier**, an element's
/// `renamingIdentifier` or, without one, its name. A destination entity `Feeling` with
/// `"renamingIdentifier": "Mood"` matches a source entity `Mood`, and keeps matching it in later
/// versions as long as the identifier stays, so v1 → v3 matches as v1 → v2 → v3 does. Elements
/// left unmatched by identifier are then matched by name (a later version that dropped the
/// identifier still matches the version before it). Properties are matched the same way within
/// each pair of matched entities, over every property an entity has, inherited ones included.
///
/// ```swift
/// let diff = SchemaDiff(from: v1, to: v2)
/// for change in diff.changes { print(change) }   // Mood.note: attribute renamed from 'text'
/// if !diff.isInferable { … }                      // a custom stage is needed
/// ```
public struct SchemaDiff: Sendable {
    /// The earlier model.
    public let source: Schema
    /// The later model.
    public let destination: Schema
    /// Every change, entity by entity in the destination model's order (removed entities last),
    /// then a change of the model's own `versionHashModifier`. Within an entity: the entity's
    /// own changes, its properties' changes in the order of its properties (removed ones after
    /// them), then its indexes and uniqueness constraints.
    ///
    /// A change of an inherited property is reported once, on the entity that declares it, not
    /// again on every subentity that inherits it (see `SchemaChangeDetector`): to carry a
    /// change out for every entity, work from ``propertyMatches``, which cover inherited
    /// properties.
    public let changes: [SchemaChange]
    /// Destination entity name → the source entity it was matched with.
    public let entityMatches: [String: String]
    /// Destination entity name → (destination property name → matched source property name).
    public let propertyMatches: [String: [String: String]]

    /// Matches the two models' elements and finds every change.
    public init(from source: Schema, to destination: Schema) {
        self.source = source
        self.destination = destination
        let entities = Self.match(
            source.entities.map { ($0.name, $0.renamingIdentifier) },
            destination.entities.map { ($0.name, $0.renamingIdentifier) })
        entityMatches = entities
        var properties: [String: [String: String]] = [:]
        for (destinationName, sourceName) in entities {
            guard let to = destination.entity(named: destinationName), let from = source.entity(named: sourceName) else { continue }
            properties[destinationName] = Self.match(Self.identified(from), Self.identified(to))
        }
        propertyMatches = properties
        changes = SchemaChangeDetector(source: source, destination: destination, entityMatches: entities, propertyMatches: properties).changes()
    }

    /// True when the two models have the same version hash: a store of one opens with the other.
    public var isSameVersion: Bool { source.versionHash == destination.versionHash }

    /// True when a migration can infer every change (some only when the data allows, which the
    /// migration checks: see ``SchemaChange/Inferability/dependsOnData(_:)``).
    public var isInferable: Bool { !changes.contains { !$0.inferability.isInferable } }

    /// The changes a migration cannot infer.
    public var uninferableChanges: [SchemaChange] { changes.filter { !$0.inferability.isInferable } }

    /// The source entity a destination entity was matched with; nil for an added entity.
    public func sourceEntity(of destinationEntity: String) -> EntityDescription? {
        entityMatches[destinationEntity].flatMap(source.entity(named:))
    }

    /// The source property a destination entity's property was matched with (by identifier,
    /// then name); nil for an added property or an added entity.
    public func sourceProperty(of property: String, in destinationEntity: String) -> PropertyDescription? {
        guard let sourceName = propertyMatches[destinationEntity]?[property] else { return nil }
        return sourceEntity(of: destinationEntity)?.property(named: sourceName)
    }

    /// The destination entity a source entity was matched with; nil for a removed entity.
    public func destinationEntity(of sourceEntity: String) -> EntityDescription? {
        entityMatches.first { $0.value == sourceEntity }.flatMap { destination.entity(named: $0.key) }
    }

    // MARK: - Matching

    /// (name, renaming identifier) of every property of an entity, inherited ones included.
    private static func identified(_ entity: EntityDescription) -> [(String, String?)] {
        entity.attributes.map { ($0.name, $0.renamingIdentifier) } + entity.relationships.map { ($0.name, $0.renamingIdentifier) }
    }

    /// Destination name → source name: first by identifier (renaming identifier, else name),
    /// then the elements left over by name, then a destination element left over whose renaming
    /// identifier is the name of a source element left over. Each element is matched at most
    /// once; when two elements of one side share an identifier, the first wins.
    ///
    /// The last rule is what Core Data's documentation tells people to write — "set the renaming
    /// identifier to the name in the source model" — for an element renamed twice: v2 `note`
    /// (identifier `text`) → v3 `memo` (identifier `note`). By identifier alone `text` ≠ `note`,
    /// and the values would be dropped and `memo` added empty.
    static func match(_ source: [(name: String, renaming: String?)], _ destination: [(name: String, renaming: String?)]) -> [String: String] {
        var result: [String: String] = [:]
        var taken: Set<String> = []
        var sourceByIdentifier: [String: String] = [:]
        for element in source where sourceByIdentifier[element.renaming ?? element.name] == nil {
            sourceByIdentifier[element.renaming ?? element.name] = element.name
        }
        for element in destination {
            if let match = sourceByIdentifier[element.renaming ?? element.name], !taken.contains(match) {
                result[element.name] = match
                taken.insert(match)
            }
        }
        let sourceNames = Set(source.map(\.name))
        for element in destination where result[element.name] == nil {
            if sourceNames.contains(element.name), !taken.contains(element.name) {
                result[element.name] = element.name
                taken.insert(element.name)
            }
        }
        for element in destination where result[element.name] == nil {
            if let renaming = element.renaming, sourceNames.contains(renaming), !taken.contains(renaming) {
                result[element.name] = renaming
                taken.insert(renaming)
            }
        }
        return result
    }
}

/// One difference between two model versions.
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
    /// What changed. The ``SchemaChange/detail`` texts below are examples.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// `entity added`.
        case entityAdded
        /// `entity removed` (the entity by its source name).
        case entityRemoved
        /// `entity renamed from 'Mood'` (matched by renaming identifier).
        case entityRenamed
        /// `parent 'Region' added`, `parent 'Region' removed`, `parent 'A' → 'B'`; a parent that
        /// was only renamed is no change. Inferable: objects keep their entity and the values of
        /// the properties they keep (those that come or go with the parent are reported as
        /// added or removed); depends on the data when the new ancestors have uniqueness
        /// constraints, which then cover this entity's objects too.
        case parentChanged
        /// `became abstract` (depends on the data: no object may have the entity itself),
        /// `no longer abstract`.
        case abstractChanged
        /// `attribute added (date, required, no default)`.
        case attributeAdded
        /// `attribute removed`.
        case attributeRemoved
        /// `attribute renamed from 'text'`.
        case attributeRenamed
        /// `relationship added (to-many Tag)`.
        case relationshipAdded
        /// `relationship removed`.
        case relationshipRemoved
        /// `relationship renamed from 'tags'`.
        case relationshipRenamed
        /// An attribute became a relationship or the other way round: `attribute → relationship`.
        case propertyKindChanged
        /// `type int16 → int32`. Only widening is inferred: int16 → int32 → int64 and
        /// float → double. Every other change is not, `binary` ↔ `transformable` included: plain
        /// data is not the data of a value transformer, and a transformer's data is not the value
        /// the app stored; a custom stage converts them explicitly.
        case typeChanged
        /// `optional → required`, `required → optional` (attributes and to-one relationships).
        case optionalityChanged
        /// `default 0 → 5`, values as the data format writes them.
        case defaultValueChanged
        /// `became transient (the stored values are dropped)`, `became stored (values start as nil)`.
        case transientChanged
        /// `external storage allowed`, `external storage no longer allowed`.
        case externalStorageChanged
        /// `transformer 'A' → 'B' (the stored data is kept as written)`: inferable; the new
        /// transformer must read what the old one wrote (the version hash does not cover the
        /// transformer's name, so no migration runs for this change alone).
        case transformerChanged
        /// `to-one → to-many`, `to-many → to-one`.
        case cardinalityChanged
        /// `unordered → ordered` (a to-many that stays to-many).
        case orderedChanged
        /// `inverse 'owner' → 'keeper'`, compared through renames.
        case inverseChanged
        /// `delete rule nullify → cascade`.
        case deleteRuleChanged
        /// `destination 'Pet' → 'Animal'`, compared through renames (a renamed destination is
        /// no change). A superentity of the old destination: inferable (every object it refers
        /// to is one). A subentity: depends on the data (every object it refers to must be
        /// one). Any other entity, or an old destination that was removed: not inferable.
        case destinationChanged
        /// An attribute's `indexed` flag (`now indexed`), or an entity's index added, removed,
        /// renamed or with other elements (`index 'byDate' (date) → (date descending)`).
        case indexesChanged
        /// `uniqueness constraint (code, name) added` or `removed`, compared through renames.
        case uniquenessChanged
        /// An attribute's `min 0 → none, regex none → "^[a-z]+$"`, a relationship's
        /// `minCount none → 1`. Existing values are not checked against new rules (as in
        /// Core Data): a save of an object that breaks one fails.
        case validationChanged
        /// `versionHashModifier none → '2'` of a property, an entity or the model.
        case versionHashModifierChanged
    }

    /// Whether a migration can infer the change.
    public enum Inferability: Sendable, Hashable {
        /// A migration carries it out whatever the data.
        case inferable
        /// Inferable when the data allows it, which the migration checks, refusing with the
        /// objects that stand in the way (say: objects with no value for an attribute that
        /// becomes required without a default). The text says what is checked.
        case dependsOnData(String)
        /// Needs a custom stage; the text says why.
        case notInferable(String)

        /// False only for `notInferable`.
        public var isInferable: Bool {
            if case .notInferable = self { return false }
            return true
        }

        /// `inferable`, `dependsOnData` or `notInferable`: the case's name, as JSON output spells it.
        public var name: String {
            switch self {
            case .inferable: "inferable"
            case .dependsOnData: "dependsOnData"
            case .notInferable: "notInferable"
            }
        }

        /// The condition of `dependsOnData` or the reason of `notInferable`; nil for `inferable`.
        public var explanation: String? {
            switch self {
            case .inferable: nil
            case .dependsOnData(let text), .notInferable(let text): text
            }
        }
    }

    /// What changed.
    public var kind: Kind
    /// The entity, by its destination name (its source name when it was removed); empty for a
    /// change of the model itself (its `versionHashModifier`).
    public var entity: String
    /// The property, by its destination name (its source name when it was removed); nil for a
    /// change of the entity itself.
    public var property: String?
    /// What changed, for people: "int16 → string", "renamed from 'text'".
    public var detail: String
    /// Whether a migration can infer the change, and if not why.
    public var inferability: Inferability

    /// A change, for comparing with the changes of a diff.
    public init(kind: Kind, entity: String, property: String? = nil, detail: String, inferability: Inferability = .inferable) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.detail = detail
        self.inferability = inferability
    }

    /// `Entity.property`, `Entity`, or `model` for a change of the model itself (no entity name
    /// starts with a lower-case letter, so it cannot be taken for one).
    public var path: String {
        guard !entity.isEmpty else { return "model" }
        return property.map { "\(entity).\($0)" } ?? entity
    }

    /// One line: `Mood.level: type int16 → string  [not inferable: …]`, or with
    /// `  [needs data check: every Mood.date has a value]`; nothing after the detail when the
    /// change is inferable.
    public var description: String {
        switch inferability {
        case .inferable: "\(path): \(detail)"
        case .dependsOnData(let condition): "\(path): \(detail)  [needs data check: \(condition)]"
        case .notInferable(let reason): "\(path): \(detail)  [not inferable: \(reason)]"
        }
    }
}
