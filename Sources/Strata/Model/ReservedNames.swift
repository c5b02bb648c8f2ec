/// The naming rules of model files, kept in one place.
public enum ReservedNames {
    /// Property names that would clash with the API of a managed object (Core Data reserves the
    /// same kind of names), with Swift keywords that cannot name a property without backquotes,
    /// or with the identity column of a store.
    public static let properties: Set<String> = [
        "description", "debugDescription", "entity", "entityName", "objectID", "context",
        "managedObjectContext", "isDeleted", "isInserted", "isUpdated", "isFault", "hasChanges",
        "hasPersistentChangedValues", "changedValues", "committedValues", "faultingState",
        "hash", "hashValue", "self", "class", "primaryKey",
        "willSave", "didSave", "awakeFromInsert", "awakeFromFetch", "validateForInsert",
        "validateForUpdate", "validateForDelete", "setValue", "willChangeValue", "didChangeValue",
        "init", "deinit", "subscript", "protocol", "extension", "struct", "enum", "func", "var",
        "let", "import", "return", "true", "false", "nil",
    ]

    /// `Todo`, `GeographicRegion`, `Order_Line`: ASCII letters, digits and `_`, upper-case first.
    public static func isValidEntityName(_ name: String) -> Bool {
        isIdentifier(name, firstIsValid: { $0 >= "A" && $0 <= "Z" })
    }

    /// `title`, `createdAt`, `phone_number`: ASCII letters, digits and `_`, lower-case first.
    public static func isValidPropertyName(_ name: String) -> Bool {
        isIdentifier(name, firstIsValid: { $0 >= "a" && $0 <= "z" })
    }

    /// Index and configuration names: ASCII letters, digits and `_`, a letter first.
    public static func isValidIdentifier(_ name: String) -> Bool {
        isIdentifier(name, firstIsValid: { ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") })
    }

    private static func isIdentifier(_ name: String, firstIsValid: (Unicode.Scalar) -> Bool) -> Bool {
        guard let first = name.unicodeScalars.first, firstIsValid(first) else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z")
                || (scalar >= "0" && scalar <= "9") || scalar == "_"
        }
    }
}
