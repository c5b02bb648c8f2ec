/// The type of an attribute, as written in the model file.
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    case string
    case int16
    case int32
    case int64
    case decimal
    case double
    case float
    case bool
    case date
    case binary
    case uuid
    case uri
    /// A Swift value stored as data through a named value transformer.
    case transformable

    /// True for the types that `min`/`max` apply to: numbers and dates.
    public var isOrdered: Bool {
        switch self {
        case .int16, .int32, .int64, .decimal, .double, .float, .date: true
        default: false
        }
    }

    /// True for the integer types.
    public var isInteger: Bool {
        self == .int16 || self == .int32 || self == .int64
    }

    /// True for every numeric type.
    public var isNumeric: Bool {
        isInteger || self == .decimal || self == .double || self == .float
    }

    /// True when every value of this type converts exactly to `other`, the changes a migration
    /// infers: int16 → int32 → int64 and float → double.
    package func widens(to other: AttributeType) -> Bool {
        switch (self, other) {
        case (.int16, .int32), (.int16, .int64), (.int32, .int64), (.float, .double): true
        default: false
        }
    }

    /// True when a migration carries values of this type into `other` unchanged or widened:
    /// the same type, or ``widens(to:)``.
    package func keepsValues(as other: AttributeType) -> Bool {
        self == other || widens(to: other)
    }

    /// The representable range of an integer type; nil for the other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .int16: Int64(Int16.min)...Int64(Int16.max)
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        case .int64: Int64.min...Int64.max
        default: nil
        }
    }
}

/// What happens to the destination objects when the source object of a relationship is deleted.
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// Remove the deleted object from the inverse relationship (the default).
    case nullify
    /// Delete the destination objects too.
    case cascade
    /// Refuse the delete while the relationship has destination objects.
    case deny
    /// Do nothing to the destination objects; their inverse keeps pointing at a deleted object.
    case noAction
}
