/// The attribute values of one object, by attribute name: what a ``StoreRecord`` carries and a
/// ``ManagedObject`` holds.
///
/// It reads like a `[String: AttributeValue]` (subscript by name, iteration over the present
/// values, dictionary literals), but it is stored the way Core Data keeps snapshots: an array of
/// optional values laid out by a ``Layout`` that every object of an entity shares
/// (``EntityDescription/attributeLayout``). Copying is one retain, two values of one entity
/// compare position by position, and a store that reads a row fills values by position
/// (``subscript(position:)``) without hashing a single name.
///
/// A value set under a name the layout does not have extends the layout (for this value only),
/// so values built in code without an entity behave like a dictionary.
public struct AttributeValues: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The attribute names of an entity, each at a fixed position.
    public final class Layout: Sendable, Hashable, CustomStringConvertible {
        /// The names, in position order.
        public let names: [String]
        @usableFromInline let positions: [String: Int]
        /// Each name's position + 1 (0: none) in a table of twice as many slots or more,
        /// found from the name's length and end bytes: looking a name up costs a comparison or
        /// two of small strings instead of hashing it (a value set by name looks its position up).
        @usableFromInline let slots: [Int32]
        /// Values with none set, shared by every new `AttributeValues` of this layout until it
        /// sets one.
        // Never written after init: sharing it across threads is safe.
        @usableFromInline nonisolated(unsafe) let noValues: ValueBuffer
        /// Each attribute's type, for an entity's layout (setting a value checks it by
        /// position); nil for a layout of names only.
        package let types: [AttributeType]?

        /// A layout of `names`, which must be distinct.
        public convenience init(names: [String]) {
            self.init(names: names, types: nil)
        }

        /// A layout of `names` (distinct) and, for an entity's, their types.
        package init(names: [String], types: [AttributeType]?) {
            precondition(types == nil || types?.count == names.count, "\(types?.count ?? 0) types for \(names.count) names")
            self.types = types
            self.names = names
            var positions: [String: Int] = [:]
            positions.reserveCapacity(names.count)
            for (position, name) in names.enumerated() {
                precondition(positions.updateValue(position, forKey: name) == nil, "duplicate attribute name '\(name)' in a layout")
            }
            self.positions = positions
            self.noValues = ValueBuffer.make(count: names.count) { _ in nil }
            var size = 4
            while size < names.count * 2 { size *= 2 }
            var slots = [Int32](repeating: 0, count: size)
            for (position, name) in names.enumerated() {
                var slot = Self.slot(of: name, mask: slots.count - 1)
                while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
                slots[slot] = Int32(position + 1)
            }
            self.slots = slots
        }

        /// Where probing for `name` starts: its length and first and last bytes, mixed.
        @inlinable
        static func slot(of name: String, mask: Int) -> Int {
            let utf8 = name.utf8
            let hash = UInt64(utf8.count) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(utf8.first ?? 0) &* 0xC2B2_AE3D_27D4_EB4F
                ^ UInt64(utf8.last ?? 0) &* 0x1656_67B1_9E37_79F9
            return Int(truncatingIfNeeded: hash >> 40) & mask
        }

        /// An empty layout, shared.
        public static let empty = Layout(names: [])

        /// The position of `name`; nil when the layout does not have it.
        @inlinable
        public func position(of name: String) -> Int? {
            let mask = slots.count - 1
            var slot = Self.slot(of: name, mask: mask)
            while true {
                let entry = Int(slots[slot])
                if entry == 0 { return nil }
                if names[entry - 1] == name { return entry - 1 }
                slot = (slot + 1) & mask
            }
        }

        public var count: Int { names.count }

        public static func == (lhs: Layout, rhs: Layout) -> Bool { lhs === rhs || lhs.names == rhs.names }
        public func hash(into hasher: inout Hasher) { hasher.combine(names) }
        public var description: String { "Layout\(names)" }
    }

    /// The layout the values are stored by.
    public var layout: Layout { _layout }
    @usableFromInline var _layout: Layout
    // Copied on write (``subscript(position:)``): a buffer two values share is never written.
    @usableFromInline nonisolated(unsafe) var storage: ValueBuffer

    /// No values, laid out by `layout`: fill them by position or by name.
    @inlinable
    public init(layout: Layout) {
        self._layout = layout
        self.storage = layout.noValues
    }

    /// `values` laid out by `layout`: one per position (nil for none).
    @inlinable
    public init(layout: Layout, values: [AttributeValue?]) {
        precondition(values.count == layout.count, "\(values.count) values for a layout of \(layout.count) names")
        self._layout = layout
        self.storage = ValueBuffer.make(count: values.count) { values[$0] }
    }

    /// Values laid out by `layout`, each made by `value` from its position, in order (a store
    /// reading a row); an error `value` throws is rethrown.
    @inlinable
    package init<Failure: Error>(layout: Layout, reading value: (Int) throws(Failure) -> AttributeValue?) throws(Failure) {
        self._layout = layout
        self.storage = try ValueBuffer.make(count: layout.count, value)
    }

    /// The values of a dictionary, laid out by its keys in sorted order.
    public init(_ dictionary: [String: AttributeValue]) {
        let names = dictionary.keys.sorted()
        self._layout = Layout(names: names)
        self.storage = ValueBuffer.make(count: names.count) { dictionary[names[$0]] }
    }

    public init(dictionaryLiteral elements: (String, AttributeValue)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { $1 }))
    }

    /// The value of an attribute; nil when it has none. Setting nil removes the value.
    public subscript(name: String) -> AttributeValue? {
        @inlinable get {
            guard let position = _layout.position(of: name) else { return nil }
            return storage[position]
        }
        @inlinable set {
            if let position = _layout.position(of: name) {
                self[position: position] = newValue
            } else if let newValue {
                append(name, newValue)
            }
        }
    }

    @usableFromInline
    mutating func append(_ name: String, _ value: AttributeValue) {
        let old = storage
        _layout = Layout(names: _layout.names + [name])
        storage = ValueBuffer.make(count: old.count + 1) { $0 < old.count ? old[$0] : value }
    }

    /// Whether the position of ``layout`` has no value (without copying the value).
    @inlinable
    package func isNil(at position: Int) -> Bool {
        storage.isNil(at: position)
    }

    /// The value at a position of ``layout``.
    public subscript(position position: Int) -> AttributeValue? {
        @inlinable get { storage[position] }
        @inlinable set {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            storage[position] = newValue
        }
    }

    /// The same values laid out by `layout` (itself when it already is). Values under names
    /// `layout` lacks are kept, after `layout`'s own.
    public func laidOut(by layout: Layout) -> AttributeValues {
        if self.layout === layout { return self }
        var result = AttributeValues(layout: layout)
        for (name, value) in self { result[name] = value }
        return result
    }

    /// The number of attributes that have a value.
    public var count: Int {
        var count = 0
        for position in 0..<storage.count where !storage.isNil(at: position) { count += 1 }
        return count
    }

    public var isEmpty: Bool { !(0..<storage.count).contains { !storage.isNil(at: $0) } }

    /// The names of the attributes that have a value, in layout order.
    public var keys: [String] {
        var keys: [String] = []
        for position in 0..<storage.count where !storage.isNil(at: position) { keys.append(layout.names[position]) }
        return keys
    }

    /// The values as a dictionary.
    public var dictionary: [String: AttributeValue] {
        var result: [String: AttributeValue] = [:]
        result.reserveCapacity(storage.count)
        for (name, value) in self { result[name] = value }
        return result
    }

    /// Removes every value.
    public mutating func removeAll() {
        // The layout's own empty values, shared (values are always as many as the layout's
        // names: a value under a new name extends the layout).
        storage = _layout.noValues
    }

    public struct Iterator: IteratorProtocol {
        fileprivate let names: [String]
        fileprivate nonisolated(unsafe) let storage: ValueBuffer
        fileprivate var position = 0

        public mutating func next() -> (key: String, value: AttributeValue)? {
            while position < storage.count {
                defer { position += 1 }
                if let value = storage[position] { return (names[position], value) }
            }
            return nil
        }
    }

    /// The names and values of the attributes that have a value, in layout order.
    public func makeIterator() -> Iterator { Iterator(names: layout.names, storage: storage) }

    public var underestimatedCount: Int { 0 }

    public var description: String {
        let entries = self.map { "\($0.key): \($0.value)" }
        return entries.isEmpty ? "[:]" : "[" + entries.joined(separator: ", ") + "]"
    }
}

