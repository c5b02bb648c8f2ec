import Foundation

extension FetchPredicate: CustomStringConvertible {
    /// The predicate in the format-string language, with only the parentheses that precedence
    /// needs; ``FetchPredicate/init(format:_:)`` reads it back as the same tree.
    ///
    /// ```swift
    /// (FetchExpression.key("priority") >= 3 && !(FetchExpression.key("done") == true)).description
    /// // priority >= 3 AND NOT done == TRUE
    /// ```
    /// Two shapes that the parser never builds print as their meaning: an `.and` or `.or` of one
    /// predicate prints as that predicate, `.and([])` as `TRUEPREDICATE`, `.or([])` as
    /// `FALSEPREDICATE`. Constants without a literal in the language print as a `CAST` that reads
    /// back as the same constant; see ``PredicateValue/description``. What nests deeper than
    /// ``FetchPredicate/maximumDepth`` (which only code can build) prints as `…`, which does not
    /// parse.
    public var description: String { PredicatePrinter.predicate(self, within: .or, depth: 0) }
}

extension Comparison: CustomStringConvertible {
    /// The comparison in the format-string language: `ANY tags.name ==[c] "home"`.
    public var description: String { PredicatePrinter.comparison(self, depth: 0) }
}

extension FetchExpression: CustomStringConvertible {
    /// The expression in the format-string language: `author.name`, `SELF`, `$x.name`, `{1, 2}`,
    /// `SUBQUERY(tags, $t, $t.name == "home").@count`. Reserved words in key paths are escaped
    /// (`#IN`); an empty key path prints as `SELF`. A component that is not a name, which only
    /// code can build (`.key("first name")`), prints as it is and does not read back.
    public var description: String { PredicatePrinter.expression(self, depth: 0) }
}

extension PredicateValue: CustomStringConvertible {
    /// The constant in the format-string language, in a form that parses back to the same
    /// constant.
    ///
    /// | Constant | Printed as |
    /// |---|---|
    /// | `.null`, `.bool` | `NIL`, `TRUE`, `FALSE` |
    /// | `.integer` | `-42` |
    /// | `.double` | `2.5`, `1e-05` (shortest exact form); `CAST("NaN", "NSNumber")`, `CAST("Infinity", "NSNumber")`, `CAST("-Infinity", "NSNumber")` |
    /// | `.decimal` | `CAST("12.50", "NSDecimalNumber")` |
    /// | `.string` | `"a \"quoted\" line\n"` (double quotes; `\\ \" \n \t \r`, other control characters `\uXXXX`) |
    /// | `.date` | `CAST(736000000.5, "NSDate")`: seconds since 2001-01-01 00:00:00 UTC |
    /// | `.data` | `CAST("AQL/", "NSData")`: base64 |
    /// | `.uuid` | `CAST("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "NSUUID")` |
    /// | `.uri` | `CAST("https://example.com/a", "NSURL")`: the absolute string |
    /// | `.object` | `CAST("strata://<store UUID>/Todo/p3", "ObjectID")`: its URI representation |
    /// | `.array` | `CAST({1, "a"}, "NSArray")`; a bare `{1, "a"}` is an ``FetchExpression/array(_:)`` |
    ///
    /// A URL relative to a base URL reads back as its absolute form.
    public var description: String { PredicatePrinter.value(self, insideArray: false) }
}

/// Writes predicates in the format-string language that ``PredicateParser`` reads.
enum PredicatePrinter {
    /// How tightly a predicate binds: an operand prints in parentheses when its own level is
    /// lower than the level its place requires.
    enum Level: Int, Comparable {
        case or, and, unary

        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What stands for a part nested deeper than ``FetchPredicate/maximumDepth``.
    static let tooDeep = "…"

