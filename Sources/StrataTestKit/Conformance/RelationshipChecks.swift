import Foundation
import Strata
import Testing

/// Every kind of relationship, with both sides checked in the saving context, after a fetch in
/// a fresh context, and after re-opening.
package struct RelationshipChecks {
    package init() {}

    package func oneToOne(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        let ann = try context.make("Person", ["name": "ann"])
        let bob = try context.make("Person", ["name": "bob"])
        let passport = try context.make("Passport", ["number": "P1"])
        ann.setObject(passport, forKey: "passport")
        #expect(passport.object(forKey: "holder") === ann)
        try context.save()
        try fixture.verifyStored { context throws in
            let people = try context.all("Person")
            #expect(people.map { $0.object(forKey: "passport")?["number"] as? String } == ["P1", nil])
            #expect(try context.existingObject(with: passport.objectID).object(forKey: "holder")?.objectID == ann.objectID)
        }

        // Giving the passport to bob takes it from ann, on both sides.
        passport.setObject(bob, forKey: "holder")
        #expect(ann.object(forKey: "passport") == nil)
        #expect(bob.object(forKey: "passport") === passport)
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.existingObject(with: ann.objectID).object(forKey: "passport") == nil)
            #expect(try context.existingObject(with: bob.objectID).object(forKey: "passport")?.objectID == passport.objectID)
            #expect(try context.existingObject(with: passport.objectID).object(forKey: "holder")?.objectID == bob.objectID)
        }

        bob.setObject(nil, forKey: "passport")
        #expect(passport.object(forKey: "holder") == nil)
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.existingObject(with: passport.objectID).object(forKey: "holder") == nil)
            #expect(try context.existingObject(with: bob.objectID).object(forKey: "passport") == nil)
        }
    }

    package func oneToMany(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        let sales = try context.make("Department", ["name": "sales"])
        let ops = try context.make("Department", ["name": "ops"])
        let ann = try context.make("Person", ["name": "ann"])
        let bob = try context.make("Person", ["name": "bob"])
        let cat = try context.make("Person", ["name": "cat"])
        sales.addObject(ann, forKey: "staff")
        bob.setObject(sales, forKey: "department")
        cat.setObject(ops, forKey: "department")
        #expect(ann.name("department") == "sales")
        #expect(sales.sortedNames("staff") == ["ann", "bob"])
        try context.save()
        try fixture.verifyStored { context throws in
            let departments = try context.all("Department")
            #expect(departments.map { $0.sortedNames("staff") } == [["cat"], ["ann", "bob"]])
            #expect(try context.all("Person").map { $0.name("department") } == ["sales", "sales", "ops"])
        }

        // Moving bob to ops removes him from sales; removing ann from sales clears her side.
        bob.setObject(ops, forKey: "department")
        sales.removeObject(ann, forKey: "staff")
        #expect(sales.sortedNames("staff") == [])
        #expect(ann.object(forKey: "department") == nil)
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Department").map { $0.sortedNames("staff") } == [["bob", "cat"], []])
            #expect(try context.all("Person").map { $0.name("department") } == [nil, "ops", "ops"])
        }
    }

    package func manyToMany(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        let chess = try context.make("Club", ["name": "chess"])
        let rowing = try context.make("Club", ["name": "rowing"])
        let ann = try context.make("Person", ["name": "ann"])
        let bob = try context.make("Person", ["name": "bob"])
        ann.setObjects([chess, rowing], forKey: "clubs")
        chess.addObject(bob, forKey: "members")
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Club").map { $0.sortedNames("members") } == [["ann", "bob"], ["ann"]])
            #expect(try context.all("Person").map { $0.sortedNames("clubs") } == [["chess", "rowing"], ["chess"]])
        }

        ann.removeObject(chess, forKey: "clubs")
        rowing.addObject(bob, forKey: "members")
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Club").map { $0.sortedNames("members") } == [["bob"], ["ann", "bob"]])
            #expect(try context.all("Person").map { $0.sortedNames("clubs") } == [["rowing"], ["chess", "rowing"]])
        }
    }

    package func orderedToManyKeepsAndReordersItsMembers(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        let mix = try context.make("Playlist", ["name": "mix"])
        let other = try context.make("Playlist", ["name": "other"])
        let album = try context.make("Album", ["title": "album"])
        var tracks: [String: ManagedObject] = [:]
        for title in ["d", "a", "c", "b"] { tracks[title] = try context.make("Track", ["title": title]) }
        mix.setObjects(["d", "a", "c"].map { tracks[$0]! }, forKey: "tracks")
        other.setObjects(["c", "d"].map { tracks[$0]! }, forKey: "tracks")
        album.setObjects(["b", "d", "a"].map { tracks[$0]! }, forKey: "songs")
        try context.save()
        try fixture.verifyStored { context throws in
            let lists = try context.all("Playlist")
            #expect(lists.map { $0.names("tracks", by: "title") } == [["d", "a", "c"], ["c", "d"]])
            #expect(try context.existingObject(with: album.objectID).names("songs", by: "title") == ["b", "d", "a"])
            #expect(try context.existingObject(with: tracks["d"]!.objectID).object(forKey: "album")?.objectID == album.objectID)
            #expect(try context.existingObject(with: tracks["c"]!.objectID).sortedNames("playlists") == ["mix", "other"])
        }

        // Reorder, insert at a position, remove; then in a fresh context reorder again.
        mix.setObjects(["c", "d", "a"].map { tracks[$0]! }, forKey: "tracks")
        mix.insertObject(tracks["b"]!, at: 1, forKey: "tracks")
        #expect(mix.names("tracks", by: "title") == ["c", "b", "d", "a"])
        album.removeObject(tracks["d"]!, forKey: "songs")
        album.insertObject(tracks["c"]!, at: 0, forKey: "songs")
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.existingObject(with: mix.objectID).names("tracks", by: "title") == ["c", "b", "d", "a"])
            #expect(try context.existingObject(with: album.objectID).names("songs", by: "title") == ["c", "b", "a"])
            #expect(try context.existingObject(with: tracks["d"]!.objectID).object(forKey: "album") == nil)
            #expect(try context.existingObject(with: tracks["b"]!.objectID).sortedNames("playlists") == ["mix"])
        }
        let second = fixture.context()
        let stored = try second.existingObject(with: mix.objectID)
        stored.setObjects(["a", "b", "c", "d"].map { second.object(with: tracks[$0]!.objectID) }, forKey: "tracks")
        try second.save()
        try fixture.verifyStored { context throws in
            #expect(try context.existingObject(with: mix.objectID).names("tracks", by: "title") == ["a", "b", "c", "d"])
            #expect(try context.existingObject(with: other.objectID).names("tracks", by: "title") == ["c", "d"])
        }
    }

    package func selfInverseToMany(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        let ann = try context.make("Person", ["name": "ann"])
        let bob = try context.make("Person", ["name": "bob"])
        let cat = try context.make("Person", ["name": "cat"])
        ann.addObject(bob, forKey: "friends")
        cat.addObject(ann, forKey: "friends")
        #expect(bob.sortedNames("friends") == ["ann"])
        #expect(ann.sortedNames("friends") == ["bob", "cat"])
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Person").map { $0.sortedNames("friends") } == [["bob", "cat"], ["ann"], ["ann"]])
        }

        bob.removeObject(ann, forKey: "friends")
        bob.addObject(cat, forKey: "friends")
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Person").map { $0.sortedNames("friends") } == [["cat"], ["cat"], ["ann", "bob"]])
        }
    }

    package func toOneWithoutInverse(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        let ann = try context.make("Person", ["name": "ann"])
        let bob = try context.make("Person", ["name": "bob"])
        let cat = try context.make("Person", ["name": "cat"])
        bob.setObject(ann, forKey: "mentor")
        cat.setObject(ann, forKey: "mentor")
        ann.setObject(ann, forKey: "mentor")
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Person").map { $0.name("mentor") } == ["ann", "ann", "ann"])
            let mentored = FetchPredicate.comparison(Comparison(.key("mentor.name"), .equal, .constant("ann")))
            #expect(try context.count(for: FetchRequest(entityName: "Person", predicate: mentored)) == 3)
        }
        cat.setObject(bob, forKey: "mentor")
        ann.setObject(nil, forKey: "mentor")
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Person").map { $0.name("mentor") } == [nil, "ann", "bob"])
        }
    }

    /// An object read from a store reports its saved members as its committed values, also
    /// when the store leaves them to load on first use (SQLite does).
    package func committedValuesOfAReadObjectHoldItsSavedMembers(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let (book, tag) = try fixture.savedTaggedBook()
        let context = fixture.context()
        let read = try context.existingObject(with: book)
        #expect(read.committedValues(forKeys: ["tags"]) == ["tags": .toMany([tag])])
        #expect(read.committedValues()["tags"] == .toMany([tag]))
        #expect(!read.hasChanges)
    }
}