extension AttributeValues: Hashable {
    /// Equal when the same names have the same values, whatever the layouts.
    public static func == (lhs: AttributeValues, rhs: AttributeValues) -> Bool {
        if lhs._layout === rhs._layout { return lhs.storage.elementsEqual(rhs.storage) }
        var count = 0
        for (name, value) in lhs {
            guard rhs[name] == value else { return false }
            count += 1
        }
        return count == rhs.count
    }

    /// Independent of layout and order, like a dictionary's hash.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for (name, value) in self {
            var entry = Hasher()
            entry.combine(name)
            entry.combine(value)
            combined ^= entry.finalize()
        }
        hasher.combine(combined)
    }
}

/// The values of an ``AttributeValues``, one per position of its layout: a class of its own
/// rather than an array, so that freeing values frees each by code made for `AttributeValue?`
/// (an array of an enum frees its elements through the runtime's generic value witnesses, at
/// several times the cost: a tenth of a fetch of 100k objects went there). Shared until written
/// (copy on write, by ``AttributeValues``); the header is the count.
@usableFromInline
final class ValueBuffer: ManagedBuffer<Int, AttributeValue?> {
    /// `count` values, each made by `value` from its position, in order. When `value` throws,
    /// the values made so far are freed and the error is rethrown.
    @inlinable
    static func make<Failure: Error>(count: Int, _ value: (Int) throws(Failure) -> AttributeValue?) throws(Failure) -> ValueBuffer {
        let buffer = unsafeDowncast(ValueBuffer.create(minimumCapacity: count) { _ in 0 }, to: ValueBuffer.self)
        try buffer.withUnsafeMutablePointers { (made, values) throws(Failure) in
            while made.pointee < count {
                (values + made.pointee).initialize(to: try value(made.pointee))
                made.pointee += 1
            }
        }
        return buffer
    }

