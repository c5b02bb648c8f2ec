import Foundation
import Strata
import StrataTestKit
import Synchronization
import Testing

@Suite struct AttributeValuesTests {
    static let layout = AttributeValues.Layout(names: ["title", "count", "done"])

    @Test func readsAndWritesByNameAndByPosition() {
        var values = AttributeValues(layout: Self.layout)
        #expect(values.isEmpty)
        values["count"] = .integer(3)
        values[position: 0] = .string("a")
        #expect(values["title"] == .string("a"))
        #expect(values[position: 1] == .integer(3))
        #expect(values["done"] == nil)
        #expect(values.count == 2)
        #expect(values.keys == ["title", "count"])
        #expect(values.map(\.key) == ["title", "count"])
        #expect(values.dictionary == ["title": .string("a"), "count": .integer(3)])
        values["title"] = nil
        #expect(values.keys == ["count"])
        #expect(values.layout === Self.layout)
    }

    @Test func aNameOutsideTheLayoutExtendsItForThisValueOnly() {
        var values = AttributeValues(layout: Self.layout)
        values["extra"] = .bool(true)
        values["missing"] = nil
        #expect(values["extra"] == .bool(true))
        #expect(values.layout.names == ["title", "count", "done", "extra"])
        #expect(Self.layout.names == ["title", "count", "done"])
        #expect(values.keys == ["extra"])
    }

    @Test func equalityAndHashIgnoreLayoutAndOrder() {
        var positioned = AttributeValues(layout: Self.layout)
        positioned["done"] = .bool(false)
        positioned["title"] = .string("x")
        let literal: AttributeValues = ["title": .string("x"), "done": .bool(false)]
        #expect(positioned == literal)
        #expect(positioned.hashValue == literal.hashValue)
        #expect(Set([positioned, literal]).count == 1)
        let other: AttributeValues = ["title": .string("x")]
        #expect(positioned != other)
        #expect(other != positioned)
        let nan: AttributeValues = ["count": .double(.nan)]
        #expect(nan == AttributeValues(["count": .double(.nan)]))
    }

    @Test func laidOutKeepsEveryValue() {
        let literal: AttributeValues = ["done": .bool(true), "extra": .integer(1), "title": .string("t")]
        let laidOut = literal.laidOut(by: Self.layout)
        #expect(laidOut.layout.names == ["title", "count", "done", "extra"])
        #expect(laidOut[position: 0] == .string("t"))
        #expect(laidOut[position: 2] == .bool(true))
        #expect(laidOut == literal)
        let same = laidOut.laidOut(by: laidOut.layout)
        #expect(same.layout === laidOut.layout)
    }

    @Test func entitiesShareOneLayoutWithInheritedAttributesFirst() throws {
        let schema = try Schema(data: Data("""
            { "name": "M", "entities": [
              { "name": "Base", "attributes": [ { "name": "a", "type": "string" }, { "name": "t", "type": "string", "transient": true } ] },
              { "name": "Sub", "parent": "Base", "attributes": [ { "name": "b", "type": "int64" } ] } ] }
            """.utf8))
        let base = try #require(schema.entity(named: "Base"))
        let sub = try #require(schema.entity(named: "Sub"))
        #expect(base.attributeLayout.names == ["a", "t"])
        #expect(sub.attributeLayout.names == ["a", "t", "b"])
        #expect(base.transientAttributePositions == [1])
        #expect(sub.transientAttributePositions == [1])
    }
}

/// The values' storage is a buffer of their own, shared by copies until one of them writes
/// (copy on write), and filled in place by a store's reader.
extension AttributeValuesTests {
    /// A write through one copy (by position, by name, under a new name, removing all) never
    /// shows in another copy, in an iterator made before, or in the layout's shared empty values.
    @Test func aWriteThroughOneCopyNeverShowsInAnother() {
        var original = AttributeValues(layout: Self.layout)
        original["title"] = .string("a")
        original[position: 1] = .integer(1)

        var copy = original
        copy[position: 0] = .string("b")
        #expect(copy["title"] == .string("b"))
        #expect(original["title"] == .string("a"))

        copy = original
        copy["count"] = nil
        #expect(copy.keys == ["title"])
        #expect(original["count"] == .integer(1))

        copy = original
        copy["extra"] = .bool(true)
        #expect(copy.keys == ["title", "count", "extra"])
        #expect(original.keys == ["title", "count"])
        #expect(original.layout === Self.layout)

        copy = original
        copy.removeAll()
        #expect(copy.isEmpty)
        #expect(copy.layout === Self.layout)
        #expect(original.count == 2)

        let before = original
        var iterator = original.makeIterator()
        original[position: 2] = .bool(true)
        original["title"] = .string("z")
        #expect(before.dictionary == ["title": .string("a"), "count": .integer(1)])
        #expect(iterator.next()?.value == .string("a"))
        #expect(iterator.next()?.value == .integer(1))
        #expect(iterator.next() == nil)
        #expect(original.dictionary == ["title": .string("z"), "count": .integer(1), "done": .bool(true)])

        // Every new value of a layout starts from the layout's one empty buffer: none of the
        // writes above reached it.
        var fresh = AttributeValues(layout: Self.layout)
        #expect(fresh.isEmpty)
        fresh.removeAll()
        fresh[position: 2] = .bool(false)
        #expect(AttributeValues(layout: Self.layout).isEmpty)
    }

