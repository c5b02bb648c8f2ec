import Foundation
import Strata
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