    /// `depth`: the levels of `AND`, `OR`, `NOT`, `SUBQUERY` and arrays above `predicate`.
    static func predicate(_ predicate: FetchPredicate, within required: Level, depth: Int) -> String {
        let text: String
        let level: Level
        let normalized = normalized(predicate)
        switch normalized {
        case .constant, .comparison: break
        default: if depth >= FetchPredicate.maximumDepth { return tooDeep }
        }
        switch normalized {
        case .constant(let value):
            (text, level) = (value ? "TRUEPREDICATE" : "FALSEPREDICATE", .unary)
        case .comparison(let comparison):
            (text, level) = (self.comparison(comparison, depth: depth), .unary)
        case .not(let operand):
            (text, level) = ("NOT " + self.predicate(operand, within: .unary, depth: depth + 1), .unary)
        case .and(let operands):
            // A nested AND keeps its parentheses so that the tree reads back with the same shape.
            (text, level) = (operands.map { self.predicate($0, within: .unary, depth: depth + 1) }.joined(separator: " AND "), .and)
        case .or(let operands):
            (text, level) = (operands.map { self.predicate($0, within: .and, depth: depth + 1) }.joined(separator: " OR "), .or)
        }
        return level < required ? "(\(text))" : text
    }

    static func comparison(_ comparison: Comparison, depth: Int) -> String {
        var text = comparison.modifier == .direct ? "" : comparison.modifier.rawValue + " "
        text += expression(comparison.left, depth: depth)
        text += " " + comparison.op.rawValue + options(comparison.options) + " "
        text += expression(comparison.right, depth: depth)
        return text
    }

    /// An `.and`/`.or` of one operand is that operand; of none, its identity.
    private static func normalized(_ predicate: FetchPredicate) -> FetchPredicate {
        var predicate = predicate
        while true {
            switch predicate {
            case .and(let operands) where operands.count == 1: predicate = operands[0]
            case .or(let operands) where operands.count == 1: predicate = operands[0]
            case .and(let operands) where operands.isEmpty: return .true
            case .or(let operands) where operands.isEmpty: return .false
            default: return predicate
            }
        }
    }