    /// Records are values too: a copy of a record, changed, leaves the record as it was.
    @Test func aChangedCopyOfARecordLeavesTheRecord() {
        let id = ObjectID(entityName: "Book", storeIdentifier: "S", primaryKey: 1)
        var attributes = AttributeValues(layout: Self.layout)
        attributes["title"] = .string("a")
        let record = StoreRecord(objectID: id, attributes: attributes)
        var changed = record
        changed.attributes["title"] = .string("b")
        changed.attributes[position: 1] = .integer(2)
        #expect(record.attributes.dictionary == ["title": .string("a")])
        #expect(changed.attributes.dictionary == ["title": .string("b"), "count": .integer(2)])
        #expect(record != changed)
        #expect(attributes == record.attributes)
    }

    /// One value shared by many threads, each writing its own copy: every copy keeps its own
    /// write, and the shared value keeps its own.
    @Test func copiesWrittenOnManyThreadsStayApart() async {
        let title = AttributeValue.string(String(repeating: "long enough to be on the heap ", count: 2))
        var shared = AttributeValues(layout: Self.layout)
        shared["title"] = title
        let values = shared
        await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var agrees = true
                    for step in 0..<2_000 {
                        var copy = values
                        copy[position: 1] = .integer(Int64(task * 10_000 + step))
                        copy["title"] = step.isMultiple(of: 2) ? nil : .string("\(task)")
                        agrees = agrees && copy[position: 1] == .integer(Int64(task * 10_000 + step))
                            && copy["title"] == (step.isMultiple(of: 2) ? nil : .string("\(task)"))
                            && values[position: 1] == nil && values["title"] == title
                    }
                    return agrees
                }
            }
            for await agrees in group { #expect(agrees) }
        }
        #expect(values.keys == ["title"])
    }

    enum ReadFailure: Error, Equatable { case at(Int) }

    /// Hands out byte buffers of 64 bytes (stored out of line by `Data`) and counts how many
    /// were made and how many freed: a value leaked or freed twice shows as a difference.
    final class Payloads: Sendable {
        private let made = Atomic<Int>(0)
        private let freed = Atomic<Int>(0)

        func data() -> Data {
            made.wrappingAdd(1, ordering: .relaxed)
            let bytes = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 1)
            bytes.initializeMemory(as: UInt8.self, repeating: 7, count: 64)
            return Data(bytesNoCopy: bytes, count: 64, deallocator: .custom { [self] pointer, _ in
                pointer.deallocate()
                freed.wrappingAdd(1, ordering: .relaxed)
            })
        }

        var live: Int { made.load(ordering: .relaxed) - freed.load(ordering: .relaxed) }
        var count: Int { made.load(ordering: .relaxed) }
    }

    /// A store's reader fills the values in place; when it throws at some position, the values
    /// made before it are freed, once, and the error comes out as thrown.
    @Test func aReaderThatThrowsFreesTheValuesItMadeOnce() {
        let layout = AttributeValues.Layout(names: (0..<9).map { "v\($0)" })
        let payloads = Payloads()
        for failing in 0...layout.count {
            do throws(ReadFailure) {
                let values = try AttributeValues(layout: layout) { (position) throws(ReadFailure) -> AttributeValue? in
                    if position == failing { throw .at(position) }
                    return position % 3 == 2 ? nil : .binary(payloads.data())
                }
                #expect(failing == layout.count)
                #expect(values.count == 6)
                #expect(payloads.live == 6)
                var copy = values
                copy[position: 0] = nil
                #expect(values[position: 0] == .binary(Data(repeating: 7, count: 64)))
                #expect(payloads.live == 6)
            } catch {
                #expect(error == .at(failing))
                #expect(failing < layout.count)
            }
            #expect(payloads.live == 0, "reader failing at \(failing)")
        }
        #expect(payloads.count == 6 + (0..<layout.count).reduce(0) { $0 + (0..<$1).filter { $0 % 3 != 2 }.count })
    }

    /// Many values read and dropped, readers failing at random positions, copies written:
    /// nothing is left behind and nothing is freed twice.
    @Test func readersFailingAtRandomLeaveNothingBehind() {
        let layout = AttributeValues.Layout(names: (0..<12).map { "v\($0)" })
        let payloads = Payloads()
        var random = SeededGenerator(seed: 16)
        var kept: [AttributeValues] = []
        for _ in 0..<3_000 {
            let failing = Int.random(in: 0...layout.count + 3, using: &random)
            let kinds = (0..<layout.count).map { _ in Int.random(in: 0..<4, using: &random) }
            do throws(ReadFailure) {
                var values = try AttributeValues(layout: layout) { (position) throws(ReadFailure) -> AttributeValue? in
                    if position == failing { throw .at(position) }
                    switch kinds[position] {
                    case 0: return nil
                    case 1: return .binary(payloads.data())
                    case 2: return .string(String(repeating: "s", count: 20 + position))
                    default: return .integer(Int64(position))
                    }
                }
                if random.chance(0.5) { kept.append(values) }
                values[position: Int.random(in: 0..<layout.count, using: &random)] = .binary(payloads.data())
                if random.chance(0.3) { kept.append(values) }
            } catch {
                #expect(error == .at(failing))
            }
            if kept.count > 20 { kept.removeFirst(10) }
        }
        #expect(payloads.live == payloadsHeld(by: kept))
        kept.removeAll()
        #expect(payloads.live == 0)
    }

    /// The distinct 64-byte buffers `values` hold (copies share theirs).
    private func payloadsHeld(by values: [AttributeValues]) -> Int {
        var buffers = Set<UnsafeRawPointer>()
        for value in values {
            for (_, item) in value {
                if case .binary(let data) = item { data.withUnsafeBytes { _ = buffers.insert(UnsafeRawPointer($0.baseAddress!)) } }
            }
        }
        return buffers.count
    }
}
