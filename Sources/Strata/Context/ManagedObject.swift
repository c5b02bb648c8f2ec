internal import Foundation

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
    // The stored state is read and written on every property access, and the runtime's
    // exclusivity checks of a class's stored properties (`swift_beginAccess`) were a sixth of
    // setting a value: they are left out (`@exclusivity(unchecked)`). An object is used in its
    // context's domain only, and no access to its state overlaps another.
    /// The entity of this object, with inherited properties resolved.
    public let entity: EntityDescription
    /// The object's identity; temporary until its first save.
    @exclusivity(unchecked) public final internal(set) var objectID: ObjectID
    /// The context the object lives in; nil once it was removed from it (reset, undone insert).
    public final internal(set) var managedObjectContext: ManagedObjectContext? {
        get { owningContext }
        set { owningContext = newValue }
    }
    /// Not a weak reference: weak references give the context a side table, through which
    /// every retain and release of it then goes (one per value set). Instead the context
    /// clears this in every object that has it before it is freed (``ManagedObjectContext``'s
    /// `deinit`): the objects of its registry, and those displaced from it.
    @exclusivity(unchecked) final unowned(unsafe) var owningContext: ManagedObjectContext?

    /// True until the object's values are first needed; touching any property loads them.
    @exclusivity(unchecked) public final internal(set) var isFault: Bool
    /// Inserted in its context and not saved yet.
    @exclusivity(unchecked) public final internal(set) var isInserted = false
    /// Deleted in its context (or by a merged save) and not saved yet.
    @exclusivity(unchecked) public final internal(set) var isDeleted = false

    @exclusivity(unchecked) final var attributeValues: AttributeValues
    /// Relationship values, by position in the entity's `relationships`.
    @exclusivity(unchecked) final var relationshipSlots: [RelationshipSlot]
    /// The last saved or fetched state; nil for an object never saved.
    @exclusivity(unchecked) final var committed: StoreRecord?
    /// Properties whose value differs from `committed`, by bit (attributes by layout position,
    /// then relationships); not kept for an inserted object, all of whose properties count.
    @exclusivity(unchecked) final var changedMask = PropertyMask()
    /// A primary key asked for at insert (imports keep their `@id`).
    @exclusivity(unchecked) final var requestedPrimaryKey: Int64?
    /// The order of inserts in the context, so that primary keys follow it.
    @exclusivity(unchecked) final var insertionIndex = 0
    /// The object's slot in its context's registry (``ObjectRegistry``); -1 when it has none.
    @exclusivity(unchecked) final var registrySlot = -1
    /// The object's place among its context's changed objects (``ChangedObjects``).
    @exclusivity(unchecked) final var changedIndex = -1

    /// Creates an object for `entity`; contexts call this — use ``init(context:)`` or
    /// ``ManagedObjectContext/insertObject(entityName:primaryKey:)`` to insert one.
    public required init(entity: EntityDescription, objectID: ObjectID) {
        self.entity = entity
        self.objectID = objectID
        self.isFault = true
        self.attributeValues = AttributeValues(layout: entity.attributeLayout)
        self.relationshipSlots = entity.relationships.isEmpty ? [] : Array(repeating: .none, count: entity.relationships.count)
    }

    deinit {
        owningContext?.forget(slot: registrySlot, UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()))
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
    /// Checks a new object as a whole when a save validates it, after the model's rules and the
    /// coordinator's validation rules. Throw to refuse the save: every failure of every object
    /// is reported together in one `validationFailed` error (a ``StrataError``'s failures as
    /// they are; any other error as a `custom` failure of this object with its description).
    open func validateForInsert() throws {}
    /// Checks a changed object as a whole when a save validates it (see ``validateForInsert()``).
    open func validateForUpdate() throws {}
    /// Checks that a deleted object may go when a save validates it (see ``validateForInsert()``).
    open func validateForDelete() throws {}
    /// Called when the object is deleted, before its delete rules apply: its relationships are
    /// still set, so it can let go of what it holds.
    open func prepareForDeletion() {}
    /// Called after a save wrote the object: inserted, updated or deleted.
    open func didSave() {}
    /// Called before the object forgets its values and becomes a fault (a refresh without
    /// keeping changes).
    open func willTurnIntoFault() {}
    /// Called after the object became a fault.
    open func didTurnIntoFault() {}

    /// True for an object that is saved and has changes that are not.
    public var isUpdated: Bool { !isInserted && !isDeleted && !changedMask.isEmpty }
    /// True when the object is inserted, updated or deleted and not yet saved.
    public var hasChanges: Bool { isInserted || isDeleted || !changedMask.isEmpty }

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
            let position = relationshipPosition(relationship.name)
            return relationship.isToMany ? .toMany(memberIDs(at: position)) : .toOne(toOneID(at: position))
        }
    }

    /// The names of the properties changed since the last save or fetch (every property of an
    /// inserted object).
    var changedKeys: Set<String> {
        if isInserted { return entity.propertyNames }
        let layout = entity.attributeLayout
        var keys: Set<String> = []
        for bit in changedMask.positions {
            keys.insert(bit < layout.count ? layout.names[bit] : entity.relationships[bit - layout.count].name)
        }
        return keys
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
                // Saved members a store left to load later are read now.
                result[key] = relationship.isToMany
                    ? .toMany(committedMemberIDs(at: relationshipPosition(key)) ?? [])
                    : .toOne(committed?.toOne[key])
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

    /// The position of a relationship of the entity (a programming error when it has none).
    func relationshipPosition(_ key: String) -> Int {
        guard let position = entity.relationshipPosition(of: key) else {
            preconditionFailure("entity '\(entity.name)' has no relationship '\(key)'")
        }
        return position
    }

    /// The bit of ``changedMask`` for the relationship at a position.
    func relationshipBit(_ position: Int) -> Int { attributeValues.layout.count + position }

    /// Loads the object's values if it is a fault.
    func fulfillFault() {
        guard isFault else { return }
        managedObjectContext?.fulfillFault(self)
    }

    /// Replaces the object's state with a stored record (fault filling, refresh).
    ///
    /// The record is taken, not copied (a fetch hands over each of its records): it becomes the
    /// object's ``committed`` state once its values are read.
    func apply(_ record: consuming StoreRecord) {
        let layout = entity.attributeLayout
        if record.attributes.layout === layout && entity.transientAttributePositions.isEmpty {
            attributeValues = record.attributes
        } else {
            var attributes = record.attributes.laidOut(by: layout)
            for position in entity.transientAttributePositions {
                attributes[position: position] = attributeValues[position: position]
            }
            attributeValues = attributes
        }
        if !relationshipSlots.isEmpty {
            for (position, relationship) in entity.relationships.enumerated() {
                relationshipSlots[position] = RelationshipSlot(relationship, in: record)
            }
        }
        committed = consume record
        changedMask.removeAll()
        isFault = false
    }

    /// Forgets the object's values: it becomes a fault again.
    func turnIntoFault() {
        isFault = true
        attributeValues = AttributeValues(layout: entity.attributeLayout)
        if !relationshipSlots.isEmpty {
            relationshipSlots = Array(repeating: .none, count: relationshipSlots.count)
        }
        changedMask.removeAll()
    }

    /// The object's state as a record for a save.
    func record() -> StoreRecord {
        var attributes = attributeValues
        for position in entity.transientAttributePositions { attributes[position: position] = nil }
        var record = StoreRecord(objectID: objectID, attributes: attributes, version: committed?.version ?? 0)
        guard !relationshipSlots.isEmpty else { return record }
        for (position, relationship) in entity.relationships.enumerated() {
            switch relationshipSlots[position] {
            case .none:
                continue
            case .toOne(let id):
                record.toOne[relationship.name] = id
            case .toMany(let members):
                if !members.isEmpty { record.toMany[relationship.name] = members.elements }
            case .pending:
                record.lazyToMany.insert(relationship.name)
            }
        }
        return record
    }

    /// Replaces the IDs the object's relationships hold through `map` (temporary IDs made
    /// permanent by a save).
    func mapRelatedIDs(_ map: [ObjectID: ObjectID]) {
        for (position, slot) in relationshipSlots.enumerated() {
            switch slot {
            case .toOne(let id):
                if let mapped = map[id] { relationshipSlots[position] = .toOne(mapped) }
            case .toMany(let members):
                members.mapIDs(map)
            case .none, .pending:
                break
            }
        }
    }

    /// The destination of the to-one relationship at a position.
    func toOneID(at position: Int) -> ObjectID? {
        if case .toOne(let id) = relationshipSlots[position] { return id }
        return nil
    }

    /// The destination of a to-one relationship, by name.
    func toOneID(_ key: String) -> ObjectID? {
        toOneID(at: relationshipPosition(key))
    }

    /// The members of the to-many relationship at a position, loaded from the store on first
    /// use; nil when it has none.
    func members(at position: Int) -> RelationshipMembers? {
        switch relationshipSlots[position] {
        case .toMany(let members):
            return members
        case .pending:
            // Left pending when unreadable, so a save never writes the members it could not
            // read as none.
            guard let ids = committedMemberIDs(at: position) else { return nil }
            guard !ids.isEmpty else {
                relationshipSlots[position] = .none
                return nil
            }
            let members = RelationshipMembers(ids, ordered: entity.relationships[position].isOrdered, tracksChanges: !isInserted)
            relationshipSlots[position] = .toMany(members)
            return members
        case .none, .toOne:
            return nil
        }
    }

    /// The saved members of the to-many relationship at a position, read from the store when
    /// the committed record left them to load later; nil when the store cannot be read (the
    /// error is noted with the context) or the object has no context.
    func committedMemberIDs(at position: Int) -> [ObjectID]? {
        let name = entity.relationships[position].name
        guard committed?.lazyToMany.contains(name) == true else { return committed?.toMany[name] ?? [] }
        guard let context = managedObjectContext else { return nil }
        do {
            let ids = try context.sourceRelatedObjectIDs(of: objectID, relationship: name)
            committed?.toMany[name] = ids
            committed?.lazyToMany.remove(name)
            return ids
        } catch {
            context.noteUnreadable(objectID, error)
            return nil
        }
    }

    /// The members of the to-many relationship at a position, made when it has none yet, to
    /// add to.
    func mutableMembers(at position: Int) -> RelationshipMembers {
        if let members = members(at: position) { return members }
        let members = RelationshipMembers([], ordered: entity.relationships[position].isOrdered, tracksChanges: !isInserted)
        relationshipSlots[position] = .toMany(members)
        return members
    }

    /// How many elements the members of a to-many relationship have touched so far: adding or
    /// removing one touches a few, copying or comparing all of them touches them all. Tests
    /// check with it that relationship upkeep stays linear in the number of changes.
    package func relationshipWork(forKey key: String) -> Int {
        if case .toMany(let members) = relationshipSlots[relationshipPosition(key)] { return members.work }
        return 0
    }

    /// The member IDs of the to-many relationship at a position, in order.
    func memberIDs(at position: Int) -> [ObjectID] {
        members(at: position)?.elements ?? []
    }

    /// The member IDs of a to-many relationship, by name.
    func memberIDs(_ key: String) -> [ObjectID] {
        memberIDs(at: relationshipPosition(key))
    }

    /// The IDs a relationship at a position holds, to-one or to-many.
    func relatedIDs(at position: Int) -> [ObjectID] {
        entity.relationships[position].isToMany ? memberIDs(at: position) : toOneID(at: position).map { [$0] } ?? []
    }

    /// Whether the attribute at a layout position differs from the committed state.
    func attributeDiffersFromCommitted(_ position: Int) -> Bool {
        guard let committed else { return true }
        if entity.transientAttributePositions.contains(position) { return false }
        let saved = committed.attributes.layout === attributeValues.layout
            ? committed.attributes[position: position]
            : committed.attributes[attributeValues.layout.names[position]]
        return attributeValues[position: position] != saved
    }

    /// Whether the relationship at a position differs from the committed state.
    func relationshipDiffersFromCommitted(_ position: Int) -> Bool {
        guard let committed else { return true }
        let name = entity.relationships[position].name
        switch relationshipSlots[position] {
        case .pending:
            return false
        case .toMany(let members):
            return members.differs(from: committed.toMany[name] ?? [])
        case .none:
            return entity.relationships[position].isToMany ? !(committed.toMany[name] ?? []).isEmpty : committed.toOne[name] != nil
        case .toOne(let id):
            return committed.toOne[name] != id
        }
    }

    /// Recomputes whether the property with a ``changedMask`` bit differs from the committed state.
    func updateChangedBit(_ bit: Int) {
        let attributes = attributeValues.layout.count
        changedMask.set(bit, bit < attributes ? attributeDiffersFromCommitted(bit) : relationshipDiffersFromCommitted(bit - attributes))
    }
}

/// The value of one relationship of an object.
enum RelationshipSlot {
    /// No destination, or no members.
    case none
    case toOne(ObjectID)
    case toMany(RelationshipMembers)
    /// A to-many relationship the store left to load on first use.
    case pending

    /// The relationship's value in a stored record.
    init(_ relationship: RelationshipDescription, in record: borrowing StoreRecord) {
        if relationship.isToMany {
            if record.lazyToMany.contains(relationship.name) {
                self = .pending
            } else if let ids = record.toMany[relationship.name], !ids.isEmpty {
                self = .toMany(RelationshipMembers(ids, ordered: relationship.isOrdered, tracksChanges: true))
            } else {
                self = .none
            }
        } else {
            self = record.toOne[relationship.name].map { .toOne($0) } ?? .none
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
