internal import Foundation
internal import OrderedCollections

/// One object of the graph, living in one context.
///
/// Access properties dynamically (`todo["title"]`) or through a subclass bound to its entity with
/// typed properties, the role of Core Data's `@NSManaged` subclasses:
/// ```swift
/// final class Person: ManagedObject {
///     override class var entityName: String { "Person" }
///     @Attribute("firstName") var firstName: String
///     @Attribute("lastName") var lastName: String
///     var fullName: String { "\(firstName) \(lastName)" }
/// }
/// ```
/// An object belongs to its context's isolation domain and is not `Sendable`; pass its
/// ``objectID`` to other contexts instead. Relationships are kept as object IDs, so objects never
/// keep each other alive, and inverses are maintained on every change.
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The entity of this object, with inherited properties resolved.
    public let entity: EntityDescription
    /// The object's identity; temporary until its first save.
    public internal(set) var objectID: ObjectID
    /// The context the object lives in; nil once it was removed from it (reset, undone insert).
    public internal(set) weak var managedObjectContext: ManagedObjectContext?

    /// True until the object's values are first needed; touching any property loads them.
    public internal(set) var isFault: Bool
    /// Inserted in its context and not saved yet.
    public internal(set) var isInserted = false
    /// Deleted in its context (or by a merged save) and not saved yet.
    public internal(set) var isDeleted = false

    var attributeValues: AttributeValues
    var toOneIDs: [String: ObjectID] = [:]
    var toManyIDs: [String: OrderedSet<ObjectID>] = [:]
    /// To-many relationships the store left to load on first use.
    var pendingToMany: Set<String> = []
    /// The last saved or fetched state; nil for an object never saved.
    var committed: StoreRecord?
    /// Keys whose value differs from `committed`.
    var changedKeys: Set<String> = []
    /// A primary key asked for at insert (imports keep their `@id`).
    var requestedPrimaryKey: Int64?
    /// The order of inserts in the context, so that primary keys follow it.
    var insertionIndex = 0

    /// Creates an object for `entity`; contexts call this — use ``init(context:)`` or
    /// ``ManagedObjectContext/insertObject(entityName:)`` to insert one.
    public required init(entity: EntityDescription, objectID: ObjectID) {
        self.entity = entity
        self.objectID = objectID
        self.isFault = true
        self.attributeValues = AttributeValues(layout: entity.attributeLayout)
    }

    /// Inserts a new object of this class's entity into `context`.
    ///
    /// The class must be bound to an entity (override ``entityName``) and registered with the
    /// coordinator.
    public convenience init(context: ManagedObjectContext) {
        let name = Self.entityName
        precondition(!name.isEmpty, "\(Self.self) must override `class var entityName` to name its entity")
        guard let entity = context.coordinator.schema.entity(named: name) else {
            preconditionFailure("\(Self.self).entityName is '\(name)', which the model '\(context.coordinator.schema.name)' does not have")
        }
        self.init(entity: entity, objectID: ObjectID(temporaryFor: name))
        context.register(inserted: self)
    }

    /// The entity a subclass stands for; `ManagedObject` itself is bound to none.
    open class var entityName: String { "" }

    /// Called once after the object is inserted, when defaults are set: set up initial values.
    open func awakeFromInsert() {}
    /// Called when a fault is first filled from the store.
    open func awakeFromFetch() {}
    /// Called before a save validates the object.
    open func willSave() {}

    /// True for an object that is saved and has changes that are not.
    public var isUpdated: Bool { !isInserted && !isDeleted && !changedKeys.isEmpty }
    /// True when the object is inserted, updated or deleted and not yet saved.
    public var hasChanges: Bool { isInserted || isDeleted || !changedKeys.isEmpty }

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String {
        "<\(entity.name) \(objectID)\(isFault ? " fault" : "")\(isInserted ? " inserted" : "")\(isDeleted ? " deleted" : "")\(isUpdated ? " updated" : "")>"
    }

    // MARK: - State

    /// The current value of a property, as a ``PropertyValue``.
    public func propertyValue(forKey key: String) -> PropertyValue {
        fulfillFault()
        switch property(key) {
        case .attribute:
            return .attribute(attributeValues[key])
        case .relationship(let relationship):
            return relationship.isToMany ? .toMany(Array(members(key))) : .toOne(toOneIDs[key])
        }
    }

    /// The properties changed since the last save or fetch, with their new values.
    public func changedValues() -> [String: PropertyValue] {
        var result: [String: PropertyValue] = [:]
        for key in changedKeys { result[key] = propertyValue(forKey: key) }
        return result
    }

    /// The last saved values of `keys` (every stored property when nil); nil values for an
    /// object that was never saved.
    public func committedValues(forKeys keys: [String]? = nil) -> [String: PropertyValue] {
        fulfillFault()
        var result: [String: PropertyValue] = [:]
        let names = keys ?? (entity.attributes.filter { !$0.isTransient }.map(\.name) + entity.relationships.map(\.name))
        for key in names {
            switch property(key) {
            case .attribute:
                result[key] = .attribute(committed?.attributes[key])
            case .relationship(let relationship):
                result[key] = relationship.isToMany ? .toMany(committed?.toMany[key] ?? []) : .toOne(committed?.toOne[key])
            }
        }
        return result
    }

    func property(_ key: String) -> PropertyDescription {
        guard let property = entity.property(named: key) else {
            let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
            preconditionFailure("entity '\(entity.name)' has no property '\(key)'\(Suggestion.didYouMean(key, in: names))")
        }
        return property
    }

    /// Loads the object's values if it is a fault.
    func fulfillFault() {
        guard isFault else { return }
        managedObjectContext?.fulfillFault(self)
    }

    /// Replaces the object's state with a stored record (fault filling, refresh).
    func apply(_ record: StoreRecord) {
        committed = record
        var attributes = record.attributes.laidOut(by: entity.attributeLayout)
        for position in entity.transientAttributePositions {
            attributes[position: position] = attributeValues[position: position]
        }
        attributeValues = attributes
        toOneIDs = record.toOne
        toManyIDs = record.toMany.mapValues { OrderedSet($0) }
        pendingToMany = record.lazyToMany
        changedKeys = []
        isFault = false
    }

    /// The object's state as a record for a save.
    func record() -> StoreRecord {
        var attributes = attributeValues
        for position in entity.transientAttributePositions { attributes[position: position] = nil }
        var record = StoreRecord(
            objectID: objectID, attributes: attributes, toOne: toOneIDs,
            toMany: toManyIDs.filter { !$0.value.isEmpty && !pendingToMany.contains($0.key) }.mapValues { Array($0) },
            version: committed?.version ?? 0)
        record.lazyToMany = pendingToMany
        return record
    }

    /// The members of a to-many relationship, loaded from the store on first use.
    func members(_ key: String) -> OrderedSet<ObjectID> {
        if pendingToMany.contains(key), let context = managedObjectContext {
            do {
                let ids = try context.coordinator.relatedObjectIDs(of: objectID, relationship: key)
                pendingToMany.remove(key)
                toManyIDs[key] = OrderedSet(ids)
                committed?.toMany[key] = ids
                committed?.lazyToMany.remove(key)
            } catch {
                // Left pending, so a save never writes the members it could not read as none.
                context.noteUnreadable(objectID, error)
            }
        }
        return toManyIDs[key] ?? []
    }

    /// Whether `key` differs from the committed state.
    func differsFromCommitted(_ key: String) -> Bool {
        guard let committed else { return true }
        switch property(key) {
        case .attribute(let attribute):
            if attribute.isTransient { return false }
            return attributeValues[key] != committed.attributes[key]
        case .relationship(let relationship):
            if relationship.isToMany {
                if pendingToMany.contains(key) { return false }
                let current = toManyIDs[key] ?? []
                let saved = committed.toMany[key] ?? []
                return relationship.isOrdered ? Array(current) != saved : Set(current) != Set(saved)
            }
            return toOneIDs[key] != committed.toOne[key]
        }
    }
}

/// Managed objects stay in their context's isolation domain; send their `objectID` instead.
@available(*, unavailable)
extension ManagedObject: @unchecked Sendable {}

/// The value of one property, in a form that can cross isolation domains.
public enum PropertyValue: Sendable, Hashable {
    case attribute(AttributeValue?)
    case toOne(ObjectID?)
    case toMany([ObjectID])
}
