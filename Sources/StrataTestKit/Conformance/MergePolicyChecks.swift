import Foundation
package import Strata
import Testing

/// Core Data's five merge policies, property by property: two contexts change the same
/// person — different properties, the same property, a to-one, a to-many, a deletion — and the
/// second save resolves the conflict as its policy says; new objects that collide with others
/// under a uniqueness constraint become updates of those (upserts).
package struct MergePolicyChecks {
    package init() {}

    /// People with a unique email, in teams, with skills; `mentor` has no inverse.
    static let model = Models.load(modelJSON)
    package static let modelJSON = """
    { "name": "People", "entities": [
      { "name": "Person",
        "attributes": [
          { "name": "email", "type": "string" },
          { "name": "name", "type": "string", "optional": true },
          { "name": "age", "type": "int32", "optional": true },
          { "name": "nickname", "type": "string", "optional": true },
          { "name": "active", "type": "bool", "default": true } ],
        "relationships": [
          { "name": "team", "destination": "Team", "inverse": "members", "optional": true },
          { "name": "skills", "destination": "Skill", "inverse": "people", "toMany": true },
          { "name": "mentor", "destination": "Person", "optional": true } ],
        "uniquenessConstraints": [ ["email"] ] },
      { "name": "Team",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "members", "destination": "Person", "inverse": "team", "toMany": true } ] },
      { "name": "Skill",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "people", "destination": "Person", "inverse": "skills", "toMany": true } ] }
    ] }
    """

    /// Core Data's five, `.error` first.
    package static let policies: [ManagedObjectContext.MergePolicy] = [
        .error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback,
    ]

    /// A stored Ann (age 40, in team Red, skilled in Swift), teams Red and Blue, skills Swift
    /// and SQL; and two contexts that have both read Ann.
    struct Scene {
        let fixture: StoreFixture
        let ann: ObjectID
        let first: ManagedObjectContext
        let second: ManagedObjectContext
        /// Ann in each context.
        let a: ManagedObject
        let b: ManagedObject

        init(_ kind: StoreKind, _ policy: ManagedObjectContext.MergePolicy) throws {
            fixture = try StoreFixture(kind, MergePolicyChecks.model)
            let setup = fixture.context()
            let red = try setup.make("Team", ["name": "Red"])
            _ = try setup.make("Team", ["name": "Blue"])
            let swift = try setup.make("Skill", ["name": "Swift"])
            _ = try setup.make("Skill", ["name": "SQL"])
            let person = try setup.make("Person", ["email": "ann@example.com", "name": "Ann", "age": 40])
            person.setObject(red, forKey: "team")
            person.addObject(swift, forKey: "skills")
            try setup.save()
            ann = person.objectID
            first = fixture.context()
            second = fixture.context()
            second.mergePolicy = policy
            a = try first.existingObject(with: ann)
            b = try second.existingObject(with: ann)
            #expect(b.attribute("age") == .integer(40))
            #expect(b.sortedNames("skills") == ["Swift"])
        }

        /// The named object of an entity in a context.
        func named(_ name: String, _ entity: String, in context: ManagedObjectContext) throws -> ManagedObject {
            let found = try context.all(entity).filter { $0["name"] as? String == name }
            try #require(found.count == 1, "one \(entity) named \(name)")
            return found[0]
        }

        /// Ann as stored, read by a new context (and again from a new coordinator).
        func stored(_ check: (ManagedObject) throws -> Void) throws {
            try fixture.verifyStored { context throws in
                let people = try context.all("Person", by: "email")
                #expect(people.count == 1)
                try check(try context.existingObject(with: ann))
            }
        }

        /// Saves `second` under its policy; under `.error` expects the conflict on Ann and an
        /// unchanged store instead, and returns false.
        func saveSecond() throws -> Bool {
            guard second.mergePolicy != .error else {
                let before = try fixture.snapshot()
                let error = expectError(.mergeConflict) { try second.save() }
                #expect(error?.failureSet == [Failure(.conflict, ann, nil)])
                #expect(try fixture.snapshot() == before)
                #expect(second.hasChanges)
                return false
            }
            try second.save()
            #expect(!second.hasChanges)
            return true
        }
    }

    /// First: name → Anne. Second: age → 41. Only `.overwrite` writes the stale name back; only
    /// `.rollback` drops the age.
    package func editsOfDifferentProperties(_ kind: StoreKind) throws {
        for policy in Self.policies {
            let scene = try Scene(kind, policy)
            scene.a["name"] = "Anne"
            try scene.first.save()
            scene.b["age"] = 41
            guard try scene.saveSecond() else { continue }
            let expected: (name: String, age: Int64) = switch policy {
            case .overwrite: ("Ann", 41)
            case .rollback: ("Anne", 40)
            default: ("Anne", 41)
            }
            #expect(scene.b.attribute("name") == .string(expected.name), "\(policy)")
            #expect(scene.b.attribute("age") == .integer(expected.age), "\(policy)")
            try scene.stored { ann in
                #expect(ann.attribute("name") == .string(expected.name), "\(policy)")
                #expect(ann.attribute("age") == .integer(expected.age), "\(policy)")
            }
        }
    }

    /// First: age → 50. Second: age → 60 and nickname → Annie. The store's 50 wins under
    /// `.mergeByPropertyStoreTrump` (the nickname, which only the second changed, is saved) and
    /// `.rollback` (the nickname is dropped too); the second's 60 wins under the others.
    package func editsOfTheSameProperty(_ kind: StoreKind) throws {
        for policy in Self.policies {
            let scene = try Scene(kind, policy)
            scene.a["age"] = 50
            try scene.first.save()
            scene.b["age"] = 60
            scene.b["nickname"] = "Annie"
            guard try scene.saveSecond() else { continue }
            let expected: (age: Int64, nickname: AttributeValue?) = switch policy {
            case .mergeByPropertyStoreTrump: (50, .string("Annie"))
            case .rollback: (50, nil)
            default: (60, .string("Annie"))
            }
            #expect(scene.b.attribute("age") == .integer(expected.age), "\(policy)")
            #expect(scene.b.attribute("nickname") == expected.nickname, "\(policy)")
            try scene.stored { ann in
                #expect(ann.attribute("age") == .integer(expected.age), "\(policy)")
                #expect(ann.attribute("nickname") == expected.nickname, "\(policy)")
                #expect(ann.attribute("name") == .string("Ann"), "\(policy)")
            }
        }
    }

    /// A to-one both change: first moves Ann to Blue, second to no team while changing her
    /// age; and a to-one only the first changes. The inverse (the teams' members) agrees with
    /// the result in the saving context and in the store.
    package func aToOneBothChange(_ kind: StoreKind) throws {
        for policy in Self.policies {
            let scene = try Scene(kind, policy)
            scene.a.setObject(try scene.named("Blue", "Team", in: scene.first), forKey: "team")
            try scene.first.save()
            scene.b.setObject(nil, forKey: "team")
            scene.b["age"] = 41
            guard try scene.saveSecond() else { continue }
            let expected: (team: String?, age: Int64) = switch policy {
            case .mergeByPropertyStoreTrump: ("Blue", 41)
            case .rollback: ("Blue", 40)
            default: (nil, 41)
            }
            #expect(scene.b.name("team") == expected.team, "\(policy)")
            let blue = try scene.named("Blue", "Team", in: scene.second)
            let red = try scene.named("Red", "Team", in: scene.second)
            #expect(blue.objects(forKey: "members").map(\.objectID) == (expected.team == "Blue" ? [scene.ann] : []), "\(policy)")
            #expect(red.objects(forKey: "members").isEmpty, "\(policy)")
            try scene.stored { ann in
                #expect(ann.name("team") == expected.team, "\(policy)")
                #expect(ann.attribute("age") == .integer(expected.age), "\(policy)")
            }
            try scene.fixture.verifyStored { context throws in
                let teams = try context.all("Team")
                #expect(teams.map { $0.objects(forKey: "members").count } == [expected.team == "Blue" ? 1 : 0, 0], "\(policy)")
            }
        }
    }

    /// A to-many both change: first adds SQL to Ann's skills, second removes Swift. Under the
    /// by-property policies both changes are kept (SQL only); `.overwrite` writes the second's
    /// whole set (none); `.rollback` keeps the stored set (Swift and SQL).
    package func aToManyBothChange(_ kind: StoreKind) throws {
        for policy in Self.policies {
            let scene = try Scene(kind, policy)
            scene.a.addObject(try scene.named("SQL", "Skill", in: scene.first), forKey: "skills")
            try scene.first.save()
            scene.b.removeObject(try scene.named("Swift", "Skill", in: scene.second), forKey: "skills")
            guard try scene.saveSecond() else { continue }
            let expected: [String] = switch policy {
            case .overwrite: []
            case .rollback: ["SQL", "Swift"]
            default: ["SQL"]
            }
            #expect(scene.b.sortedNames("skills") == expected, "\(policy)")
            try scene.stored { ann in
                #expect(ann.sortedNames("skills") == expected, "\(policy)")
            }
            try scene.fixture.verifyStored { context throws in
                for skill in try context.all("Skill") {
                    let holds = skill.objects(forKey: "people").map(\.objectID) == [scene.ann]
                    #expect(holds == expected.contains(skill["name"] as? String ?? ""), "\(policy): \(skill["name"] ?? "")")
                }
            }
        }
    }

    /// The first context deletes Ann; the second changes her. The deletion wins under
    /// `.mergeByPropertyStoreTrump` and `.rollback` (Ann leaves the second context and the rest
    /// of its changes are saved); the policies where the second's changes win cannot bring her
    /// back and fail with `mergeConflict`.
    package func changedHereDeletedThere(_ kind: StoreKind) throws {
        for policy in Self.policies {
            let scene = try Scene(kind, policy)
            scene.first.delete(scene.a)
            try scene.first.save()
            scene.b["age"] = 41
            let carol = try scene.second.make("Person", ["email": "carol@example.com", "name": "Carol"])
            if policy == .mergeByPropertyStoreTrump || policy == .rollback {
                try scene.second.save()
                #expect(scene.b.managedObjectContext == nil || scene.b.isDeleted, "\(policy)")
                try scene.fixture.verifyStored { context throws in
                    #expect(try context.all("Person", by: "email").map(\.objectID) == [carol.objectID], "\(policy)")
                }
            } else {
                let before = try scene.fixture.snapshot()
                let error = expectError(.mergeConflict) { try scene.second.save() }
                #expect(error?.failureSet == [Failure(.conflict, scene.ann, nil)], "\(policy)")
                #expect(try scene.fixture.snapshot() == before, "\(policy)")
                #expect(carol.objectID.isTemporary, "\(policy)")
            }
        }
    }

    /// The first context changes Ann; the second deletes her. She is deleted under every
    /// policy but `.error` (a conflict): her delete rules have changed other objects already
    /// (she left her team and her skills), and a deletion is never half undone.
    package func deletedHereChangedThere(_ kind: StoreKind) throws {
        for policy in Self.policies {
            let scene = try Scene(kind, policy)
            scene.a["age"] = 50
            try scene.first.save()
            scene.second.delete(scene.b)
            guard try scene.saveSecond() else { continue }
            try scene.fixture.verifyStored { context throws in
                #expect(try context.all("Person", by: "email").isEmpty, "\(policy)")
                // Nullify reached the stored inverses.
                #expect(try scene.named("Red", "Team", in: context).objects(forKey: "members").isEmpty, "\(policy)")
                #expect(try scene.named("Swift", "Skill", in: context).objects(forKey: "people").isEmpty, "\(policy)")
            }
        }
    }

    /// A context that merges other contexts' saves reads Ann, another context saves a change to
    /// her, then the first changes her: the change's merge turns Ann into a fault between the
    /// read and the write, and the write must reach the merged Ann, not an empty one (it made an
    /// object of the written value alone, which the save refused for its missing email).
    package func aWriteRightAfterAMergedSaveKeepsTheObjectsOtherValues(_ kind: StoreKind) throws {
        let scene = try Scene(kind, .error)
        scene.second.automaticallyMergesChangesFromParent = true
        #expect(scene.b.attribute("age") == .integer(40))
        scene.a["name"] = "Anne"
        try scene.first.save()
        // As another process's save arrives: IDs without records, read again from the store.
        scene.fixture.coordinator.mergeRemoteChanges(inserted: [], updated: [scene.ann], deleted: [])
        scene.b["age"] = 41
        #expect(!scene.b.isFault)
        #expect(scene.b.attribute("email") == .string("ann@example.com"))
        #expect(scene.b.attribute("name") == .string("Anne"))
        try scene.second.save()
        try scene.stored { ann in
            #expect(ann.attribute("email") == .string("ann@example.com"))
            #expect(ann.attribute("name") == .string("Anne"))
            #expect(ann.attribute("age") == .integer(41))
        }
    }

    /// A new person with a stored person's email: under `.error` the save fails with
    /// `notUnique`; under the others the stored Ann is updated instead — with the new values
    /// where this context's values win, only filling what she lacks where the store's win —
    /// the new person's skills join hers, a reference to the new person (a one-way `mentor`)
    /// now names her, and no second Ann is stored.
    package func aNewObjectWithAStoredObjectsUniqueValuesUpdatesIt(_ kind: StoreKind) throws {
        for policy in Self.policies {
            let scene = try Scene(kind, policy)
            let context = scene.second
            let duplicate = try context.make("Person", ["email": "ann@example.com", "name": "Ann Smith", "nickname": "Annie"])
            duplicate.addObject(try scene.named("SQL", "Skill", in: context), forKey: "skills")
            let bob = try context.make("Person", ["email": "bob@example.com", "name": "Bob"])
            bob.setObject(duplicate, forKey: "mentor")
            guard policy != .error else {
                let error = expectError(.validationFailed) { try context.save() }
                #expect(error?.failures.map(\.code) == [.notUnique])
                #expect(error?.failures.first?.relatedObjectID == scene.ann)
                continue
            }
            try context.save()
            let name = policy == .mergeByPropertyObjectTrump || policy == .overwrite ? "Ann Smith" : "Ann"
            #expect(duplicate.managedObjectContext == nil || duplicate.isDeleted, "\(policy): the new object left the context")
            #expect(scene.b.attribute("name") == .string(name), "\(policy)")
            #expect(bob.object(forKey: "mentor")?.objectID == scene.ann, "\(policy)")
            try scene.fixture.verifyStored { context throws in
                let people = try context.all("Person", by: "email")
                #expect(people.map { $0["email"] as? String } == ["ann@example.com", "bob@example.com"], "\(policy)")
                let ann = try context.existingObject(with: scene.ann)
                #expect(ann.attribute("name") == .string(name), "\(policy)")
                #expect(ann.attribute("nickname") == .string("Annie"), "\(policy)")
                #expect(ann.attribute("age") == .integer(40), "\(policy): an attribute the new object left unset is kept")
                #expect(ann.name("team") == "Red", "\(policy)")
                #expect(ann.sortedNames("skills") == ["SQL", "Swift"], "\(policy)")
                #expect(people[1].object(forKey: "mentor")?.objectID == scene.ann, "\(policy)")
            }
        }
    }

    /// Two new people with one email in one context: the later one is merged into the earlier
    /// one, and one person is saved.
    package func twoNewObjectsWithTheSameUniqueValuesBecomeOne(_ kind: StoreKind) throws {
        for policy in Self.policies where policy != .error {
            let fixture = try StoreFixture(kind, Self.model)
            let context = fixture.context()
            context.mergePolicy = policy
            let team = try context.make("Team", ["name": "Green"])
            let first = try context.make("Person", ["email": "dan@example.com", "name": "Dan", "age": 30])
            let second = try context.make("Person", ["email": "dan@example.com", "name": "Daniel"])
            second.setObject(team, forKey: "team")
            try context.save()
            let name = policy == .mergeByPropertyObjectTrump || policy == .overwrite ? "Daniel" : "Dan"
            try fixture.verifyStored { context throws in
                let people = try context.all("Person", by: "email")
                try #require(people.count == 1, "\(policy)")
                #expect(people[0].objectID == first.objectID, "\(policy)")
                #expect(people[0].attribute("name") == .string(name), "\(policy)")
                #expect(people[0].attribute("age") == .integer(30), "\(policy)")
                #expect(people[0].name("team") == "Green", "\(policy)")
            }
        }
    }

    /// A playlist (ordered tracks A, B, C) read by two contexts. First: renamed. Second: C
    /// moved to the front. The store did not change the order, so every policy but `.rollback`
    /// saves the second context's order; `.overwrite` also its stale name.
    package func aReorderingSurvivesAConflictOnAnotherProperty(_ kind: StoreKind) throws {
        for policy in Self.policies where policy != .error {
            let fixture = try StoreFixture(kind, Models.graph)
            let setup = fixture.context()
            let playlist = try setup.make("Playlist", ["name": "Mix"])
            for title in ["A", "B", "C"] {
                playlist.addObject(try setup.make("Track", ["title": title]), forKey: "tracks")
            }
            try setup.save()
            let first = fixture.context()
            let second = fixture.context()
            second.mergePolicy = policy
            let a = try first.existingObject(with: playlist.objectID)
            let b = try second.existingObject(with: playlist.objectID)
            a["name"] = "Mix 2"
            try first.save()
            let c = try #require(b.objects(forKey: "tracks").last)
            b.removeObject(c, forKey: "tracks")
            b.insertObject(c, at: 0, forKey: "tracks")
            #expect(b.names("tracks", by: "title") == ["C", "A", "B"])
            try second.save()
            let expected: (name: String, order: [String]) = switch policy {
            case .overwrite: ("Mix", ["C", "A", "B"])
            case .rollback: ("Mix 2", ["A", "B", "C"])
            default: ("Mix 2", ["C", "A", "B"])
            }
            #expect(b.names("tracks", by: "title") == expected.order, "\(policy)")
            try fixture.verifyStored { context throws in
                let stored = try context.existingObject(with: playlist.objectID)
                #expect(stored["name"] as? String == expected.name, "\(policy)")
                #expect(stored.names("tracks", by: "title") == expected.order, "\(policy)")
            }
        }
    }
}
