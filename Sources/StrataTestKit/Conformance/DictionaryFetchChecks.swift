import Foundation
import Strata
import Testing

/// Dictionary fetches on every store: columns, groups, aggregates, having, distinct, sorting
/// and windows of groups, and the errors of keys the model does not have. The books are
/// ``FetchChecks/populate(_:)``'s.
package struct DictionaryFetchChecks {
    package init() {}

    static func request(_ columns: [ExpressionDescription], groupBy: [String] = [], _ configure: (inout FetchRequest) -> Void = { _ in }) -> FetchRequest {
        var request = FetchRequest(entityName: "Book", resultType: .dictionaries)
        request.expressionsToFetch = columns
        request.propertiesToGroupBy = groupBy
        configure(&request)
        return request
    }

    static func decimal(_ text: String) -> PropertyValue { .attribute(.decimal(Decimal(string: text)!)) }
    static func string(_ text: String?) -> PropertyValue { .attribute(text.map { .string($0) }) }
    static func integer(_ value: Int64) -> PropertyValue { .attribute(.integer(value)) }
    static func double(_ value: Double?) -> PropertyValue { .attribute(value.map { .double($0) }) }

    package func aggregatesPerGroup(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        let request = Self.request(
            [.key("author.name"), .count(), .count("price"), .sum("pages"), .average("rating"), .minimum("price"), .maximum("published"), .sum("price")],
            groupBy: ["author.name"])
        let nilDate = PropertyValue.attribute(nil)
        try fixture.verifyStored { context throws in
            let rows = try context.fetchDictionaries(request)
            // Groups by their key: nil first, then Unicode order.
            #expect(rows.map { $0["author.name"] } == [Self.string(nil), Self.string("Ursula"), Self.string("Zed"), Self.string("anne"), Self.string("Émile")])
            #expect(rows.map { $0["@count"] } == [1, 2, 2, 1, 1].map(Self.integer))
            #expect(rows.map { $0["@count.price"] } == [1, 2, 1, 0, 1].map(Self.integer))
            // Integers add to integers; nothing to add is 0.
            #expect(rows.map { $0["@sum.pages"] } == [2, 571, 199, 0, 592].map(Self.integer))
            // Averages are doubles; nil values are left out, and no value at all is nil.
            #expect(rows.map { $0["@avg.rating"] } == [2.0, (4.5 + 4.1) / 2, 3.5, nil, 4.3].map(Self.double))
            #expect(rows.map { $0["@min.price"] } == [Self.decimal("0.5"), Self.decimal("7.5"), Self.decimal("100"), .attribute(nil), Self.decimal("12")])
            #expect(rows.map { $0["@max.published"] } == [
                .attribute(.date(date("2150-01-01T00:00:00.000Z"))), .attribute(.date(date("1974-05-01T00:00:00.000Z"))),
                .attribute(.date(date("2001-01-01T00:00:00.000Z"))), nilDate, .attribute(.date(date("1885-03-01T00:00:00.000Z"))),
            ])
            // Decimals add exactly, to decimals; nothing to add is the decimal 0.
            #expect(rows.map { $0["@sum.price"] } == ["0.5", "17.49", "100", "0", "12"].map(Self.decimal))
            #expect(rows.allSatisfy { $0.count == 8 })
        }
    }

    /// `@median` and `@stddev` (`median:`, `stddev:`) of groups, as the evaluator computes them on
    /// every store (SQLite through its `strata_aggregate`): nil values left out, nil for a group
    /// with no value, a decimal median of decimals, doubles otherwise.
    package func medianAndStandardDeviationPerGroup(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        var request = Self.request(
            [.key("author.name"), .median("rating"), .median("price"), .median("pages"), .standardDeviation("rating"),
             ExpressionDescription(name: "spread", expression: .function(.stddev, [.key("pages")]))],
            groupBy: ["author.name"])
        try fixture.verifyStored { context throws in
            let rows = try context.fetchDictionaries(request)
            #expect(rows.map { $0["author.name"] } == [Self.string(nil), Self.string("Ursula"), Self.string("Zed"), Self.string("anne"), Self.string("Émile")])
            #expect(rows.map { $0["@median.rating"] } == [2.0, (4.5 + 4.1) / 2, 3.5, nil, 4.3].map(Self.double))
            // Of decimals, a decimal (the mean of the middle two, exact); of integers, a double.
            #expect(rows.map { $0["@median.price"] } == [Self.decimal("0.5"), Self.decimal("8.745"), Self.decimal("100"), .attribute(nil), Self.decimal("12")])
            #expect(rows.map { $0["@median.pages"] } == [2, 285.5, 99.5, nil, 592].map(Self.double))
            // Population standard deviations: 0 for one value, nil for none.
            #expect(rows.map { $0["spread"] } == [0, 101.5, 0.5, nil, 0].map(Self.double))
            let ratings = rows.map { row -> Double? in
                if case .attribute(.double(let value)?)? = row["@stddev.rating"] { return value }
                return nil
            }
            #expect(ratings[0] == 0 && ratings[2] == 0 && ratings[3] == nil && ratings[4] == 0)
            #expect(abs((ratings[1] ?? 0) - 0.2) < 1e-12)
        }
        request.havingPredicate = try FetchPredicate(format: "spread > 0.25")
        request.expressionsToFetch = [.key("author.name"), ExpressionDescription(name: "spread", expression: .function(.stddev, [.key("pages")]))]
        try fixture.verifyStored { context throws in
            #expect(try context.fetchDictionaries(request).map { $0["author.name"] } == [Self.string("Ursula"), Self.string("Zed")])
        }
        let strings = expectError(.invalidPredicate) { _ = try fixture.context().fetchDictionaries(Self.request([.median("title")])) }
        #expect(strings?.message == "'@median.title' takes numbers, not string values")
        let inKeyPath = expectError(.invalidPredicate) { _ = try fixture.context().fetchDictionaries(Self.request([.key("author.books.@median.pages")])) }
        #expect(inKeyPath?.message.hasPrefix("unknown collection operator '@median'") == true)
    }

    package func havingSortAndWindowOfGroups(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        try fixture.verifyStored { context throws in
            var request = Self.request([.key("author.name", as: "author"), .count(as: "books"), .sum("pages", as: "pages")], groupBy: ["author.name"])
            request.sortDescriptors = [FetchSortDescriptor("books", ascending: false), FetchSortDescriptor("pages")]
            #expect(try context.fetchDictionaries(request).map { $0["author"] } == ["Zed", "Ursula", "anne", nil, "Émile"].map(Self.string))
            request.havingPredicate = try FetchPredicate(format: "books >= 2 OR pages > 500")
            #expect(try context.fetchDictionaries(request).map { $0["author"] } == ["Zed", "Ursula", "Émile"].map(Self.string))
            request.fetchOffset = 1
            request.fetchLimit = 1
            #expect(try context.fetchDictionaries(request) == [["author": Self.string("Ursula"), "books": Self.integer(2), "pages": Self.integer(571)]])
            // A group key may be sorted by and tested without being a column.
            var byCountry = Self.request([.count(as: "n")], groupBy: ["author.country"])
            byCountry.sortDescriptors = [FetchSortDescriptor("author.country", ascending: false)]
            byCountry.havingPredicate = try FetchPredicate(format: "author.country != nil")
            #expect(try context.fetchDictionaries(byCountry) == [["n": Self.integer(2)], ["n": Self.integer(2)], ["n": Self.integer(1)]])
        }
    }

    package func aggregatesWithoutGroupsMakeOneRow(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        try fixture.verifyStored { context throws in
            var request = Self.request([.count(as: "n"), .sum("price", as: "total"), .average("pages", as: "mean"), .maximum("title", as: "last")])
            #expect(try context.fetchDictionaries(request) == [[
                "n": Self.integer(7), "total": Self.decimal("129.99"), "mean": Self.double(1364.0 / 6), "last": Self.string("saint-etienne"),
            ]])
            request.predicate = .false
            #expect(try context.fetchDictionaries(request) == [["n": Self.integer(0), "total": Self.decimal("0"), "mean": .attribute(nil), "last": .attribute(nil)]])
            // A result type asked for: the average as a decimal, the count as a double.
            request.predicate = where_("title", .beginsWith, "file")
            request.expressionsToFetch = [
                ExpressionDescription(name: "mean", expression: .key("@avg.pages"), resultType: .int32),
                ExpressionDescription(name: "n", expression: .key("@count"), resultType: .double),
            ]
            #expect(try context.fetchDictionaries(request) == [["mean": Self.integer(2), "n": Self.double(2)]])
        }
    }

    package func distinctKeepsTheFirstOfEqualRows(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        try fixture.verifyStored { context throws in
            var request = Self.request([.key("author.country")]) { $0.sortDescriptors = [FetchSortDescriptor("title")] }
            request.returnsDistinctResults = true
            #expect(try context.fetchDictionaries(request).map { $0["author.country"] } == ["FR", "US", "UK", nil].map(Self.string))
            request.fetchOffset = 1
            request.fetchLimit = 2
            #expect(try context.fetchDictionaries(request).map { $0["author.country"] } == ["US", "UK"].map(Self.string))
            var titles = Self.request([.key("inPrint")]) { $0.sortDescriptors = [FetchSortDescriptor("title", ascending: false)] }
            titles.returnsDistinctResults = true
            #expect(try context.fetchDictionaries(titles) == [["inPrint": .attribute(.bool(true))], ["inPrint": .attribute(.bool(false))]])
            // Of groups: the counts per author, once each.
            var counts = Self.request([.count(as: "n")], groupBy: ["author"])
            counts.returnsDistinctResults = true
            #expect(try context.fetchDictionaries(counts) == [["n": Self.integer(1)], ["n": Self.integer(2)]])
        }
    }

    package func columnsOfObjectsAndRelationships(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let ids = try FetchChecks.populate(fixture)
        try fixture.verifyStored { context throws in
            var request = Self.request([.key("author"), .count(as: "n"), .maximum("title", as: "last")], groupBy: ["author"])
            request.sortDescriptors = [FetchSortDescriptor("last")]
            #expect(try context.fetchDictionaries(request) == [
                ["author": .toOne(ids["Émile"]!), "n": Self.integer(1), "last": Self.string("Germinal")],
                ["author": .toOne(ids["Ursula"]!), "n": Self.integer(2), "last": Self.string("The Dispossessed")],
                ["author": .toOne(ids["anne"]!), "n": Self.integer(1), "last": Self.string("file10")],
                ["author": .toOne(nil), "n": Self.integer(1), "last": Self.string("file2")],
                ["author": .toOne(ids["Zed"]!), "n": Self.integer(2), "last": Self.string("saint-etienne")],
            ])
            // Per-object aggregates and the object itself as columns.
            var authors = FetchRequest(entityName: "Author", sortDescriptors: [FetchSortDescriptor("name")])
            authors.expressionsToFetch = [
                .key("name"), .key("books.@count"), .key("books.@sum.price"), .key("books.@max.title"),
                ExpressionDescription(name: "id", expression: .evaluatedObject),
            ]
            #expect(try context.fetchDictionaries(authors) == [
                ["name": Self.string("Ursula"), "books.@count": Self.integer(2), "books.@sum.price": Self.decimal("17.49"), "books.@max.title": Self.string("The Dispossessed"), "id": .toOne(ids["Ursula"]!)],
                ["name": Self.string("Zed"), "books.@count": Self.integer(2), "books.@sum.price": Self.decimal("100"), "books.@max.title": Self.string("saint-etienne"), "id": .toOne(ids["Zed"]!)],
                ["name": Self.string("anne"), "books.@count": Self.integer(1), "books.@sum.price": Self.decimal("0"), "books.@max.title": Self.string("file10"), "id": .toOne(ids["anne"]!)],
                ["name": Self.string("Émile"), "books.@count": Self.integer(1), "books.@sum.price": Self.decimal("12"), "books.@max.title": Self.string("Germinal"), "id": .toOne(ids["Émile"]!)],
            ])
            // A to-many relationship as a column: the members' IDs.
            var tags = FetchRequest(entityName: "Book", predicate: where_("title", .equal, "Germinal"))
            tags.propertiesToFetch = ["tags"]
            let members = try context.fetchDictionaries(tags)
            #expect(members.count == 1)
            guard case .toMany(let tagIDs)? = members.first?["tags"] else {
                Issue.record("no members: \(members)")
                return
            }
            #expect(tagIDs.count == 1)
        }
    }

    /// Arithmetic and functions of the predicate language as columns: of each object's
    /// values, and of the aggregates and keys of groups (`sum:(pages)` is `@sum.pages`).
    package func computedColumns(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        try fixture.verifyStored { context throws in
            var plain = FetchRequest(entityName: "Book", predicate: where_("pages", .lessThan, 200), sortDescriptors: [FetchSortDescriptor("title")])
            plain.expressionsToFetch = [
                .key("title"),
                ExpressionDescription(name: "double", expression: .function(.multiply, [.key("pages"), .constant(2)])),
                ExpressionDescription(name: "tags", expression: .function(.count, [.key("tags")])),
                ExpressionDescription(name: "upper", expression: .function(.uppercase, [.key("author.name")])),
            ]
            #expect(try context.fetchDictionaries(plain) == [
                ["title": Self.string("Lathe of Heaven"), "double": Self.integer(368), "tags": Self.integer(1), "upper": Self.string("URSULA")],
                ["title": Self.string("Saint-Étienne"), "double": Self.integer(198), "tags": Self.integer(2), "upper": Self.string("ZED")],
                ["title": Self.string("file2"), "double": Self.integer(4), "tags": Self.integer(1), "upper": .attribute(nil)],
                ["title": Self.string("saint-etienne"), "double": Self.integer(200), "tags": Self.integer(0), "upper": Self.string("ZED")],
            ])
            var groups = Self.request([
                .key("author.name"),
                ExpressionDescription(name: "total", expression: .function(.sum, [.key("pages")])),
                ExpressionDescription(name: "mean", expression: .function(.divide, [.function(.sum, [.key("pages")]), .key("@count.pages")])),
                ExpressionDescription(name: "label", expression: .function(.lowercase, [.key("author.name")])),
            ], groupBy: ["author.name"])
            groups.havingPredicate = .comparison(Comparison(.key("mean"), .greaterThan, .constant(50)))
            #expect(try context.fetchDictionaries(groups) == [
                ["author.name": Self.string("Ursula"), "total": Self.integer(571), "mean": Self.double(285.5), "label": Self.string("ursula")],
                ["author.name": Self.string("Zed"), "total": Self.integer(199), "mean": Self.double(99.5), "label": Self.string("zed")],
                ["author.name": Self.string("Émile"), "total": Self.integer(592), "mean": Self.double(592), "label": Self.string("émile")],
            ])
            groups.havingPredicate = nil
            groups.expressionsToFetch = [ExpressionDescription(name: "mean", expression: .function(.divide, [.key("@sum.pages"), .key("@count.pages")]))]
            #expect(try context.fetchDictionaries(groups).map { $0["mean"] } == [Self.double(2), Self.double(285.5), Self.double(99.5), .attribute(nil), Self.double(592)])
        }
        let context = fixture.context()
        let bad = Self.request([ExpressionDescription(name: "x", expression: .function(.add, [.key("title"), .key("pages")])), .count()])
        #expect(throws: StrataError(.invalidPredicate, "the column 'x' is neither grouped nor aggregated; add 'title' to propertiesToGroupBy or fetch an aggregate of it such as '@max.title'")) {
            try context.fetchDictionaries(bad)
        }
    }

    package func unsavedChangesTakePart(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        let context = fixture.context()
        let zed = try context.fetch(FetchRequest(entityName: "Author", predicate: where_("name", .equal, "Zed")))[0]
        let book = try context.make("Book", ["title": "New", "pages": 1])
        book.setObject(zed, forKey: "author")
        let request = Self.request([.key("author.name"), .count(as: "n"), .sum("pages", as: "pages")], groupBy: ["author.name"]) {
            $0.predicate = where_("author.name", .equal, "Zed")
        }
        #expect(try context.fetchDictionaries(request) == [["author.name": Self.string("Zed"), "n": Self.integer(3), "pages": Self.integer(200)]])
    }

    package func unknownKeysAreNamedWithTheClosestOne(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        let context = fixture.context()
        let cases: [(FetchRequest, String)] = [
            (Self.request([.key("titel")]), "entity 'Book' has no property 'titel' (in key path 'titel'); did you mean 'title'?"),
            (Self.request([.key("author.nme")]), "entity 'Author' has no property 'nme' (in key path 'author.nme'); did you mean 'name'?"),
            (Self.request([.sum("pags")]), "entity 'Book' has no property 'pags' (in key path 'pags'); did you mean 'pages'?"),
            (Self.request([.count()], groupBy: ["author.contry"]), "entity 'Author' has no property 'contry' (in key path 'author.contry'); did you mean 'country'?"),
            (Self.request([.key("@summ.pages")]), "unknown collection operator '@summ' in '@summ.pages'; use @count, @sum, @avg, @min or @max"),
            (Self.request([.key("title"), .count()]), "the column 'title' is neither grouped nor aggregated; add 'title' to propertiesToGroupBy or fetch an aggregate of it such as '@max.title'"),
            (Self.request([.count(as: "books")]) { $0.havingPredicate = try? FetchPredicate(format: "boks > 1") },
             "the having predicate names 'boks', which is not a column or group key of the fetch ('books'); did you mean 'books'?"),
            (Self.request([.count(as: "books")]) { $0.sortDescriptors = [FetchSortDescriptor("bookz")] },
             "cannot sort grouped results by 'bookz': sort by a column or group key ('books'); did you mean 'books'?"),
            (Self.request([.key("title")]) { $0.havingPredicate = .true }, "a having predicate needs groups: set propertiesToGroupBy or fetch an aggregate such as '@count'"),
            (Self.request([.sum("title")]), "'@sum.title' adds string values; @sum takes numbers"),
            (Self.request([.key("tags.name")]), "'tags.name' gives a collection of values per object; fetch the relationship for its objects, or an aggregate such as 'tags.@max.name'"),
            (Self.request([.count()], groupBy: ["tags"]), "cannot group by 'tags': it is a to-many relationship; group by attributes or to-one relationships"),
            (Self.request([.key("title"), .key("title")]), "two columns of the fetch are named 'title'; give one another name"),
            (Self.request([]), "the fetch has no columns; name at least one, or leave expressionsToFetch nil for every attribute"),
            (Self.request([.key("title")]) { $0.predicate = where_("pagez", .equal, 1) }, "entity 'Book' has no property 'pagez' (in key path 'pagez'); did you mean 'pages'?"),
        ]
        for (request, message) in cases {
            #expect(throws: StrataError(.invalidPredicate, message)) { try context.fetchDictionaries(request) }
        }
    }

    // MARK: - Fetch options

    package func sortingByAggregatesThroughToMany(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        try fixture.verifyStored { context throws in
            func names(_ descriptors: [FetchSortDescriptor]) throws -> [String?] {
                try context.fetch(FetchRequest(entityName: "Author", sortDescriptors: descriptors)).map { $0["name"] as? String }
            }
            #expect(try names([FetchSortDescriptor("books.@count", ascending: false), FetchSortDescriptor("name")]) == ["Ursula", "Zed", "anne", "Émile"])
            #expect(try names([FetchSortDescriptor("books.@sum.price")]) == ["anne", "Émile", "Ursula", "Zed"])
            #expect(try names([FetchSortDescriptor("books.@max.published", ascending: false)]) == ["Zed", "Ursula", "Émile", "anne"])
            #expect(try names([FetchSortDescriptor("books.@min.pages")]) == ["anne", "Zed", "Ursula", "Émile"])
        }
        expectError(.invalidPredicate) {
            _ = try fixture.context().fetch(FetchRequest(entityName: "Author", sortDescriptors: [FetchSortDescriptor("books.title")]))
        }
    }

    package func objectsAsFaultsAndInBatches(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        let context = fixture.context()
        var request = FetchRequest(entityName: "Book", sortDescriptors: [FetchSortDescriptor("title")])
        request.returnsObjectsAsFaults = true
        let faults = try context.fetch(request)
        #expect(faults.count == 7)
        #expect(faults.allSatisfy { $0.isFault })
        #expect(faults.map { $0["title"] as? String } == FetchChecks.all)
        #expect(!faults.contains { $0.isFault })

        let other = fixture.context()
        request.returnsObjectsAsFaults = false
        request.fetchBatchSize = 3
        request.fetchOffset = 1
        let batched = try other.fetch(request)
        #expect(!batched.contains { $0.isFault })
        #expect(batched.map { $0["title"] as? String } == Array(FetchChecks.all.dropFirst()))
    }

    package func prefetchingThroughToMany(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        let context = fixture.context()
        var request = FetchRequest(entityName: "Author", sortDescriptors: [FetchSortDescriptor("name")])
        request.relationshipKeyPathsForPrefetching = ["books.tags"]
        let authors = try context.fetch(request)
        let books = authors.flatMap { $0.objects(forKey: "books") }
        #expect(books.map { $0["title"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == FetchChecks.all.filter { $0 != "file2" })
        let tags = Set(books.flatMap { $0.objects(forKey: "tags") }.map { $0["name"] as? String })
        #expect(tags == ["sf", "classic", "misc"])
        request.relationshipKeyPathsForPrefetching = ["books.tag"]
        expectError(.invalidPredicate) { _ = try context.fetch(request) }
    }
}
