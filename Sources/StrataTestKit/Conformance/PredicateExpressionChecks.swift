import Foundation
import Strata
import Testing

/// Arithmetic, functions, subscripts of ordered to-manys, `@distinctUnionOfObjects` and
/// substitution variables: every store selects the same objects, and the in-memory evaluator
/// (``FetchPredicate/evaluate(with:)-(ManagedObject)``) agrees with each store's answer.
package struct PredicateExpressionChecks {
    package init() {}

    private static func parsed(_ format: String, _ arguments: any PredicateArgument...) -> FetchPredicate {
        do {
            return try FetchPredicate(format: format, argumentArray: arguments)
        } catch {
            Issue.record("\(format): \(error)")
            return .false
        }
    }

    /// Fetches with each predicate, sorted by `key`, and checks the store's answer, its count,
    /// and the evaluator's verdict on every object of the entity.
    private static func check(
        _ cases: [(FetchPredicate, [String])], entity: String, key: String, in context: ManagedObjectContext
    ) throws {
        let everything = try context.fetch(FetchRequest(entityName: entity, sortDescriptors: [FetchSortDescriptor(key)]))
        for (predicate, expected) in cases {
            let request = FetchRequest(entityName: entity, predicate: predicate, sortDescriptors: [FetchSortDescriptor(key)])
            #expect(try context.fetch(request).map { $0[key] as? String } == expected, "\(predicate)")
            #expect(try context.count(for: request) == expected.count, "\(predicate) count")
            var evaluated: [String] = []
            for object in everything where try predicate.evaluate(with: object) { evaluated.append(object[key] as? String ?? "?") }
            #expect(evaluated == expected, "\(predicate) evaluated in memory")
        }
    }

    package func arithmeticAndFunctions(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        let all = FetchChecks.all
        let cases: [(FetchPredicate, [String])] = [
            (Self.parsed("pages * 2 > 700"), ["Germinal", "The Dispossessed"]),
            (Self.parsed("pages / 2 == 50"), ["saint-etienne"]),
            (Self.parsed("pages / 0 == nil"), all),
            (Self.parsed("price * 2 == CAST('19.98', 'NSDecimalNumber')"), ["The Dispossessed"]),
            (Self.parsed("price - 0.5 < 0.1"), ["file2"]),
            (Self.parsed("-pages < -500"), ["Germinal"]),
            (Self.parsed("NOT pages + 1 > 0"), ["file10"]),
            (Self.parsed("modulus:by:(pages, 2) == 1"), ["Saint-Étienne", "The Dispossessed"]),
            (Self.parsed("lowercase:(title) == 'saint-étienne'"), ["Saint-Étienne"]),
            (Self.parsed("uppercase:(title) BEGINSWITH 'FILE'"), ["file10", "file2"]),
            (Self.parsed("length:(title) == 13"), ["Saint-Étienne", "saint-etienne"]),
            (Self.parsed("abs:(rating - 4) < 0.2"), ["Lathe of Heaven"]),
            (Self.parsed("floor:(rating) == 4"), ["Germinal", "Lathe of Heaven", "The Dispossessed"]),
            (Self.parsed("count:(tags) == 2"), ["Saint-Étienne", "The Dispossessed"]),
            (Self.parsed("ANY uppercase:(tags.name) == 'SF'"), ["Lathe of Heaven", "The Dispossessed"]),
            (Self.parsed("published + 86400 > %@", date("2150-01-01T00:00:00.000Z")), ["file2"]),
            (Self.parsed("published < now()"), ["Germinal", "Lathe of Heaven", "Saint-Étienne", "The Dispossessed"]),
            (Self.parsed("author.books[SIZE] == 2"), ["Lathe of Heaven", "Saint-Étienne", "The Dispossessed", "saint-etienne"]),
            (Self.parsed("count:(author.books) == 0"), ["file2"]),
            (Self.parsed("author.books.@count == nil"), ["file2"]),
            (Self.parsed("sum:(author.books.pages) > 500"), ["Germinal", "Lathe of Heaven", "The Dispossessed"]),
            (Self.parsed("median:({pages, 100, 200}) == 100"), ["Saint-Étienne", "file2", "saint-etienne"]),
            // An aggregate function of one value (an attribute, a to-one's attribute, a count):
            // in SQL, through a table of one row, not an aggregate of the outer query.
            (Self.parsed("sum:(pages) > 300"), ["Germinal", "The Dispossessed"]),
            (Self.parsed("average:(rating) > 4.2"), ["Germinal", "The Dispossessed"]),
            (Self.parsed("max:(author.name) == 'Zed'"), ["Saint-Étienne", "saint-etienne"]),
            (Self.parsed("sum:(tags.@count) == 2"), ["Saint-Étienne", "The Dispossessed"]),
            (Self.parsed("average:({pages, rating}) > 200"), ["Germinal"]),
            (Self.parsed("pages > $min AND author.name == $who").withSubstitutionVariables(["min": 100, "who": "Ursula"]),
             ["Lathe of Heaven", "The Dispossessed"]),
        ]
        try fixture.verifyStored { context throws in
            try Self.check(cases, entity: "Book", key: "title", in: context)
        }
    }

    package func distinctValues(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        let authors: [(FetchPredicate, [String])] = [
            (Self.parsed("count:(books.@distinctUnionOfObjects.inPrint) == 2"), ["Ursula", "Zed"]),
            (Self.parsed("ANY books.@distinctUnionOfObjects.inPrint == false"), ["Ursula", "Zed"]),
            (Self.parsed("ALL books.@distinctUnionOfObjects.pages > 150"), ["Ursula", "anne", "Émile"]),
        ]
        let tags: [(FetchPredicate, [String])] = [
            (Self.parsed("count:(books.@distinctUnionOfObjects.author) == 1"), ["misc", "sf"]),
            (Self.parsed("ANY books.@distinctUnionOfObjects.author.name == 'Zed'"), ["classic", "misc"]),
            (Self.parsed("'Ursula' IN books.@distinctUnionOfObjects.author.name"), ["classic", "sf"]),
            (Self.parsed("sum:(books.@distinctUnionOfObjects.inPrint) == 1"), ["classic", "misc", "sf"]),
        ]
        try fixture.verifyStored { context throws in
            try Self.check(authors, entity: "Author", key: "name", in: context)
            try Self.check(tags, entity: "Tag", key: "name", in: context)
        }
    }

    package func subscriptsOfOrderedToManys(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        let mix = try context.make("Playlist", ["name": "mix"])
        let other = try context.make("Playlist", ["name": "other"])
        _ = try context.make("Playlist", ["name": "empty"])
        let album = try context.make("Album", ["title": "album"])
        var tracks: [String: ManagedObject] = [:]
        for title in ["d", "a", "c", "b"] { tracks[title] = try context.make("Track", ["title": title]) }
        mix.setObjects(["d", "a", "c"].map { tracks[$0]! }, forKey: "tracks")
        other.setObjects(["c", "d"].map { tracks[$0]! }, forKey: "tracks")
        album.setObjects(["b", "d", "a"].map { tracks[$0]! }, forKey: "songs")
        try context.save()
        let playlists: [(FetchPredicate, [String])] = [
            (Self.parsed("tracks[FIRST].title == 'c'"), ["other"]),
            (Self.parsed("tracks[LAST].title == 'c'"), ["mix"]),
            (Self.parsed("tracks[1].title == 'a'"), ["mix"]),
            (Self.parsed("tracks[1].title == nil"), ["empty"]),
            (Self.parsed("tracks[SIZE] == 2"), ["other"]),
            (Self.parsed("tracks[FIRST] == nil"), ["empty"]),
            (Self.parsed("tracks[$i].title == 'd'").withSubstitutionVariables(["i": 1]), ["other"]),
            (Self.parsed("tracks[FIRST].album.title == 'album'"), ["mix"]),
        ]
        let songs: [(FetchPredicate, [String])] = [
            (Self.parsed("album.songs[FIRST].title == 'b'"), ["a", "b", "d"]),
            (Self.parsed("album.songs[LAST] == SELF"), ["a"]),
            (Self.parsed("album.songs[SIZE] == 0"), ["c"]),
            (Self.parsed("{title, 'z'}[LAST] == 'z'"), ["a", "b", "c", "d"]),
            (Self.parsed("SUBQUERY(playlists, $p, $p.tracks[FIRST].title == 'd').@count > 0"), ["a", "c", "d"]),
            // The subscript applies to the whole collection before it: all the tracks of the
            // track's playlists (mix has 3, other 2).
            (Self.parsed("playlists.tracks[SIZE] == 5"), ["c", "d"]),
            (Self.parsed("playlists.tracks[SIZE] == 3"), ["a"]),
        ]
        try fixture.verifyStored { context throws in
            try Self.check(playlists, entity: "Playlist", key: "name", in: context)
            try Self.check(songs, entity: "Track", key: "title", in: context)
            // The members of an unordered to-many have no first one: an error, on every store.
            let unordered = FetchRequest(entityName: "Track", predicate: Self.parsed("playlists[FIRST].name == 'mix'"))
            let error = expectError(.invalidPredicate) { _ = try context.fetch(unordered) }
            #expect(error?.message.contains("'Track.playlists' is unordered") == true, "\(String(describing: error))")
        }
    }

    package func anUnboundVariableIsAnErrorNamingIt(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
        try fixture.verifyStored { context throws in
            let request = FetchRequest(entityName: "Book", predicate: Self.parsed("pages > $minimum"))
            let error = expectError(.invalidPredicate) { _ = try context.fetch(request) }
            #expect(error?.message.contains("$minimum") == true, "\(String(describing: error))")
        }
    }
}
