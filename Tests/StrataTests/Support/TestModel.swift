import Foundation
import Strata
import Testing

// Swift Testing has a `SourceLocation` too; in this module the name means Strata's.
typealias SourceLocation = Strata.SourceLocation


/// The model of the object-graph tests: people with books, pets and friends; books with
/// ordered tags; settings with a transformable value; an abstract parent.
enum TestModel {
    static let schema: Schema = {
        do {
            return try Schema(data: Data(json.utf8), file: "test model")
        } catch {
            preconditionFailure("the test model does not load: \(error)")
        }
    }()

    static let json = """
    { "name": "Library", "version": "1", "entities": [
      { "name": "Person",
        "attributes": [
          { "name": "firstName", "type": "string" },
          { "name": "lastName", "type": "string" },
          { "name": "age", "type": "int16", "optional": true, "min": 0 },
          { "name": "nickname", "type": "string", "optional": true },
          { "name": "mood", "type": "string", "optional": true, "transient": true } ],
        "relationships": [
          { "name": "books", "destination": "Book", "inverse": "author", "toMany": true, "deleteRule": "cascade" },
          { "name": "pet", "destination": "Pet", "inverse": "owner", "optional": true, "deleteRule": "cascade" },
          { "name": "friends", "destination": "Person", "inverse": "friends", "toMany": true } ] },
      { "name": "Book",
        "attributes": [
          { "name": "title", "type": "string" },
          { "name": "pages", "type": "int32", "default": 1 },
          { "name": "price", "type": "decimal", "optional": true },
          { "name": "rating", "type": "double", "optional": true } ],
        "relationships": [
          { "name": "author", "destination": "Person", "inverse": "books", "optional": true },
          { "name": "tags", "destination": "Tag", "inverse": "books", "toMany": true, "ordered": true } ] },
      { "name": "Tag",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "books", "destination": "Book", "inverse": "tags", "toMany": true } ] },
      { "name": "Pet",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "owner", "destination": "Person", "inverse": "pet", "optional": true } ] },
      { "name": "Settings",
        "attributes": [
          { "name": "name", "type": "string" },
          { "name": "prefs", "type": "transformable", "transformer": "Prefs", "optional": true } ] },
      { "name": "Shape", "abstract": true,
        "attributes": [ { "name": "name", "type": "string" } ] },
      { "name": "Circle", "parent": "Shape",
        "attributes": [ { "name": "radius", "type": "double", "default": 1 } ] },
      { "name": "Square", "parent": "Shape",
        "attributes": [ { "name": "side", "type": "double", "default": 1 } ] }
    ] }
    """

    /// A coordinator on a new in-memory store, with the subclasses and the `Prefs` transformer.
    static func coordinator(classes: [ManagedObject.Type] = [Person.self, Book.self, Tag.self, Pet.self, Settings.self]) -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(schema: schema, classes: classes)
        coordinator.attributeTransformers.register(CodableAttributeTransformer<Prefs>(), name: "Prefs")
        do {
            try coordinator.addStore(.inMemory())
        } catch {
            preconditionFailure("\(error)")
        }
        return coordinator
    }
}

/// The transformable value of `Settings.prefs`.
struct Prefs: Codable, Sendable, Hashable {
    var theme: String
    var fontSize: Int
    var flags: [String: Bool]
}

final class Person: ManagedObject {
    override class var entityName: String { "Person" }
    @Attribute("firstName") var firstName: String
    @Attribute("lastName") var lastName: String
    @Attribute("age") var age: Int16?
    @Attribute("nickname") var nickname: String?
    @Attribute("mood") var mood: String?
    @Relationship("pet") var pet: Pet?
    @ToMany("books") var books: Set<Book>
    @ToMany("friends") var friends: Set<Person>

    var fullName: String { "\(firstName) \(lastName)" }

    /// Counts the hooks the context calls.
    var inserts = 0, fetches = 0, saves = 0

    override func awakeFromInsert() {
        inserts += 1
        nickname = "new"
    }

    override func awakeFromFetch() { fetches += 1 }
    override func willSave() { saves += 1 }
}

final class Book: ManagedObject {
    override class var entityName: String { "Book" }
    @Attribute("title") var title: String
    @Attribute("pages") var pages: Int32
    @Attribute("price") var price: Decimal?
    @Attribute("rating") var rating: Double?
    @Relationship("author") var author: Person?
    @ToMany("tags") var tags: [Tag]
}

final class Tag: ManagedObject {
    override class var entityName: String { "Tag" }
    @Attribute("name") var name: String
    @ToMany("books") var books: Set<Book>
}

final class Pet: ManagedObject {
    override class var entityName: String { "Pet" }
    @Attribute("name") var name: String
    @Relationship("owner") var owner: Person?
}

final class Settings: ManagedObject {
    override class var entityName: String { "Settings" }
    @Attribute("name") var name: String
    @Attribute("prefs") var prefs: Prefs?
}

extension ManagedObjectContext {
    func person(_ first: String, _ last: String = "Doe") -> Person {
        let person = Person(context: self)
        person.firstName = first
        person.lastName = last
        return person
    }

    @discardableResult
    func book(_ title: String, by author: Person? = nil) -> Book {
        let book = insert(Book.self)
        book.title = title
        book.author = author
        return book
    }
}


/// `key op value`, built in code.
func where_(
    _ key: String, _ op: ComparisonOperator, _ value: PredicateValue,
    _ modifier: ComparisonModifier = .direct, _ options: ComparisonOptions = []
) -> FetchPredicate {
    .comparison(Comparison(.key(key), op, .constant(value), modifier: modifier, options: options))
}
