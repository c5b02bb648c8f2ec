import Foundation
import Strata
import Testing

/// `key op value`, built in code.
func where_(
    _ key: String, _ op: ComparisonOperator, _ value: PredicateValue,
    _ modifier: ComparisonModifier = .direct, _ options: ComparisonOptions = []
) -> FetchPredicate {
    .comparison(Comparison(.key(key), op, .constant(value), modifier: modifier, options: options))
}

/// Fetching from the store: predicates built in code, sorting, windows, counts, IDs and
/// dictionaries. Every check runs in a context without changes, so the store answers it.
package struct FetchChecks {
    package init() {}

    /// Seven books, four authors, four tags (one unused).
    static func populate(_ fixture: StoreFixture) throws -> [String: ObjectID] {
        let context = fixture.context()
        var authors: [String: ManagedObject] = [:]
        for (name, country) in [("Ursula", "US"), ("Émile", "FR"), ("anne", nil), ("Zed", "UK")] {
            authors[name] = try context.make("Author", country.map { ["name": name, "country": $0] } ?? ["name": name])
        }
        var tags: [String: ManagedObject] = [:]
        for name in ["sf", "classic", "misc", "unused"] { tags[name] = try context.make("Tag", ["name": name]) }
        let rows: [(String, Int?, String?, Double?, String?, Bool, String?, [String])] = [
            ("The Dispossessed", 387, "9.99", 4.5, "1974-05-01T00:00:00.000Z", true, "Ursula", ["sf", "classic"]),
            ("Lathe of Heaven", 184, "7.50", 4.1, "1971-10-01T00:00:00.000Z", false, "Ursula", ["sf"]),
            ("Germinal", 592, "12.00", 4.3, "1885-03-01T00:00:00.000Z", true, "Émile", ["classic"]),
            ("file10", nil, nil, nil, nil, true, "anne", []),
            ("file2", 2, "0.50", 2.0, "2150-01-01T00:00:00.000Z", true, nil, ["misc"]),
            ("Saint-Étienne", 99, "100", 3.5, "2001-01-01T00:00:00.000Z", false, "Zed", ["misc", "classic"]),
            ("saint-etienne", 100, nil, nil, nil, true, "Zed", []),
        ]
        var ids: [String: ObjectID] = [:]
        var books: [String: ManagedObject] = [:]
        for (title, pages, price, rating, published, inPrint, author, bookTags) in rows {
            let book = try context.make("Book", ["title": title, "inPrint": inPrint])
            if let pages { book["pages"] = pages }
            if let price { book["price"] = Decimal(string: price)! }
            if let rating { book["rating"] = rating }
            if let published { book["published"] = date(published) }
            if let author { book.setObject(authors[author]!, forKey: "author") }
            for tag in bookTags { book.addObject(tags[tag]!, forKey: "tags") }
            books[title] = book
        }
        try context.save()
        for (title, book) in books { ids[title] = book.objectID }
        for (name, author) in authors { ids[name] = author.objectID }
        return ids
    }

    static let all = ["Germinal", "Lathe of Heaven", "Saint-Étienne", "The Dispossessed", "file10", "file2", "saint-etienne"]

    /// Predicates on Book and the titles they match, in default string order.
    static func bookCases(_ ids: [String: ObjectID]) -> [(String, FetchPredicate, [String])] {
        [
            ("==", where_("title", .equal, "Germinal"), ["Germinal"]),
            ("==[cd]", where_("title", .equal, "SAINT-ETIENNE", .direct, [.caseInsensitive, .diacriticInsensitive]), ["Saint-Étienne", "saint-etienne"]),
            ("==[c]", where_("title", .equal, "saint-étienne", .direct, .caseInsensitive), ["Saint-Étienne"]),
            ("!=", where_("title", .notEqual, "Germinal"), Self.all.filter { $0 != "Germinal" }),
            ("BEGINSWITH", where_("title", .beginsWith, "file"), ["file10", "file2"]),
            ("BEGINSWITH[c]", where_("title", .beginsWith, "the", .direct, .caseInsensitive), ["The Dispossessed"]),
            ("ENDSWITH", where_("title", .endsWith, "Heaven"), ["Lathe of Heaven"]),
            ("CONTAINS", where_("title", .contains, "etienne"), ["saint-etienne"]),
            ("CONTAINS[d]", where_("title", .contains, "Etienne", .direct, .diacriticInsensitive), ["Saint-Étienne"]),
            ("CONTAINS[cd]", where_("title", .contains, "ÉTIENNE", .direct, [.caseInsensitive, .diacriticInsensitive]), ["Saint-Étienne", "saint-etienne"]),
            ("LIKE ?", where_("title", .like, "file?"), ["file2"]),
            ("LIKE *", where_("title", .like, "*of*"), ["Lathe of Heaven"]),
            ("LIKE[c]", where_("title", .like, "s*", .direct, .caseInsensitive), ["Saint-Étienne", "saint-etienne"]),
            ("MATCHES", where_("title", .matches, "file[0-9]+"), ["file10", "file2"]),
            ("IN strings", where_("title", .in, ["Germinal", "nope"]), ["Germinal"]),
            ("<", where_("pages", .lessThan, 100), ["Saint-Étienne", "file2"]),
            ("NOT <", .not(where_("pages", .lessThan, 100)), ["Germinal", "Lathe of Heaven", "The Dispossessed", "file10", "saint-etienne"]),
            ("== nil", where_("pages", .equal, .null), ["file10"]),
            ("!= nil", where_("pages", .notEqual, .null), Self.all.filter { $0 != "file10" }),
            ("BETWEEN", where_("pages", .between, [99, 184]), ["Lathe of Heaven", "Saint-Étienne", "saint-etienne"]),
            ("IN numbers", where_("pages", .in, [2, 100, 5]), ["file2", "saint-etienne"]),
            ("decimal >=", where_("price", .greaterThanOrEqual, .decimal(Decimal(string: "9.99")!)), ["Germinal", "Saint-Étienne", "The Dispossessed"]),
            ("decimal > integer", where_("price", .greaterThan, 9), ["Germinal", "Saint-Étienne", "The Dispossessed"]),
            ("decimal < double", where_("price", .lessThan, 7.5), ["file2"]),
            ("double > integer", where_("rating", .greaterThan, 4), ["Germinal", "Lathe of Heaven", "The Dispossessed"]),
            ("double == integer", where_("rating", .equal, 2), ["file2"]),
            ("date <", where_("published", .lessThan, .date(date("1970-01-01T00:00:00.000Z"))), ["Germinal"]),
            ("date >", where_("published", .greaterThan, .date(date("2100-01-01T00:00:00.000Z"))), ["file2"]),
            ("date ==", where_("published", .equal, .date(date("1971-10-01T00:00:00.000Z"))), ["Lathe of Heaven"]),
            ("bool", where_("inPrint", .equal, false), ["Lathe of Heaven", "Saint-Étienne"]),
            ("to-one key path", where_("author.name", .equal, "Ursula"), ["Lathe of Heaven", "The Dispossessed"]),
            ("to-one nil", where_("author", .equal, .null), ["file2"]),
            ("to-one object", where_("author", .equal, .object(ids["Zed"]!)), ["Saint-Étienne", "saint-etienne"]),
            ("through nil to-one", where_("author.country", .equal, .null), ["file10", "file2"]),
            ("ANY", where_("tags.name", .equal, "classic", .any), ["Germinal", "Saint-Étienne", "The Dispossessed"]),
            ("implicit ANY", where_("tags.name", .equal, "sf"), ["Lathe of Heaven", "The Dispossessed"]),
            ("ALL", where_("tags.name", .equal, "classic", .all), ["Germinal", "file10", "saint-etienne"]),
            ("NONE", where_("tags.name", .equal, "classic", .none), ["Lathe of Heaven", "file10", "file2", "saint-etienne"]),
            ("@count ==", where_("tags.@count", .equal, 0), ["file10", "saint-etienne"]),
            ("@count >=", where_("tags.@count", .greaterThanOrEqual, 2), ["Saint-Étienne", "The Dispossessed"]),
            ("SUBQUERY", .comparison(Comparison(
                .subquery(collection: .key("tags"), variable: "t",
                          predicate: .comparison(Comparison(.variable("t", ["name"]), .beginsWith, .constant("s"))), keyPath: ["@count"]),
                .greaterThan, .constant(0))), ["Lathe of Heaven", "The Dispossessed"]),
            ("AND/OR", .and([.or([where_("pages", .greaterThan, 500), where_("rating", .lessThan, 3)]), where_("inPrint", .equal, true)]), ["Germinal", "file2"]),
            ("SELF", .comparison(Comparison(.evaluatedObject, .equal, .constant(.object(ids["file2"]!)))), ["file2"]),
            ("TRUEPREDICATE", .true, Self.all),
            ("FALSEPREDICATE", .false, []),
        ]
    }

    package func predicatesOnAttributesAndRelationships(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let ids = try Self.populate(fixture)
        try fixture.verifyStored { context throws in
            for (name, predicate, expected) in Self.bookCases(ids) {
                let request = FetchRequest(entityName: "Book", predicate: predicate, sortDescriptors: [FetchSortDescriptor("title")])
                #expect(try context.fetch(request).map { $0["title"] as? String } == expected, "\(name)")
                #expect(try context.count(for: request) == expected.count, "\(name) count")
                #expect(try context.fetchObjectIDs(request) == expected.map { ids[$0]! }, "\(name) IDs")
            }
        }
    }

    package func aggregatesOverToMany(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try Self.populate(fixture)
        let cases: [(String, FetchPredicate, [String])] = [
            ("@sum", where_("books.@sum.pages", .greaterThan, 500), ["Ursula", "Émile"]),
            ("@sum with nil", where_("books.@sum.pages", .equal, 0), ["anne"]),
            ("@avg", where_("books.@avg.rating", .greaterThan, 4.2), ["Ursula", "Émile"]),
            ("@max", where_("books.@max.published", .greaterThan, .date(date("2000-01-01T00:00:00.000Z"))), ["Zed"]),
            ("@min", where_("books.@min.pages", .equal, 99), ["Zed"]),
            ("@count", where_("books.@count", .equal, 2), ["Ursula", "Zed"]),
            ("ANY through to-many", where_("books.pages", .greaterThan, 500, .any), ["Émile"]),
            ("ANY two levels", where_("books.tags.name", .equal, "misc", .any), ["Zed"]),
        ]
        try fixture.verifyStored { context throws in
            for (name, predicate, expected) in cases {
                let request = FetchRequest(entityName: "Author", predicate: predicate, sortDescriptors: [FetchSortDescriptor("name")])
                #expect(try context.fetch(request).map { $0["name"] as? String } == expected, "\(name)")
            }
        }
    }

    package func sortDescriptors(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try Self.populate(fixture)
        let cases: [(String, [FetchSortDescriptor], [String])] = [
            ("nil first", [FetchSortDescriptor("pages")],
             ["file10", "file2", "Saint-Étienne", "saint-etienne", "Lathe of Heaven", "The Dispossessed", "Germinal"]),
            ("nil last descending", [FetchSortDescriptor("pages", ascending: false)],
             ["Germinal", "The Dispossessed", "Lathe of Heaven", "saint-etienne", "Saint-Étienne", "file2", "file10"]),
            ("multi-key", [FetchSortDescriptor("inPrint"), FetchSortDescriptor("pages", ascending: false)],
             ["Lathe of Heaven", "Saint-Étienne", "Germinal", "The Dispossessed", "saint-etienne", "file2", "file10"]),
            ("through to-one", [FetchSortDescriptor("author.name"), FetchSortDescriptor("title")],
             ["file2", "Lathe of Heaven", "The Dispossessed", "Saint-Étienne", "saint-etienne", "file10", "Germinal"]),
            ("decimal", [FetchSortDescriptor("price", ascending: false), FetchSortDescriptor("title")],
             ["Saint-Étienne", "Germinal", "The Dispossessed", "Lathe of Heaven", "file2", "file10", "saint-etienne"]),
            ("date", [FetchSortDescriptor("published"), FetchSortDescriptor("title", ascending: false)],
             ["saint-etienne", "file10", "Germinal", "Lathe of Heaven", "The Dispossessed", "Saint-Étienne", "file2"]),
            ("default strings", [FetchSortDescriptor("title")], Self.all),
            ("caseInsensitive", [FetchSortDescriptor("title", comparison: .caseInsensitive)],
             ["file10", "file2", "Germinal", "Lathe of Heaven", "saint-etienne", "Saint-Étienne", "The Dispossessed"]),
            ("localizedStandard", [FetchSortDescriptor("title", comparison: .localizedStandard)],
             ["file2", "file10", "Germinal", "Lathe of Heaven", "Saint-Étienne", "saint-etienne", "The Dispossessed"]),
            ("localizedStandard descending", [FetchSortDescriptor("title", ascending: false, comparison: .localizedStandard)],
             ["The Dispossessed", "saint-etienne", "Saint-Étienne", "Lathe of Heaven", "Germinal", "file10", "file2"]),
        ]
        try fixture.verifyStored { context throws in
            for (name, descriptors, expected) in cases {
                let request = FetchRequest(entityName: "Book", sortDescriptors: descriptors)
                #expect(try context.fetch(request).map { $0["title"] as? String } == expected, "\(name)")
            }
        }
    }

    package func limitOffsetCountAndIDs(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let ids = try Self.populate(fixture)
        let windows: [(offset: Int, limit: Int, expected: [String])] = [
            (0, 0, Self.all),
            (2, 3, ["Saint-Étienne", "The Dispossessed", "file10"]),
            (0, 1, ["Germinal"]),
            (6, 5, ["saint-etienne"]),
            (7, 0, []),
            (100, 2, []),
        ]
        try fixture.verifyStored { context throws in
            for window in windows {
                let request = FetchRequest(
                    entityName: "Book", sortDescriptors: [FetchSortDescriptor("title")], fetchLimit: window.limit, fetchOffset: window.offset)
                #expect(try context.fetch(request).map { $0["title"] as? String } == window.expected, "\(window)")
                #expect(try context.count(for: request) == window.expected.count, "count \(window)")
                #expect(try context.fetchObjectIDs(request) == window.expected.map { ids[$0]! }, "IDs \(window)")
            }
            // A window applies after the predicate.
            let filtered = FetchRequest(
                entityName: "Book", predicate: where_("inPrint", .equal, true), sortDescriptors: [FetchSortDescriptor("pages", ascending: false)],
                fetchLimit: 2, fetchOffset: 1)
            #expect(try context.fetch(filtered).map { $0["title"] as? String } == ["The Dispossessed", "saint-etienne"])
            #expect(try context.count(for: filtered) == 2)
        }
    }

    package func dictionaries(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let ids = try Self.populate(fixture)
        try fixture.verifyStored { context throws in
            var request = FetchRequest(entityName: "Book", sortDescriptors: [FetchSortDescriptor("title")], fetchLimit: 2, fetchOffset: 3)
            request.propertiesToFetch = ["title", "pages", "author", "author.name", "author.country"]
            #expect(try context.fetchDictionaries(request) == [
                ["title": .attribute(.string("The Dispossessed")), "pages": .attribute(.integer(387)),
                 "author": .toOne(ids["Ursula"]!), "author.name": .attribute(.string("Ursula")),
                 "author.country": .attribute(.string("US"))],
                ["title": .attribute(.string("file10")), "pages": .attribute(nil),
                 "author": .toOne(ids["anne"]!), "author.name": .attribute(.string("anne")),
                 "author.country": .attribute(nil)],
            ])
            let everything = FetchRequest(entityName: "Book", predicate: where_("title", .equal, "file2"))
            #expect(try context.fetchDictionaries(everything) == [[
                "title": .attribute(.string("file2")), "pages": .attribute(.integer(2)),
                "price": .attribute(.decimal(Decimal(string: "0.50")!)), "rating": .attribute(.double(2)),
                "published": .attribute(.date(date("2150-01-01T00:00:00.000Z"))), "inPrint": .attribute(.bool(true)),
            ]])
        }
    }

    package func invalidRequestsAreRefused(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try Self.populate(fixture)
        let context = fixture.context()
        expectError(.invalidPredicate) { _ = try context.fetch(FetchRequest(entityName: "Book", predicate: where_("titel", .equal, "x"))) }
        expectError(.invalidPredicate) { _ = try context.fetch(FetchRequest(entityName: "Book", sortDescriptors: [FetchSortDescriptor("tags.name")])) }
        expectError(.invalidPredicate) { _ = try context.fetch(FetchRequest(entityName: "Book", predicate: where_("title", .matches, "("))) }
        expectError(.invalidPredicate) { _ = try context.count(for: FetchRequest(entityName: "Book", predicate: where_("author.nam", .equal, "x"))) }
    }
}
