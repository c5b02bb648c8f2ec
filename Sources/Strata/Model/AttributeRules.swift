/// The value rules of an attribute — range, length, pattern — in one place, for the defaults a
/// model file gives and for the values a save validates.
package enum AttributeRules {
    package struct Violation: Sendable, Hashable {
        package var code: ValidationFailure.Code
        package var message: String
    }

    /// The first rule `value` breaks, or nil.
    package static func violation(
        of value: AttributeValue, type: AttributeType, minimum: AttributeValue?, maximum: AttributeValue?,
        minLength: Int?, maxLength: Int?, regex: String?
    ) -> Violation? {
        if case .integer(let integer) = value, let range = type.integerRange, !range.contains(integer) {
            return Violation(code: .outOfRange, message: "\(integer) is outside the \(type.rawValue) range \(range.lowerBound)...\(range.upperBound)")
        }
        if let minimum {
            guard let order = AttributeValue.order(value, minimum), order >= 0 else {
                return Violation(code: .belowMinimum, message: "\(value) is below the minimum \(minimum)")
            }
        }
        if let maximum {
            guard let order = AttributeValue.order(value, maximum), order <= 0 else {
                return Violation(code: .aboveMaximum, message: "\(value) is above the maximum \(maximum)")
            }
        }
        if case .string(let string) = value {
            if let minLength, string.count < minLength {
                return Violation(code: .tooShort, message: "\(string.count) character\(string.count == 1 ? "" : "s") is shorter than the minimum length \(minLength)")
            }
            if let maxLength, string.count > maxLength {
                return Violation(code: .tooLong, message: "\(string.count) characters is longer than the maximum length \(maxLength)")
            }
            if let regex {
                do {
                    if try !RegexRule.matches(regex, string) {
                        return Violation(code: .patternMismatch, message: "\(String(reflecting: string)) does not match the pattern \(String(reflecting: regex))")
                    }
                } catch {
                    return Violation(code: .patternNotEvaluated, message: "could not check the value against the regex rule: \(error.reason)")
                }
            }
        }
        return nil
    }

    package static func violation(of value: AttributeValue, for attribute: AttributeDescription) -> Violation? {
        violation(
            of: value, type: attribute.type, minimum: attribute.minimum, maximum: attribute.maximum,
            minLength: attribute.minLength, maxLength: attribute.maxLength, regex: attribute.regex)
    }
}
