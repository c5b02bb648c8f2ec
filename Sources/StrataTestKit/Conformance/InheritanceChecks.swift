import Foundation
import Strata
import Testing

/// Fetching through an inheritance hierarchy, and uniqueness constraints that span it.
package struct InheritanceChecks {
    package init() {}

    /// A user, documents, a scanned document and photos.
    static func populate(_ context: ManagedObjectContext) throws -> [String: ManagedObject] {
        var objects: [String: ManagedObject] = [:]
        let user = try context.make("User", ["email": "u@x", "handle": "u"])
        objects["user"] = user
        for (key, entity, title) in [("doc", "Document", "b-doc"), ("scan", "ScannedDocument", "d-scan"),
                                     ("photo", "Photo", "a-photo"), ("photo2", "Photo", "c-photo")] {
            let object = try context.make(entity, ["title": title])
            object.setObject(user, forKey: "owner")
            objects[key] = object
        }
        return objects
    }

    package func fetchesThroughTheHierarchy(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.inheritance)
        let context = fixture.context()
        let objects = try Self.populate(context)
        expectError(.invalidData) { _ = try context.insertObject(entityName: "Asset") }
        try context.save()
        try fixture.verifyStored { context throws in
            func titles(_ entity: String, subentities: Bool = true) throws -> [String] {
                var request = FetchRequest(entityName: entity, sortDescriptors: [FetchSortDescriptor("title")])
                request.includesSubentities = subentities
                return try context.fetch(request).map { $0["title"] as! String }
            }
            // The abstract parent returns its concrete descendants, each as its own entity.
            let assets = try context.fetch(FetchRequest(entityName: "Asset", sortDescriptors: [FetchSortDescriptor("title")]))
            #expect(assets.map(\.entity.name) == ["Photo", "Document", "Photo", "ScannedDocument"])
            #expect(assets.map(\.objectID) == ["photo", "doc", "photo2", "scan"].map { objects[$0]!.objectID })
            #expect(assets[3].attribute("dpi") == .integer(300))
            #expect(assets[3].attribute("pages") == .integer(1))
            #expect(try titles("Document") == ["b-doc", "d-scan"])
            #expect(try titles("Document", subentities: false) == ["b-doc"])
            #expect(try titles("ScannedDocument") == ["d-scan"])
            #expect(try titles("Asset", subentities: false) == [])
            var count = FetchRequest(entityName: "Asset")
            #expect(try context.count(for: count) == 4)
            count.includesSubentities = false
            #expect(try context.count(for: count) == 0)
            // A relationship to the abstract parent holds every kind of asset.
            let user = try context.existingObject(with: objects["user"]!.objectID)
            #expect(user.objects(forKey: "assets").map { $0["title"] as! String }.sorted() == ["a-photo", "b-doc", "c-photo", "d-scan"])
            let pages = FetchPredicate.comparison(Comparison(.key("pages"), .greaterThanOrEqual, .constant(1)))
            #expect(try context.fetch(FetchRequest(entityName: "Document", predicate: pages)).count == 2)
        }
    }

    package func primaryKeysAreUniqueAcrossTheHierarchy(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.inheritance)
        let context = fixture.context()
        let objects = try Self.populate(context)
        try context.save()
        let keys = ["doc", "scan", "photo", "photo2"].map { objects[$0]!.objectID.primaryKey! }
        #expect(Set(keys).count == 4)
        try fixture.verifyStored { context throws in
            let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Asset"))
            #expect(Set(ids) == Set(["doc", "scan", "photo", "photo2"].map { objects[$0]!.objectID }))
        }
    }

    package func uniquenessConstraintsSpanTheHierarchy(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.inheritance)
        let context = fixture.context()
        let objects = try Self.populate(context)
        let admin = try context.make("Admin", ["email": "a@x", "handle": "same"])
        let member = try context.make("Member", ["email": "m@x", "handle": "same"])
        try context.save()
        let user = objects["user"]!

        // User.email covers Admin and Member.
        let sameEmail = try context.make("Member", ["email": "a@x", "handle": "m2"])
        // Member.handle, an inherited attribute, is unique among Members only.
        let sameHandle = try context.make("Member", ["email": "m3@x", "handle": "same"])
        let adminHandle = try context.make("Admin", ["email": "a2@x", "handle": "same"])
        // Asset's (owner, title) covers documents and photos alike.
        let sameOwnerTitle = try context.make("Photo", ["title": "b-doc"])
        sameOwnerTitle.setObject(user, forKey: "owner")
        let otherOwner = try context.make("Photo", ["title": "b-doc"])
        otherOwner.setObject(admin, forKey: "owner")
        let noOwner1 = try context.make("Document", ["title": "b-doc"])
        let noOwner2 = try context.make("ScannedDocument", ["title": "b-doc"])
        try ValidationChecks.expectRefused(context, fixture, [
            Failure(.notUnique, sameEmail.objectID, "email"),
            Failure(.notUnique, sameHandle.objectID, "handle"),
            Failure(.notUnique, sameOwnerTitle.objectID, "owner,title"),
        ])

        context.delete(sameEmail)
        sameHandle["handle"] = "other"
        sameOwnerTitle.setObject(member, forKey: "owner")
        try context.save()
        try fixture.verifyStored { context throws in
            let users = try context.fetch(FetchRequest(entityName: "User", sortDescriptors: [FetchSortDescriptor("email")]))
            #expect(users.map(\.objectID) == [adminHandle, admin, sameHandle, member, user].map(\.objectID))
            let docs = try context.fetch(FetchRequest(entityName: "Asset", predicate: .comparison(Comparison(.key("title"), .equal, .constant("b-doc")))))
            #expect(Set(docs.map(\.objectID)) == Set([objects["doc"]!, sameOwnerTitle, otherOwner, noOwner1, noOwner2].map(\.objectID)))
            #expect(try context.existingObject(with: sameOwnerTitle.objectID).object(forKey: "owner")?.objectID == member.objectID)
        }
    }
}
