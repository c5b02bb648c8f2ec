package import Foundation
package import Strata
import Testing

extension ManagedObjectContext {
    /// Inserts an object with attribute values (relationships are set by the caller), and the
    /// primary key `key` when one is given.
    @discardableResult
    package func make(_ entityName: String, key: Int64? = nil, _ values: [String: Any] = [:]) throws -> ManagedObject {
        let object = try insertObject(entityName: entityName, primaryKey: key)
        for (key, value) in values { object[key] = value }
        return object
    }

    /// Every object of an entity (with subentities), ordered by `key`.
    package func all(_ entityName: String, by key: String = "name") throws -> [ManagedObject] {
        try fetch(FetchRequest(entityName: entityName, sortDescriptors: [FetchSortDescriptor(key)]))
    }
}

extension StoreFixture {
    /// Saves a book, Germinal, tagged classic (the catalog model); returns their IDs.
    package func savedTaggedBook() throws -> (book: ObjectID, tag: ObjectID) {
        let context = context()
        let book = try context.make("Book", ["title": "Germinal"])
        let tag = try context.make("Tag", ["name": "classic"])
        book.addObject(tag, forKey: "tags")
        try context.save()
        return (book.objectID, tag.objectID)
    }
}

extension ManagedObject {
    /// The stored form of an attribute, for exact comparisons.
    package func attribute(_ key: String) -> AttributeValue? {
        guard case .attribute(let value) = propertyValue(forKey: key) else {
            Issue.record("\(entity.name).\(key) is not an attribute")
            return nil
        }
        return value
    }

    /// The `name` (or another string key) of each member of a to-many, in its order.
    package func names(_ key: String, by nameKey: String = "name") -> [String] {
        objects(forKey: key).map { $0[nameKey] as? String ?? "<nil>" }
    }

    /// The members' names sorted, for unordered relationships.
    package func sortedNames(_ key: String, by nameKey: String = "name") -> [String] {
        names(key, by: nameKey).sorted()
    }

    package func name(_ key: String) -> String? {
        object(forKey: key)?["name"] as? String
    }
}

/// A validation failure without its message: what tests compare exactly.
package struct Failure: Hashable, CustomStringConvertible {
    package var code: ValidationFailure.Code
    package var objectID: ObjectID
    package var key: String?

    package init(_ code: ValidationFailure.Code, _ objectID: ObjectID, _ key: String?) {
        self.code = code
        self.objectID = objectID
        self.key = key
    }

    package var description: String { "\(code) \(objectID).\(key ?? "-")" }
}

extension StrataError {
    package var failureSet: Set<Failure> { Set(failures.map { Failure($0.code, $0.objectID, $0.key) }) }
}

/// A date from ISO 8601 text with milliseconds, the way every store reads dates back.
package func date(_ text: String) -> Date {
    guard let date = ISO8601.date(from: text) else { preconditionFailure("bad date \(text)") }
    return date
}
