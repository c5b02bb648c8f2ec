import Foundation
import Strata
import Testing

/// ``StoreChecker/problems(in:schema:)`` on records built by hand: one planted problem per
/// test, and the exact problem it gives.
@Suite("StoreChecker")
struct StoreCheckerTests {
    static let schema: Schema = {
        do {
            return try Schema(data: Data("""
                { "name": "Shelves", "entities": [
                  { "name": "Author",
                    "attributes": [ { "name": "name", "type": "string" }, { "name": "age", "type": "int16", "optional": true } ],
                    "relationships": [ { "name": "books", "destination": "Book", "inverse": "author", "toMany": true, "maxCount": 2 } ],
                    "uniquenessConstraints": [["name"]] },
                  { "name": "Book",
                    "attributes": [ { "name": "title", "type": "string" } ],
                    "relationships": [
                      { "name": "author", "destination": "Author", "inverse": "books" },
                      { "name": "shelves", "destination": "Shelf", "inverse": "books", "toMany": true, "minCount": 1 } ] },
                  { "name": "Shelf",
                    "attributes": [ { "name": "label", "type": "string", "optional": true } ],
                    "relationships": [ { "name": "books", "destination": "Book", "inverse": "shelves", "toMany": true } ] }
                ] }
                """.utf8), file: "shelves")
        } catch {
            preconditionFailure("\(error)")
        }
    }()

    static func id(_ entity: String, _ key: Int64) -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: "S", primaryKey: key)
    }

    /// Ada wrote book 1, which stands on shelf 1: sound.
    static var sound: StoreCheckInput {
        let author = StoreRecord(objectID: id("Author", 1), attributes: ["name": .string("Ada")], toMany: ["books": [id("Book", 1)]])
        let book = StoreRecord(
            objectID: id("Book", 1), attributes: ["title": .string("Notes")], toOne: ["author": id("Author", 1)],
            toMany: ["shelves": [id("Shelf", 1)]])
        let shelf = StoreRecord(objectID: id("Shelf", 1), toMany: ["books": [id("Book", 1)]])
        return StoreCheckInput(
            records: ["Author": [author.objectID: author], "Book": [book.objectID: book], "Shelf": [shelf.objectID: shelf]],
            keyCounters: ["Author": 1, "Book": 1, "Shelf": 1])
    }

    /// The problems of ``sound`` after `change`, in report order.
    static func problems(after change: (inout StoreCheckInput) -> Void) -> [String] {
        var input = sound
        change(&input)
        return StoreChecker.problems(in: input, schema: schema).sorted {
            ($0.place ?? "", $0.message) < ($1.place ?? "", $1.message)
        }.map { "\($0.code.rawValue) \($0)" }
    }

    @Test func soundRecordsHaveNoProblems() {
        #expect(Self.problems { _ in } == [])
    }

    @Test func aDanglingToOne() {
        #expect(Self.problems { $0.records["Book"]![Self.id("Book", 1)]!.toOne["author"] = Self.id("Author", 7) } == [
            "inverseMismatch Author/p1.books: lists Book/p1, but Book/p1.author does not lead back to Author/p1",
            "danglingReference Book/p1.author: refers to Author/p7, which does not exist",
        ])
    }

    @Test func aMemberOfTheWrongEntity() {
        #expect(Self.problems { $0.records["Shelf"]![Self.id("Shelf", 1)]!.toMany["books"] = [Self.id("Book", 1), Self.id("Author", 1)] } == [
            "wrongEntity Shelf/p1.books: refers to Author/p1, which is not a Book",
        ])
    }

    @Test func aMemberListedTwice() {
        #expect(Self.problems { $0.records["Shelf"]![Self.id("Shelf", 1)]!.toMany["books"] = [Self.id("Book", 1), Self.id("Book", 1)] } == [
            "duplicateMember Shelf/p1.books: lists Book/p1 more than once",
        ])
    }

    @Test func aMissingRequiredValueAndTooFewMembers() {
        #expect(Self.problems {
            $0.records["Book"]![Self.id("Book", 1)]!.attributes["title"] = nil
            $0.records["Book"]![Self.id("Book", 1)]!.toMany["shelves"] = nil
            $0.records["Shelf"]![Self.id("Shelf", 1)]!.toMany["books"] = nil
        } == [
            "tooFewObjects Book/p1.shelves: has 0 objects; the model requires at least 1",
            "missingValue Book/p1.title: the attribute is required but has no value",
        ])
    }

    @Test func aValueOfAnotherTypeOrOutOfRange() {
        #expect(Self.problems {
            $0.records["Author"]![Self.id("Author", 1)]!.attributes["name"] = .integer(3)
            $0.records["Author"]![Self.id("Author", 1)]!.attributes["age"] = .integer(70_000)
        } == [
            "wrongType Author/p1.age: holds 70000, which is out of the range of int16 (-32768…32767)",
            "wrongType Author/p1.name: holds the integer 3, but the model says string",
        ])
    }

    @Test func twoObjectsWithTheSameUniqueValue() {
        #expect(Self.problems {
            let other = StoreRecord(objectID: Self.id("Author", 2), attributes: ["name": .string("Ada")])
            $0.records["Author"]![other.objectID] = other
            $0.keyCounters?["Author"] = 2
        } == [
            "notUnique Author/p2.name: 'name' must be unique, and Author/p1 has the same value",
        ])
    }

    @Test func aKeyAboveItsCounter() {
        #expect(Self.problems { $0.keyCounters?["Shelf"] = 0 } == [
            "keyAboveCounter Shelf/p1: primary key 1 is above the key counter of the 'Shelf' hierarchy (0): a new object could be given the same key",
        ])
        // No counters at all (a store type that keeps none): not checked.
        #expect(Self.problems { $0.keyCounters = nil } == [])
    }

    @Test func objectsOfAnEntityTheModelDoesNotHave() {
        #expect(Self.problems {
            let ghost = StoreRecord(objectID: Self.id("Ghost", 1))
            $0.records["Ghost"] = [ghost.objectID: ghost]
        } == [
            "unknownEntity Ghost: the store holds objects of 'Ghost', which the model does not have",
        ])
    }

    @Test func tooManyMembers() {
        #expect(Self.problems {
            var books: [ObjectID] = []
            for key in Int64(1)...3 {
                let book = StoreRecord(
                    objectID: Self.id("Book", key), attributes: ["title": .string("B\(key)")], toOne: ["author": Self.id("Author", 1)],
                    toMany: ["shelves": [Self.id("Shelf", 1)]])
                $0.records["Book"]![book.objectID] = book
                books.append(book.objectID)
            }
            $0.records["Author"]![Self.id("Author", 1)]!.toMany["books"] = books
            $0.records["Shelf"]![Self.id("Shelf", 1)]!.toMany["books"] = books
            $0.keyCounters?["Book"] = 3
        } == [
            "tooManyObjects Author/p1.books: has 3 objects; the model allows at most 2",
        ])
    }
}
