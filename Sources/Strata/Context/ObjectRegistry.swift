/// A context's registered objects by ID, without keeping them alive: an open-addressing hash
/// table whose entries hold unowned object pointers, each object knowing its entry's slot
/// (``ManagedObject/registrySlot``).
///
/// Objects leave the registry from their `deinit`, by the hundred thousand when a fetch's
/// results or a save's objects are let go: with the slot in hand, leaving is one store into
/// the table, with no hashing and no search. IDs are plain words (see ``ObjectID``), hashed by
/// a multiplication.
final class ObjectRegistry {
    private struct Entry {
        var id: ObjectID
        /// Nil for an empty slot, ``tombstone`` for one whose object left.
        var object: UnsafeRawPointer?
    }

    /// A left object's slot: probes go on past it, inserts may reuse it.
    private static var tombstone: UnsafeRawPointer { UnsafeRawPointer(bitPattern: 1)! }

    @exclusivity(unchecked) private var entries: UnsafeMutablePointer<Entry>
    /// A power of two.
    @exclusivity(unchecked) private var capacity: Int
    /// Live entries.
    @exclusivity(unchecked) private(set) var count = 0
    /// Live entries and tombstones: what probes walk over.
    @exclusivity(unchecked) private var used = 0

    init() {
        capacity = 16
        entries = Self.allocate(capacity)
    }

    deinit {
        entries.deallocate()
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<Entry> {
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
        // IDs are plain words: an empty entry needs only its object cleared.
        let raw = UnsafeMutableRawPointer(entries)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: capacity * MemoryLayout<Entry>.stride)
        return entries
    }

    @inline(__always)
    private func home(_ id: ObjectID) -> Int {
        Int(truncatingIfNeeded: id.registryHash &* 0x9E37_79B9_7F4A_7C15 >> 32) & (capacity - 1)
    }

    /// The object registered under `id`.
    func object(for id: ObjectID) -> ManagedObject? {
        var slot = home(id)
        while true {
            let entry = entries[slot]
            guard let pointer = entry.object else { return nil }
            if pointer != Self.tombstone, entry.id == id {
                return Unmanaged<ManagedObject>.fromOpaque(pointer).takeUnretainedValue()
            }
            slot = (slot + 1) & (capacity - 1)
        }
    }

    /// Registers `object` under its ID, replacing any object registered under it.
    /// - Returns: the other object it replaced, if any.
    @discardableResult
    func insert(_ object: ManagedObject) -> ManagedObject? {
        if (used + 1) * 4 > capacity * 3 { resize(for: count + 1) }
        let id = object.objectID
        let pointer = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        var slot = home(id)
        var reusable: Int?
        while let existing = entries[slot].object {
            if existing == Self.tombstone {
                if reusable == nil { reusable = slot }
            } else if entries[slot].id == id {
                object.registrySlot = slot
                guard existing != pointer else { return nil }
                let other = Unmanaged<ManagedObject>.fromOpaque(existing).takeUnretainedValue()
                other.registrySlot = -1
                entries[slot].object = pointer
                return other
            }
            slot = (slot + 1) & (capacity - 1)
        }
        if let reusable {
            slot = reusable
        } else {
            used += 1
        }
        entries[slot] = Entry(id: id, object: pointer)
        object.registrySlot = slot
        count += 1
        return nil
    }

    /// Removes `object`'s entry, if it has one.
    func remove(_ object: ManagedObject) {
        remove(slot: object.registrySlot, UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()))
        object.registrySlot = -1
    }

    /// Removes the entry at `slot` if it is the object at `pointer` (an object being freed,
    /// which is never referenced again).
    func remove(slot: Int, _ pointer: UnsafeRawPointer) {
        guard slot >= 0, slot < capacity, entries[slot].object == pointer else { return }
        entries[slot].object = Self.tombstone
        count -= 1
        if count == 0, used > 0 {
            // Every object left: start afresh, without tombstones to walk over.
            UnsafeMutableRawPointer(entries).initializeMemory(as: UInt8.self, repeating: 0, count: capacity * MemoryLayout<Entry>.stride)
            used = 0
        }
    }

    /// Makes room for `additional` more objects at once.
    func reserveCapacity(_ additional: Int) {
        if (used + additional) * 4 > capacity * 3 { resize(for: count + additional) }
    }

    /// Every registered object.
    var objects: [ManagedObject] {
        var result: [ManagedObject] = []
        result.reserveCapacity(count)
        for slot in 0..<capacity {
            if let pointer = entries[slot].object, pointer != Self.tombstone {
                result.append(Unmanaged<ManagedObject>.fromOpaque(pointer).takeUnretainedValue())
            }
        }
        return result
    }

    /// Runs `body` on every registered object, without retaining them (the context's
    /// `deinit` clears their references to it).
    func forEachObject(_ body: (ManagedObject) -> Void) {
        for slot in 0..<capacity {
            if let pointer = entries[slot].object, pointer != Self.tombstone {
                Unmanaged<ManagedObject>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
            }
        }
    }

    /// Forgets every object (their slots are cleared).
    func removeAll() {
        for object in objects { object.registrySlot = -1 }
        entries.deallocate()
        capacity = 16
        entries = Self.allocate(capacity)
        count = 0
        used = 0
    }

    /// Rehashes the live entries into a table with room for `needed` (at most half full),
    /// telling each object its new slot.
    private func resize(for needed: Int) {
        var newCapacity = 16
        while newCapacity < needed * 2 { newCapacity *= 2 }
        let old = entries, oldCapacity = capacity
        entries = Self.allocate(newCapacity)
        capacity = newCapacity
        used = count
        for index in 0..<oldCapacity {
            guard let pointer = old[index].object, pointer != Self.tombstone else { continue }
            var slot = home(old[index].id)
            while entries[slot].object != nil { slot = (slot + 1) & (capacity - 1) }
            entries[slot] = old[index]
            Unmanaged<ManagedObject>.fromOpaque(pointer).takeUnretainedValue().registrySlot = slot
        }
        old.deallocate()
    }
}