    /// Read through a pointer: `header`, a class's stored property, would be checked for
    /// exclusive access at run time on every read (a sixteenth of a binary store's load).
    @inlinable
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee } }

    /// A buffer of its own with the same values.
    @inlinable
    func copy() -> ValueBuffer {
        withUnsafeMutablePointerToElements { values in ValueBuffer.make(count: count) { values[$0] } }
    }

    @inlinable
    subscript(position: Int) -> AttributeValue? {
        get {
            precondition(position >= 0 && position < count, "attribute position \(position) out of 0..<\(count)")
            return withUnsafeMutablePointerToElements { $0[position] }
        }
        set {
            precondition(position >= 0 && position < count, "attribute position \(position) out of 0..<\(count)")
            withUnsafeMutablePointerToElements { $0[position] = newValue }
        }
    }

    /// Whether a position has no value (without copying the value).
    @inlinable
    func isNil(at position: Int) -> Bool {
        precondition(position >= 0 && position < count, "attribute position \(position) out of 0..<\(count)")
        return withUnsafeMutablePointerToElements { $0[position] == nil }
    }

    /// The same values at every position.
    @inlinable
    func elementsEqual(_ other: ValueBuffer) -> Bool {
        if self === other { return true }
        guard count == other.count else { return false }
        return withUnsafeMutablePointerToElements { lhs in
            other.withUnsafeMutablePointerToElements { rhs in
                (0..<count).allSatisfy { lhs[$0] == rhs[$0] }
            }
        }
    }

    deinit {
        withUnsafeMutablePointers { count, values in
            // One value at a time: each is freed by `AttributeValue?`'s own code.
            for position in 0..<count.pointee { _ = (values + position).move() }
        }
    }
}
