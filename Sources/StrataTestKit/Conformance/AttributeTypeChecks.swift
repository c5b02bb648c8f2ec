import Foundation
import Strata
import Testing

/// Every attribute type, with the values stores get wrong: extremes, non-finite numbers, empty
/// versus nil, dates far from 1970, long decimals, and strings that need escaping.
package struct AttributeTypeChecks {
    package init() {}

    static let transformers: [String: any AttributeTransformer] = ["Point": CodableAttributeTransformer<Point>()]
    static let point = Point(x: 1.5, y: -2.25, label: "<p & \"q\">")

    /// Samples by label: the value of every attribute (nil: left unset).
    static let samples: [String: [String: AttributeValue]] = [
        "highest": [
            "string": .string("quotes \" and ' and <&> and ]]> and \\ backslash"),
            "int16": .integer(Int64(Int16.max)),
            "int32": .integer(Int64(Int32.max)),
            "int64": .integer(Int64.max),
            "decimal": .decimal(Decimal(string: "123456789012345678901234567890")!),
            "double": .double(.infinity),
            "float": .float(.infinity),
            "bool": .bool(true),
            "date": .date(date("2150-06-30T23:59:59.999Z")),
            "binary": .binary(Data((0...255).map { UInt8($0) })),
            "uuid": .uuid(UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!),
            "uri": .uri(URL(string: "https://example.com/a%20b/c?q=1&r=%3C%3E#frag")!),
        ],
        "lowest": [
            "string": .string("tab\there\nnewline\rcarriage return\r\nCRLF  "),
            "int16": .integer(Int64(Int16.min)),
            "int32": .integer(Int64(Int32.min)),
            "int64": .integer(Int64.min),
            "decimal": .decimal(Decimal(string: "-12345678901234567890.1234567890")!),
            "double": .double(-.infinity),
            "float": .float(-.infinity),
            "bool": .bool(false),
            "date": .date(date("1901-12-13T20:45:52.001Z")),
            "binary": .binary(Data()),
            "uuid": .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!),
            "uri": .uri(URL(string: "file:///tmp/a%20file.txt")!),
        ],
        "special": [
            "string": .string("emoji 👩‍👩‍👧‍👦🇫🇷 combining e\u{301} precomposed \u{E9} Å\u{30A}"),
            "int16": .integer(0),
            "int32": .integer(-1),
            "int64": .integer(9_007_199_254_740_993),
            "decimal": .decimal(Decimal(string: "0.000000000000000000000000000001")!),
            "double": .double(.nan),
            "float": .float(.nan),
            "date": .date(date("1969-12-31T23:59:59.999Z")),
            "uri": .uri(URL(string: "mailto:someone@example.com")!),
        ],
        "finite": [
            "string": .string(""),
            "decimal": .decimal(Decimal(string: "-0.5")!),
            "double": .double(.greatestFiniteMagnitude),
            "float": .float(.leastNonzeroMagnitude),
            "date": .date(date("2001-01-01T00:00:00.000Z")),
        ],
        "tiny": [
            "double": .double(.leastNonzeroMagnitude),
            "float": .float(.greatestFiniteMagnitude),
            "date": .date(date("1600-02-29T12:00:00.500Z")),
        ],
        "nothing": [:],
    ]

    static let keys = ["string", "int16", "int32", "int64", "decimal", "double", "float", "bool", "date", "binary", "uuid", "uri"]

    package func everyTypeRoundTripsExactly(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.allTypes, transformers: Self.transformers)
        let context = fixture.context()
        for (label, values) in Self.samples {
            let sample = try context.make("Sample", ["label": label])
            for (key, value) in values { sample[key] = value }
        }
        try context.save()
        try fixture.verifyStored { context throws in
            let stored = try context.all("Sample", by: "label")
            #expect(stored.map { $0["label"] as? String } == Self.samples.keys.sorted())
            for sample in stored {
                let label = sample["label"] as! String
                for key in Self.keys {
                    let expected = Self.samples[label]![key]
                    let actual = sample.attribute(key)
                    #expect(actual == expected, "\(label).\(key)")
                    // Canonically equivalent strings are equal in Swift; a store must keep the
                    // very scalars it was given.
                    if case .string(let want) = expected, case .string(let got) = actual {
                        #expect(Array(got.unicodeScalars) == Array(want.unicodeScalars), "\(label).\(key) scalars")
                    }
                    if case .date(let want) = expected, case .date(let got) = actual {
                        #expect(ISO8601.string(from: got) == ISO8601.string(from: want), "\(label).\(key) text")
                    }
                    if case .decimal(let want) = expected, case .decimal(let got) = actual {
                        #expect(got.description == want.description, "\(label).\(key) digits")
                    }
                }
            }
        }
    }

    package func emptyAndNilAreDifferent(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.allTypes, transformers: Self.transformers)
        let context = fixture.context()
        let empty = try context.make("Sample", ["label": "empty", "binary": Data(), "string": ""])
        let none = try context.make("Sample", ["label": "none"])
        try context.save()
        try fixture.verifyStored { context throws in
            let storedEmpty = try context.existingObject(with: empty.objectID)
            let storedNone = try context.existingObject(with: none.objectID)
            #expect(storedEmpty.attribute("binary") == .binary(Data()))
            #expect(storedEmpty.attribute("string") == .string(""))
            #expect(storedNone.attribute("binary") == nil)
            #expect(storedNone.attribute("string") == nil)
            let nilBinary = FetchPredicate.comparison(Comparison(.key("binary"), .equal, .constant(.null)))
            #expect(try context.fetch(FetchRequest(entityName: "Sample", predicate: nilBinary)).map(\.objectID) == [none.objectID])
            let nilString = FetchPredicate.comparison(Comparison(.key("string"), .equal, .constant(.null)))
            #expect(try context.fetch(FetchRequest(entityName: "Sample", predicate: nilString)).map(\.objectID) == [none.objectID])
        }
    }

    package func transformableAndTransientAttributes(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.allTypes, transformers: Self.transformers)
        let context = fixture.context()
        let sample = try context.make("Sample", ["label": "p", "point": Self.point, "scratch": "not stored"])
        #expect(sample["scratch"] as? String == "not stored")
        try context.save()
        let encoded = try CodableAttributeTransformer<Point>().transform(Self.point)
        #expect(try fixture.snapshot().objects[sample.objectID]?.attributes == ["label": .string("p"), "point": .binary(encoded)])
        try fixture.verifyStored { context throws in
            let stored = try context.existingObject(with: sample.objectID)
            #expect(stored["point"] as? Point == Self.point)
            #expect(stored.attribute("point") == .binary(encoded))
            #expect(stored["scratch"] == nil)
        }
    }

    package func edgeValuesAreFoundByEquality(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.allTypes, transformers: Self.transformers)
        let context = fixture.context()
        var ids: [String: ObjectID] = [:]
        var objects: [ManagedObject] = []
        for (label, values) in Self.samples {
            let sample = try context.make("Sample", ["label": label])
            for (key, value) in values { sample[key] = value }
            objects.append(sample)
        }
        try context.save()
        for object in objects { ids[object["label"] as! String] = object.objectID }
        try fixture.verifyStored { context throws in
            for (label, values) in Self.samples {
                for (key, value) in values {
                    let predicate = FetchPredicate.comparison(Comparison(.key(key), .equal, .constant(PredicateValue(value))))
                    let request = FetchRequest(entityName: "Sample", predicate: predicate, sortDescriptors: [FetchSortDescriptor("label")])
                    let expected = Self.samples.filter { $0.value[key] == value }.keys.sorted().map { ids[$0]! }
                    #expect(try context.fetchObjectIDs(request) == expected, "\(label).\(key) == \(value)")
                }
            }
        }
    }
}
