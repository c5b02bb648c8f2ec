import Foundation
import Strata
import Testing

/// Objects: the dynamic API, typed subclasses with property wrappers, transformable values,
/// lifecycle hooks, identity.
@Suite struct ManagedObjectTests {
    @Test func typedSubclassesReadAndWriteThroughTheirWrappers() throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let ann = Person(context: context)
        ann.firstName = "Ann"
        ann.lastName = "Lee"
        ann.age = 42
        #expect(ann.fullName == "Ann Lee")
        #expect(ann.age == 42)
        #expect(ann.mood == nil)
        #expect(ann["age"] as? Int64 == 42)
        #expect(ann.attributeValue("age") == .integer(42))
        let book = context.book("Dune", by: ann)
        book.pages = 412
        book.price = Decimal(string: "9.99")
        book.rating = 4.5
        #expect(book.pages == 412)
        #expect(book.author === ann)
        #expect(ann.books == [book])
        let pet = Pet(context: context)
        pet.name = "Rex"
        ann.pet = pet
        #expect(pet.owner === ann)
        try context.save()

        let other = ManagedObjectContext(coordinator: coordinator)
        let people = try other.fetch(Person.self, where: where_("lastName", .equal, "Lee"), sortedBy: [FetchSortDescriptor("firstName")])
        #expect(people.count == 1)
        let stored = try #require(people.first)
        #expect(stored.fullName == "Ann Lee")
        #expect(stored.age == 42)
        #expect(stored.nickname == "new")
        #expect(stored.pet?.name == "Rex")
        #expect(stored.books.map(\.title) == ["Dune"])
        #expect(stored.books.first?.pages == 412)
        #expect(stored.books.first?.price == Decimal(string: "9.99"))
        #expect(stored.books.first?.rating == 4.5)
        #expect(stored.books.first?.author === stored)

        stored.age = nil
        stored.nickname = nil
        #expect(stored.age == nil)
        #expect(stored["nickname"] == nil)
        #expect(stored.changedValues() == ["age": .attribute(nil), "nickname": .attribute(nil)])
    }

    @Test func toManyWrappersSetBothSides() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let ann = context.person("Ann"), bob = context.person("Bob"), cat = context.person("Cat")
        ann.friends = [bob, cat]
        #expect(bob.friends == [ann])
        #expect(cat.friends == [ann])
        ann.friends = [cat]
        #expect(bob.friends == [])
        #expect(ann.friends == [cat])

        let book = context.book("Dune")
        let tags = ["sf", "classic", "desert"].map { name in
            let tag = context.insert(Tag.self)
            tag.name = name
            return tag
        }
        book.tags = tags
        #expect(book.tags.map(\.name) == ["sf", "classic", "desert"])
        book.tags = [tags[2], tags[0]]
        #expect(book.tags.map(\.name) == ["desert", "sf"])
        #expect(tags[1].books == [])
        #expect(tags[2].books == [book])
        ann.books = [book]
        #expect(book.author === ann)
        ann.books = []
        #expect(book.author == nil)
    }

    @Test func dynamicAccessUsesTheModelsTypes() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator(classes: []))
        let person = try context.insertObject(entityName: "Person")
        #expect(type(of: person) == ManagedObject.self)
        person["firstName"] = "Ann"
        person["age"] = 7                 // an Int is stored as the int16's integer
        let book = try context.insertObject(entityName: "Book")
        book["title"] = "Dune"
        book["rating"] = 4                // an integer set on a double is a double
        book["price"] = 3                 // ... and on a decimal a decimal
        book["author"] = person
        #expect(person["firstName"] as? String == "Ann")
        #expect(person["age"] as? Int64 == 7)
        #expect(person.value(forKey: "age", as: Int16.self) == 7)
        #expect(person.value(forKey: "age", as: Int.self) == 7)
        #expect(book["pages"] as? Int64 == 1)
        #expect(book["rating"] as? Double == 4.0)
        #expect(book.propertyValue(forKey: "rating") == .attribute(.double(4)))
        #expect(book.propertyValue(forKey: "price") == .attribute(.decimal(3)))
        #expect(book["author"] as? ManagedObject === person)
        #expect(person["books"] as? Set<ManagedObject> == [book])
        let tag = try context.insertObject(entityName: "Tag")
        tag["name"] = "sf"
        book["tags"] = [tag]
        #expect(book["tags"] as? [ManagedObject] == [tag])     // ordered: an array
        #expect(tag["books"] as? Set<ManagedObject> == [book]) // unordered: a set
        #expect(book.propertyValue(forKey: "tags") == .toMany([tag.objectID]))
        #expect(book.propertyValue(forKey: "author") == .toOne(person.objectID))
        book.setValue(Int32(350), forKey: "pages")
        #expect(book.value(forKey: "pages", as: Int32.self) == 350)
        book.setValue(String?.none, forKey: "title")
        #expect(book["title"] == nil)
    }

    @Test func transformableValuesUseTheRegisteredTransformer() throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let settings = Settings(context: context)
        settings.name = "main"
        let prefs = Prefs(theme: "dark \"night\"", fontSize: 14, flags: ["b": false, "a": true])
        settings.prefs = prefs
        #expect(settings.prefs == prefs)
        #expect(settings["prefs"] as? Prefs == prefs)
        // Stored as the transformer's data: JSON with sorted keys.
        let data = try CodableAttributeTransformer<Prefs>().transform(prefs)
        #expect(String(decoding: data, as: UTF8.self) == #"{"flags":{"a":true,"b":false},"fontSize":14,"theme":"dark \"night\""}"#)
        #expect(settings.propertyValue(forKey: "prefs") == .attribute(.binary(data)))
        try context.save()

        let other = ManagedObjectContext(coordinator: coordinator)
        let stored = try #require(try other.fetch(Settings.self).first)
        #expect(stored.prefs == prefs)
        stored.prefs = nil
        #expect(stored.prefs == nil)
        #expect(other.updatedObjects == [stored])
        #expect(throws: StrataError.self) { try CodableAttributeTransformer<Prefs>().transform("not prefs") }
        #expect(throws: DecodingError.self) { try CodableAttributeTransformer<Prefs>().reverseTransform(Data("{}".utf8)) }
    }

    @Test func lifecycleHooks() throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let ann = context.person("Ann")
        #expect(ann.inserts == 1)
        #expect(ann.nickname == "new")      // set by awakeFromInsert
        #expect(ann.fetches == 0)
        try context.save()
        #expect(ann.saves == 1)
        try context.save()                  // nothing changed: no willSave
        #expect(ann.saves == 1)

        let other = ManagedObjectContext(coordinator: coordinator)
        let fault = try #require(other.object(with: ann.objectID) as? Person)
        #expect(fault.fetches == 0)
        #expect(fault.firstName == "Ann")
        #expect(fault.fetches == 1)
        #expect(fault.inserts == 0)
        #expect(fault.nickname == "new")
    }

    @Test func identityAndDescription() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let a = context.person("Ann"), b = context.person("Ann")
        #expect(a != b)
        #expect(a == a)
        #expect(Set([a, b, a]).count == 2)
        #expect(a.description == "<Person \(a.objectID) inserted>")
        try context.save()
        #expect(a.description == "<Person Person/p\(a.objectID.primaryKey!)>")
        a.firstName = "Anne"
        #expect(a.description == "<Person Person/p\(a.objectID.primaryKey!) updated>")
        context.delete(a)
        #expect(a.description == "<Person Person/p\(a.objectID.primaryKey!) deleted>")
        let other = ManagedObjectContext(coordinator: context.coordinator)
        let fault = other.object(with: b.objectID)
        #expect(fault.description == "<Person \(b.objectID) fault>")
        #expect(other.registeredObjects == [fault])
        #expect(a.entity.name == "Person")
    }
}