    static func options(_ options: ComparisonOptions) -> String {
        var letters = ""
        if options.contains(.caseInsensitive) { letters += "c" }
        if options.contains(.diacriticInsensitive) { letters += "d" }
        if options.contains(.normalized) { letters += "n" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }

    /// How tightly an expression binds, for arithmetic: an operand prints in parentheses when
    /// its own level is lower than the level its place requires.
    enum ExpressionLevel: Int, Comparable {
        case sum, product, unary, power, postfix

        static func < (lhs: ExpressionLevel, rhs: ExpressionLevel) -> Bool { lhs.rawValue < rhs.rawValue }

        init(_ expression: FetchExpression) {
            guard case .function(let function, let arguments) = expression, arguments.count == function.arity else {
                self = .postfix
                return
            }
            switch function {
            case .add, .subtract: self = .sum
            case .multiply, .divide: self = .product
            case .negate: self = .unary
            case .raise: self = .power
            default: self = .postfix
            }
        }
    }

    static func expression(_ expression: FetchExpression, within required: ExpressionLevel = .sum, depth: Int) -> String {
        switch expression {
        case .array, .subquery, .function, .index:
            if depth >= FetchPredicate.maximumDepth { return tooDeep }
        default:
            break
        }
        let text = self.text(of: expression, depth: depth)
        return ExpressionLevel(expression) < required ? "(\(text))" : text
    }

    private static func text(of expression: FetchExpression, depth: Int) -> String {
        switch expression {
        case .constant(let value):
            return value.description
        case .keyPath(let path):
            return path.isEmpty ? "SELF" : keyPath(path)
        case .evaluatedObject:
            return "SELF"
        case .variable(let name, let path):
            return "$" + name + (path.isEmpty ? "" : "." + keyPath(path))
        case .array(let elements):
            return "{" + elements.map { self.expression($0, depth: depth + 1) }.joined(separator: ", ") + "}"
        case .subquery(let collection, let variable, let predicate, let path):
            let tail = path.isEmpty ? "" : "." + keyPath(path)
            let inner = self.predicate(predicate, within: .or, depth: depth + 1)
            return "SUBQUERY(\(self.expression(collection, depth: depth + 1)), $\(variable), \(inner))\(tail)"
        case .function(let function, let arguments):
            return self.function(function, arguments, depth: depth + 1)
        case .index(let collection, let index, let path):
            let tail = path.isEmpty ? "" : "." + keyPath(path)
            return self.expression(collection, within: .postfix, depth: depth + 1) + "[" + self.index(index, depth: depth + 1) + "]" + tail
        }
    }

    /// Arithmetic with its operators (`a + b * 2`, `-a`, `a ** 2`), other functions by their
    /// selector (`sum:(books.price)`, `now()`).
    private static func function(_ function: PredicateFunction, _ arguments: [FetchExpression], depth: Int) -> String {
        if arguments.count == function.arity {
            let level = ExpressionLevel(.function(function, arguments))
            if let symbol = function.infixOperator {
                // Left to right, except `**`, which groups to the right.
                let (left, right): (ExpressionLevel, ExpressionLevel) = function == .raise ? (.postfix, .unary) : (level, ExpressionLevel(rawValue: level.rawValue + 1)!)
                return expression(arguments[0], within: left, depth: depth) + " \(symbol) " + expression(arguments[1], within: right, depth: depth)
            }
            if function == .negate {
                // `-(3)`: `-3` would read back as the constant -3.
                switch arguments[0] {
                case .constant(.integer), .constant(.double): return "-(\(expression(arguments[0], depth: depth)))"
                default: break
                }
                return "-" + expression(arguments[0], within: .unary, depth: depth)
            }
        }
        return function.rawValue + "(" + arguments.map { expression($0, depth: depth) }.joined(separator: ", ") + ")"
    }

    static func index(_ index: PredicateIndex, depth: Int = 0) -> String {
        switch index {
        case .first: "FIRST"
        case .last: "LAST"
        case .size: "SIZE"
        case .position(.keyPath(let path)) where path.count == 1 && ["FIRST", "LAST", "SIZE"].contains(path[0].uppercased()):
            "#" + path[0]  // `[first]` would be FIRST.
        case .position(let position): expression(position, depth: depth)
        }
    }

    /// Components joined by dots; a reserved word, or a name starting with a digit, gets `#`.
    static func keyPath(_ path: [String]) -> String {
        path.map { component in
            if PredicateParser.collectionOperators.contains(component) { return component }
            let scalars = component.unicodeScalars
            guard let first = scalars.first, scalars.allSatisfy(PredicateLexer.isWordContinuation) else {
                return component  // Not a name the language can spell; does not read back.
            }
            if PredicateLexer.isWordStart(first), !PredicateParser.reservedWords.contains(component.uppercased()) {
                return component
            }
            return "#" + component
        }
        .joined(separator: ".")
    }

    static func value(_ value: PredicateValue, insideArray: Bool) -> String {
        switch value {
        case .null: "NIL"
        case .bool(let value): value ? "TRUE" : "FALSE"
        case .integer(let value): String(value)
        case .double(let value): number(value)
        case .decimal(let value): cast(quoted(value.description), "NSDecimalNumber")
        case .string(let value): quoted(value)
        case .date(let value): cast(number(value.timeIntervalSinceReferenceDate), "NSDate")
        case .data(let value): cast(quoted(value.base64EncodedString()), "NSData")
        case .uuid(let value): cast(quoted(value.uuidString), "NSUUID")
        case .uri(let value): cast(quoted(value.absoluteString), "NSURL")
        case .object(let value): cast(quoted(value.uriRepresentation.absoluteString), "ObjectID")
        case .array(let values):
            // Inside an array being cast, nested arrays are folded by the outer CAST.
            insideArray ? elements(values) : cast(elements(values), "NSArray")
        }
    }

    private static func elements(_ values: [PredicateValue]) -> String {
        "{" + values.map { self.value($0, insideArray: true) }.joined(separator: ", ") + "}"
    }

    private static func cast(_ value: String, _ type: String) -> String {
        "CAST(\(value), \"\(type)\")"
    }

    /// Swift's shortest exact form (`2.5`, `1e-05`, always with a `.` or an exponent so it reads
    /// back as a double); non-finite values as a cast from their JSON-format names.
    private static func number(_ value: Double) -> String {
        if value.isFinite { return value.description }
        return cast(quoted(value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity"), "NSNumber")
    }

    static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\t": text += "\\t"
            case "\r": text += "\\r"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                let hex = String(scalar.value, radix: 16, uppercase: true)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