extension ManagedObject {
    /// The stored form of an attribute.
    func attributeValue(_ key: String) -> AttributeValue? {
        if case .attribute(let value) = propertyValue(forKey: key) { return value }
        return nil
    }
}

extension ManagedObjectTests {
    /// A fetch moves each record into its object, so the object's values and its committed
    /// snapshot start as one buffer, which the store's and the row cache's records may share
    /// too: a change to the object shows in none of them, nor in another context's object of
    /// the same row, and a rollback brings the stored values back.
    @Test func aChangeToAFetchedObjectStaysInThatObject() throws {
        let coordinator = TestModel.coordinator()
        let writer = ManagedObjectContext(coordinator: coordinator)
        writer.person("Ann", "Lee").age = 30
        try writer.save()

        let context = ManagedObjectContext(coordinator: coordinator)
        let ann = try #require(try context.fetch(FetchRequest(entityName: "Person")).first)
        let other = ManagedObjectContext(coordinator: coordinator)
        let otherAnn = try #require(try other.fetch(FetchRequest(entityName: "Person")).first)
        ann["firstName"] = "Anne"
        ann["age"] = nil
        #expect(ann["firstName"] as? String == "Anne")
        #expect(ann.committedValues(forKeys: ["firstName", "age"]) == ["firstName": .attribute(.string("Ann")), "age": .attribute(.integer(30))])
        #expect(otherAnn["firstName"] as? String == "Ann")
        #expect(otherAnn["age"] as? Int64 == 30)
        let third = try #require(try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Person")).first)
        #expect(third["firstName"] as? String == "Ann")
        let records = try coordinator.stores[0].fetch(StoreFetchRequest(entityNames: ["Person"]))
        #expect(records.map { $0.attributes["firstName"] } == [.string("Ann")])
        #expect(records.map { $0.attributes["age"] } == [.integer(30)])

        otherAnn["lastName"] = "Other"
        #expect(ann["lastName"] as? String == "Lee")
        context.rollback()
        #expect(ann["firstName"] as? String == "Ann")
        #expect(ann["age"] as? Int64 == 30)
        #expect(otherAnn["lastName"] as? String == "Other")
        #expect(ann.changedValues().isEmpty)
    }
}
