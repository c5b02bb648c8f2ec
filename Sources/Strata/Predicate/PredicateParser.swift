import Foundation

extension FetchPredicate {
    /// Parses the NSPredicate format-string language, filling `%@`, `%K`, `%d`, `%f`, `%s` from
    /// `arguments` in order.
    ///
    /// ```swift
    /// let p = try FetchPredicate(format: "title BEGINSWITH[cd] %@ AND ANY tags.name IN %@", "buy", ["home", "work"])
    /// ```
    /// Keywords are case-insensitive; a reserved word is used as a key path by writing `#` before
    /// it (`#IN`). See ``PredicateSyntaxError`` for what can go wrong.
    /// - Parameters:
    ///   - format: The predicate text.
    ///   - arguments: One value per specifier: `%@` takes any value, `%K` a key path string such as
    ///     `"author.name"`, `%d`/`%i` an integer, `%f` a `Double` or `Decimal`, `%s` a string.
    /// - Throws: ``PredicateSyntaxError`` with the column of the problem.
    public init(format: String, _ arguments: any PredicateArgument...) throws(PredicateSyntaxError) {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses the NSPredicate format-string language, filling specifiers from an array.
    ///
    /// - Parameters:
    ///   - format: The predicate text.
    ///   - argumentArray: One value per specifier, in order.
    /// - Throws: ``PredicateSyntaxError`` with the column of the problem.
    public init(format: String, argumentArray: [any PredicateArgument]) throws(PredicateSyntaxError) {
        var parser = PredicateParser(format: format, arguments: argumentArray.map(\.predicateValue))
        // The parser throws untyped errors: a typed error needs a stack slot at every `try` of
        // an unoptimized build, and the recursive functions must stay small (see `parsePrimary`).
        // Every error it throws is a PredicateSyntaxError.
        do {
            self = try parser.parse()
        } catch let error as PredicateSyntaxError {
            throw error
        } catch {
            preconditionFailure("the predicate parser threw \(error), not a PredicateSyntaxError")
        }
    }
}

/// A recursive-descent parser over ``PredicateLexer``'s tokens, one token of lookahead.
///
/// ```
/// predicate  := and (("OR" | "||") and)*
/// and        := not (("AND" | "&&") not)*
/// not        := ("NOT" | "!") not | primary
/// primary    := TRUEPREDICATE | FALSEPREDICATE | "(" predicate ")" | comparison
/// comparison := [ANY | SOME | ALL | NONE] expression operator ["[" options "]"] expression
/// expression := term (("+" | "-") term)*
/// term       := unary (("*" | "/") unary)*
/// unary      := "-" unary | power
/// power      := postfix ["**" unary]
/// postfix    := primary ("[" (FIRST | LAST | SIZE | expression) "]" ["." keyPath])*
/// primary    := literal | "-" number | keyPath | SELF ["." keyPath] | $var ["." keyPath]
///             | %@ | %K ["." keyPath] | "(" expression ")"
///             | "{" [expression ("," expression)*] "}" | CAST "(" expression "," string ")"
///             | SUBQUERY "(" expression "," $var "," predicate ")" ["." keyPath]
///             | name [":" (name ":")*] "(" [expression ("," expression)*] ")"
/// ```
/// A `(` where a predicate may start opens an expression when what follows its matching `)`
/// continues one (`(price + tax) * 2 > 10`), and a predicate otherwise.
struct PredicateParser {
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH",
        "LIKE", "MATCHES", "BETWEEN", "TRUEPREDICATE", "FALSEPREDICATE", "TRUE", "FALSE", "YES", "NO",
        "NIL", "NULL", "SELF", "SUBQUERY", "CAST",
    ]
    static let collectionOperators: Set<String> = ["@count", "@sum", "@avg", "@min", "@max", "@distinctUnionOfObjects"]

    /// The collection operator a name after `@` stands for, in any case: `@COUNT` is `@count`.
    static func collectionOperator(named name: String) -> String? {
        let lowered = name.lowercased()
        return collectionOperators.first { $0.lowercased() == lowered }
    }

    private let format: String
    private var lexer: PredicateLexer
    private var token = PredicateToken(kind: .end, start: 0, end: 0)
    /// How the previous token reads in a message ("after '=='").
    private var previous: String?
    private let arguments: [PredicateValue]
    private var argumentsUsed = 0
    private var depth = 0

    init(format: String, arguments: [PredicateValue]) {
        self.format = format
        self.lexer = PredicateLexer(format)
        self.arguments = arguments
    }

    mutating func parse() throws -> FetchPredicate {
        try advance()
        let predicate = try parseOr()
        try finish(expecting: "AND, OR or the end of the predicate")
        return predicate
    }

    /// Checks that the format ends here and used every argument.
    private func finish(expecting expected: String) throws {
        if token.kind == .rightParen {
            throw error(.unexpectedToken, at: token.start, "unmatched ')'")
        }
        guard token.kind == .end else { throw unexpected(expected) }
        if argumentsUsed < arguments.count {
            throw error(
                .wrongArgumentCount, at: lexer.scalars.count,
                "\(Self.count(arguments.count, "argument")) given but the format uses \(argumentsUsed)"
            )
        }
    }

    /// A whole format that is one expression (``FetchExpression/init(format:_:)``).
    mutating func parseStandaloneExpression() throws -> FetchExpression {
        try advance()
        let expression = try parseExpression(expecting: "an expression")
        try finish(expecting: "an operator or the end of the expression")
        return expression
    }

    // MARK: Predicates

    private mutating func parseOr() throws -> FetchPredicate {
        var operands = [try parseAnd()]
        while atOr {
            try advance()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    private mutating func parseAnd() throws -> FetchPredicate {
        var operands = [try parseNot()]
        while atAnd {
            try advance()
            operands.append(try parseNot())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    private mutating func parseNot() throws -> FetchPredicate {
        guard atNot else { return try parsePrimary() }
        try nest()
        defer { depth -= 1 }
        try advance()
        return .not(try parseNot())
    }

    private var atOr: Bool {
        if case .or = token.kind { return true }
        return isKeyword("OR")
    }

    private var atAnd: Bool {
        if case .and = token.kind { return true }
        return isKeyword("AND")
    }

    private var atNot: Bool {
        if case .not = token.kind { return true }
        return isKeyword("NOT")
    }

    // The functions on the recursive path (parseOr down to parseExpression and back) keep few
    // locals and leave messages to helpers: unoptimized builds give every local its own stack
    // slot, and `PredicateSyntaxError.maximumNestingDepth` levels must fit easily in a 512 KB
    // thread (64 nested SUBQUERYs, the costliest cycle, take about 200 KB in a debug build).

    private mutating func parsePrimary() throws -> FetchPredicate {
        if let constant = try parseConstantPredicate() { return constant }
        if case .leftParen = token.kind { return try parsePredicateOrExpression() }
        return .comparison(try parseComparison())
    }

    /// A `(` that opens either a predicate (`(a > 1 OR b) AND c`) or the left side of a
    /// comparison (`(a + b) * 2 > c`): the left side when what follows its matching `)` continues
    /// an expression. Deciding by looking ahead, rather than by trying one reading and then the
    /// other, keeps parsing linear however the two nest (a SUBQUERY inside parentheses inside a
    /// SUBQUERY …).
    private mutating func parsePredicateOrExpression() throws -> FetchPredicate {
        if parenthesesOpenAnExpression() { return .comparison(try parseComparison()) }
        return try parseParenthesized()
    }

    /// Whether the token after the `)` matching the current `(` continues an expression. A format
    /// that ends or cannot be read before then, or that nests deeper than the parser allows, is
    /// read as a predicate, which reports the problem.
    private func parenthesesOpenAnExpression() -> Bool {
        var scanner = lexer
        var open = 1
        while open > 0 {
            guard let next = try? scanner.next() else { return false }
            switch next.kind {
            case .leftParen:
                open += 1
                if depth + open > PredicateSyntaxError.maximumNestingDepth { return false }
            case .rightParen: open -= 1
            case .end: return false
            default: break
            }
        }
        guard let after = try? scanner.next() else { return false }
        return Self.continuesExpression(after.kind)
    }

    /// Whether a token can continue an expression (an operator, a subscript), so that what
    /// stands before it cannot be a whole predicate.
    private static func continuesExpression(_ kind: PredicateToken.Kind) -> Bool {
        switch kind {
        case .plus, .minus, .star, .slash, .power, .leftBracket, .dot, .comparison: return true
        default: return comparisonOperator(kind) != nil
        }
    }

    private mutating func parseConstantPredicate() throws -> FetchPredicate? {
        let value: Bool
        if isKeyword("TRUEPREDICATE") {
            value = true
        } else if isKeyword("FALSEPREDICATE") {
            value = false
        } else {
            return nil
        }
        try advance()
        return .constant(value)
    }

    private mutating func parseParenthesized() throws -> FetchPredicate {
        let open = token.start
        try nest()
        defer { depth -= 1 }
        try advance()
        let inner = try parseOr()
        try expectClosing(.rightParen, opener: "'('", at: open)
        return inner
    }

    private mutating func parseComparison() throws -> Comparison {
        let modifier = try parseModifier()
        let left = try parseExpression(expecting: modifier == .direct ? "a predicate" : "a key path")
        let (op, options) = try parseOperator()
        let rightStart = token.start
        let right = try parseExpression(expecting: "a value")
        if op == .between { try checkBounds(right, at: rightStart) }
        return Comparison(left, op, right, modifier: modifier, options: options)
    }

    private mutating func parseModifier() throws -> ComparisonModifier {
        let modifier: ComparisonModifier
        if isKeyword("ANY") || isKeyword("SOME") {
            modifier = .any
        } else if isKeyword("ALL") {
            modifier = .all
        } else if isKeyword("NONE") {
            modifier = .none
        } else {
            return .direct
        }
        try advance()
        return modifier
    }

    private mutating func parseOperator() throws -> (ComparisonOperator, ComparisonOptions) {
        let operatorToken = token
        guard let op = comparisonOperator() else {
            throw unexpected("a comparison operator such as '==', '<', IN or CONTAINS")
        }
        try advance()
        return (op, try parseOptions(after: operatorToken))
    }

    private func comparisonOperator() -> ComparisonOperator? {
        Self.comparisonOperator(token.kind)
    }

    private static func comparisonOperator(_ kind: PredicateToken.Kind) -> ComparisonOperator? {
        switch kind {
        case .comparison(let op): return op
        case .word(let word):
            guard let op = ComparisonOperator(rawValue: word.uppercased()) else { return nil }
            return keywordOperators.contains(op) ? op : nil
        default: return nil
        }
    }

    private static let keywordOperators: Set<ComparisonOperator> = [
        .in, .contains, .beginsWith, .endsWith, .like, .matches, .between,
    ]

    /// `[c]`, `[d]`, `[n]` in any combination, right after the operator.
    private mutating func parseOptions(after operatorToken: PredicateToken) throws -> ComparisonOptions {
        guard token.kind == .leftBracket else { return [] }
        try advance()
        guard case .word(let letters) = token.kind else {
            throw error(
                .unexpectedToken, at: token.start,
                "expected comparison options such as [c], [d] or [cd] after \(display(operatorToken)); write arrays as {1, 2}"
            )
        }
        var options: ComparisonOptions = []
        for (offset, letter) in letters.unicodeScalars.enumerated() {
            switch letter {
            case "c", "C": options.insert(.caseInsensitive)
            case "d", "D": options.insert(.diacriticInsensitive)
            case "n", "N": options.insert(.normalized)
            default:
                throw error(
                    .invalidConstruct, at: token.start + offset,
                    "unknown comparison option '\(letter)'; use c (case-insensitive), d (diacritic-insensitive) or n (normalized)"
                )
            }
        }
        try advance()
        let close = token
        try expect(.rightBracket, "']' to close the comparison options")
        previous = "'" + text(operatorToken.start..<close.end).filter { !$0.isWhitespace } + "'"
        return options
    }

    private func checkBounds(_ right: FetchExpression, at start: Int) throws {
        let count: Int?
        switch right {
        case .array(let elements): count = elements.count
        case .constant(.array(let values)): count = values.count
        case .constant: count = nil
        default: return
        }
        guard count != 2 else { return }
        let found = count.map { ", not \(Self.count($0, "element"))" } ?? ""
        throw error(.invalidConstruct, at: start, "BETWEEN needs an array of two bounds, like {1, 5}\(found)")
    }

    // MARK: Expressions

    /// `term (("+" | "-") term)*`, left to right. Each operator of a run nests the tree one level
    /// deeper, so each counts toward the nesting limit.
    private mutating func parseExpression(expecting expected: String) throws -> FetchExpression {
        var left = try parseTerm(expecting: expected)
        var chained = 0
        defer { depth -= chained }
        while let function = additiveOperator {
            try nest()
            chained += 1
            try advance()
            left = .function(function, [left, try parseTerm(expecting: "a value")])
        }
        return left
    }

    private var additiveOperator: PredicateFunction? {
        switch token.kind {
        case .plus: .add
        case .minus: .subtract
        default: nil
        }
    }

    /// `unary (("*" | "/") unary)*`, left to right, each operator a level of nesting.
    private mutating func parseTerm(expecting expected: String) throws -> FetchExpression {
        var left = try parseUnary(expecting: expected)
        var chained = 0
        defer { depth -= chained }
        while let function = multiplicativeOperator {
            try nest()
            chained += 1
            try advance()
            left = .function(function, [left, try parseUnary(expecting: "a value")])
        }
        return left
    }

    private var multiplicativeOperator: PredicateFunction? {
        switch token.kind {
        case .star: .multiply
        case .slash: .divide
        default: nil
        }
    }

    /// `"-" unary | power`; a minus right before a number is the number's sign (`-2 ** 2` is 4).
    private mutating func parseUnary(expecting expected: String) throws -> FetchExpression {
        guard token.kind == .minus else { return try parsePower(expecting: expected) }
        try advance()
        switch token.kind {
        case .integer, .double:
            let number = FetchExpression.constant(try parseNegativeNumber())
            return try parsePower(after: try parsePostfix(number))
        default:
            try nest()
            defer { depth -= 1 }
            return .function(.negate, [try parseUnary(expecting: "a value")])
        }
    }

    /// `postfix ["**" unary]`: right to left (`2 ** 3 ** 2` is `2 ** 9`).
    private mutating func parsePower(expecting expected: String) throws -> FetchExpression {
        try parsePower(after: try parsePostfix(try parsePrimaryExpression(expecting: expected)))
    }

    private mutating func parsePower(after base: FetchExpression) throws -> FetchExpression {
        guard token.kind == .power else { return base }
        try nest()
        defer { depth -= 1 }
        try advance()
        return .function(.raise, [base, try parseUnary(expecting: "a value")])
    }

    /// Subscripts after a primary expression: `steps[FIRST].name`, `nums[2]`, each a level of
    /// nesting.
    private mutating func parsePostfix(_ primary: FetchExpression) throws -> FetchExpression {
        var expression = primary
        var chained = 0
        defer { depth -= chained }
        while token.kind == .leftBracket {
            let open = token.start
            try nest()
            chained += 1
            try advance()
            let index = try parseIndex()
            try expectClosing(.rightBracket, opener: "'['", at: open)
            expression = .index(expression, index, keyPath: try parseKeyPathTail())
        }
        return expression
    }

    private mutating func parseIndex() throws -> PredicateIndex {
        // FIRST, LAST and SIZE alone in the brackets; `[first.rank]` is a key path.
        var symbolic: PredicateIndex?
        if isKeyword("FIRST") {
            symbolic = .first
        } else if isKeyword("LAST") {
            symbolic = .last
        } else if isKeyword("SIZE") {
            symbolic = .size
        }
        var lookahead = lexer
        if symbolic != nil, (try? lookahead.next())?.kind != .rightBracket { symbolic = nil }
        if let symbolic {
            try advance()
            return symbolic
        }
        return .position(try parseExpression(expecting: "an index: FIRST, LAST, SIZE or a number"))
    }

    private mutating func parsePrimaryExpression(expecting expected: String) throws -> FetchExpression {
        switch expressionStart() {
        case .array: try parseArray()
        case .subquery: try parseSubquery()
        case .cast: try parseCast()
        case .parenthesized: try parseParenthesizedExpression()
        case .simple: try parseSimpleExpression(expecting: expected)
        }
    }

    private enum ExpressionStart { case array, subquery, cast, parenthesized, simple }

    private func expressionStart() -> ExpressionStart {
        if case .leftBrace = token.kind { return .array }
        if case .leftParen = token.kind { return .parenthesized }
        if isKeyword("SUBQUERY") { return .subquery }
        if isKeyword("CAST") { return .cast }
        return .simple
    }

    private mutating func parseParenthesizedExpression() throws -> FetchExpression {
        let open = token.start
        try nest()
        defer { depth -= 1 }
        try advance()
        let inner = try parseExpression(expecting: "a value")
        try expectClosing(.rightParen, opener: "'('", at: open)
        return inner
    }

    /// `name(…)`, `name:(…)`, `add:to:(…)`: the name is read, the token is what follows it.
    private mutating func parseFunction(_ name: String, at start: Int) throws -> FetchExpression {
        let selector = try parseSelector(name)
        guard let function = PredicateFunction(name: selector) else { throw unknownFunction(selector, at: start) }
        let open = token.start
        try nest()
        defer { depth -= 1 }
        try expect(.leftParen, "'(' after the function name")
        var arguments: [FetchExpression] = []
        if token.kind != .rightParen {
            arguments.append(try parseExpression(expecting: "an argument"))
            while token.kind == .comma {
                try advance()
                arguments.append(try parseExpression(expecting: "an argument"))
            }
        }
        try expectClosing(.rightParen, opener: "'('", at: open)
        guard arguments.count == function.arity else { throw wrongArity(function, arguments.count, at: start) }
        return .function(function, arguments)
    }

    /// The colon-separated parts of a selector after its first name: `add` `:to:` → `add:to:`.
    private mutating func parseSelector(_ name: String) throws -> String {
        var selector = name
        while token.kind == .colon {
            selector += ":"
            try advance()
            if case .word(let part) = token.kind {
                selector += part
                try advance()
                guard token.kind == .colon else { throw unexpected("':' in the function name '\(selector)'") }
            }
        }
        return selector
    }

    private func unknownFunction(_ name: String, at start: Int) -> PredicateSyntaxError {
        let names = PredicateFunction.allCases.filter { $0 != .negate }.map(\.rawValue)
        let suggestion = Suggestion.didYouMean(name, in: names)
        return error(
            .invalidConstruct, at: start,
            "unknown function '\(name)'\(suggestion.isEmpty ? "; functions include sum:, count:, average:, lowercase:, abs: and now()" : suggestion)")
    }

    private func wrongArity(_ function: PredicateFunction, _ count: Int, at start: Int) -> PredicateSyntaxError {
        error(
            .invalidConstruct, at: start,
            "\(function.rawValue) takes \(Self.count(function.arity, "argument")), not \(count)")
    }

    /// Everything but arrays, SUBQUERY and CAST: the expressions that contain no others.
    private mutating func parseSimpleExpression(expecting expected: String) throws -> FetchExpression {
        let start = token
        switch token.kind {
        case .string(let value):
            try advance()
            return .constant(.string(value))
        case .integer(let magnitude):
            guard let value = Int64(exactly: magnitude) else {
                throw error(.invalidToken, at: start.start, "integer \(magnitude) does not fit in 64 bits")
            }
            try advance()
            return .constant(.integer(value))
        case .double(let value):
            try advance()
            return .constant(.double(value))
        case .argument(let specifier):
            return try parseArgument(specifier)
        case .variable(let name):
            try advance()
            return .variable(name, try parseKeyPathTail())
        case .escapedWord(let word):
            try advance()
            return .keyPath([word] + (try parseKeyPathTail()))
        case .collectionOperator(let name):
            let component = try collectionOperator(name)
            try advance()
            return .keyPath([component] + (try parseKeyPathTail()))
        case .word(let word):
            switch word.uppercased() {
            case "TRUE", "YES":
                try advance()
                return .constant(.bool(true))
            case "FALSE", "NO":
                try advance()
                return .constant(.bool(false))
            case "NIL", "NULL":
                try advance()
                return .constant(.null)
            case "SELF":
                try advance()
                let path = try parseKeyPathTail()
                return path.isEmpty ? .evaluatedObject : .keyPath(path)
            case let upper where Self.reservedWords.contains(upper):
                throw unexpected(expected, hint: "write #\(word) for a key path named \(word)")
            default:
                try advance()
                if token.kind == .leftParen || token.kind == .colon { return try parseFunction(word, at: start.start) }
                return .keyPath([word] + (try parseKeyPathTail()))
            }
        default:
            throw unexpected(expected)
        }
    }

    private mutating func parseNegativeNumber() throws -> PredicateValue {
        let start = token
        switch token.kind {
        case .integer(let magnitude):
            try advance()
            if let value = Int64(exactly: magnitude) { return .integer(-value) }
            if magnitude == UInt64(Int64.max) + 1 { return .integer(.min) }
            throw error(.invalidToken, at: start.start, "integer -\(magnitude) does not fit in 64 bits")
        case .double(let value):
            try advance()
            return .double(-value)
        default:
            throw unexpected("a number")
        }
    }

    /// `.name`, `.@count`, `.#IN` after a key path, variable or SUBQUERY; reserved words are
    /// components here without `#`, since nothing else can follow a dot.
    private mutating func parseKeyPathTail() throws -> [String] {
        var path: [String] = []
        while token.kind == .dot {
            try advance()
            switch token.kind {
            case .word(let word), .escapedWord(let word): path.append(word)
            case .collectionOperator(let name): path.append(try collectionOperator(name))
            default: throw unexpected("a key path component")
            }
            try advance()
        }
        return path
    }

    private func collectionOperator(_ name: String) throws -> String {
        guard let component = Self.collectionOperator(named: "@" + name) else {
            throw error(
                .invalidConstruct, at: token.start,
                "unknown collection operator '@\(name)'; use @count, @sum, @avg, @min, @max or @distinctUnionOfObjects"
            )
        }
        return component
    }

    private mutating func parseArray() throws -> FetchExpression {
        let open = token.start
        try nest()
        defer { depth -= 1 }
        try advance()
        var elements: [FetchExpression] = []
        if token.kind != .rightBrace {
            elements.append(try parseExpression(expecting: "an array element"))
            while token.kind == .comma {
                try advance()
                elements.append(try parseExpression(expecting: "an array element"))
            }
        }
        try expectClosing(.rightBrace, opener: "'{'", at: open)
        return .array(elements)
    }

    private mutating func parseSubquery() throws -> FetchExpression {
        let open = token.start
        try nest()
        defer { depth -= 1 }
        try advance()
        try expect(.leftParen, "'(' after SUBQUERY")
        let collection = try parseExpression(expecting: "a collection")
        let variable = try parseSubqueryVariable()
        let predicate = try parseOr()
        try expectClosing(.rightParen, opener: "SUBQUERY", at: open)
        return .subquery(collection: collection, variable: variable, predicate: predicate, keyPath: try parseKeyPathTail())
    }

    /// `, $x,` between a SUBQUERY's collection and its predicate.
    private mutating func parseSubqueryVariable() throws -> String {
        try expect(.comma, "',' after the SUBQUERY's collection")
        guard case .variable(let variable) = token.kind else {
            throw unexpected("a variable such as $x")
        }
        try advance()
        try expect(.comma, "',' after the SUBQUERY's variable")
        return variable
    }

    /// `CAST(value, 'Type')` on a constant, folded into a constant of another kind: the form in
    /// which dates, decimals, data, UUIDs, URLs, object IDs and constant arrays are written.
    private mutating func parseCast() throws -> FetchExpression {
        let open = token.start
        try nest()
        defer { depth -= 1 }
        try advance()
        try expect(.leftParen, "'(' after CAST")
        let valueStart = token.start
        let value = try parseExpression(expecting: "a value")
        return try finishCast(value, valueStart: valueStart, open: open)
    }

    /// `, 'Type')` after a CAST's value, and the conversion.
    private mutating func finishCast(_ value: FetchExpression, valueStart: Int, open: Int) throws -> FetchExpression {
        try expect(.comma, "',' after the value to CAST")
        let typeToken = token
        guard case .string(let type) = token.kind else {
            throw unexpected("a type name such as 'NSDate'")
        }
        try advance()
        try expectClosing(.rightParen, opener: "CAST", at: open)
        guard let result = PredicateValue.cast(value, to: type) else {
            guard Self.castTypes.contains(type) else {
                throw error(
                    .invalidConstruct, at: typeToken.start,
                    "cannot CAST to '\(type)'; use \(Self.castTypes.sorted().joined(separator: ", "))"
                )
            }
            throw error(.invalidConstruct, at: valueStart, PredicateValue.castRequirement(type))
        }
        return .constant(result)
    }

    static let castTypes: Set<String> = [
        "NSDate", "NSNumber", "NSDecimalNumber", "NSData", "NSUUID", "NSURL", "ObjectID", "NSArray",
    ]

    // MARK: Arguments

    private mutating func parseArgument(_ specifier: String) throws -> FetchExpression {
        let start = token
        guard argumentsUsed < arguments.count else {
            throw error(
                .wrongArgumentCount, at: start.start,
                "missing argument \(argumentsUsed + 1) for \(specifier): \(Self.count(arguments.count, "argument")) given"
            )
        }
        let value = arguments[argumentsUsed]
        argumentsUsed += 1
        let position = argumentsUsed
        try advance()
        func mismatch(_ expected: String) -> PredicateSyntaxError {
            error(
                .invalidArgument, at: start.start,
                "argument \(position) for \(specifier) must be \(expected), not \(value.kindDescription)"
            )
        }
        switch specifier {
        case "%@":
            return .constant(value)
        case "%K":
            guard case .string(let path) = value else { throw mismatch("a key path string") }
            // Components are names or collection operators, as in the format itself, so that
            // every parsed predicate prints back as text that parses.
            var components: [String] = []
            for component in path.split(separator: ".", omittingEmptySubsequences: false) {
                if let collectionOperator = Self.collectionOperator(named: String(component)) {
                    components.append(collectionOperator)
                } else if !component.isEmpty, component.unicodeScalars.allSatisfy(PredicateLexer.isWordContinuation) {
                    components.append(String(component))
                } else {
                    throw error(
                        .invalidArgument, at: start.start,
                        "argument \(position) for %K is not a key path: \(PredicateValue.string(path))"
                    )
                }
            }
            return .keyPath(components + (try parseKeyPathTail()))
        case "%s":
            guard case .string = value else { throw mismatch("a string") }
            return .constant(value)
        case "%f", "%lf":
            switch value {
            case .double, .decimal: return .constant(value)
            default: throw mismatch("a floating-point number")
            }
        default:
            guard case .integer = value else { throw mismatch("an integer") }
            return .constant(value)
        }
    }

    // MARK: Tokens and errors

    private mutating func advance() throws {
        if token.end > token.start { previous = display(token) }
        do {
            token = try lexer.next()
        } catch {
            throw self.error(error.code, at: error.offset, error.message)
        }
    }

    private mutating func expect(_ kind: PredicateToken.Kind, _ expected: String) throws {
        guard token.kind == kind else { throw unexpected(expected, sayingAfter: false) }
        try advance()
    }

    /// `)` or `}` closing what opened at `offset`.
    private mutating func expectClosing(_ kind: PredicateToken.Kind, opener: String, at offset: Int) throws {
        guard token.kind == kind else {
            let closer = kind == .rightBrace ? "'}'" : kind == .rightBracket ? "']'" : "')'"
            let separator = kind == .rightBrace ? "',' or " : ""
            throw unexpected("\(separator)\(closer) to close the \(opener) opened in column \(column(offset))", sayingAfter: false)
        }
        try advance()
    }

    private mutating func nest() throws {
        depth += 1
        if depth > PredicateSyntaxError.maximumNestingDepth {
            throw error(
                .nestingTooDeep, at: token.start,
                "nested more than \(PredicateSyntaxError.maximumNestingDepth) levels deep"
            )
        }
    }

    private func isKeyword(_ keyword: String) -> Bool {
        guard case .word(let word) = token.kind, word.utf8.count == keyword.utf8.count else { return false }
        return word.uppercased() == keyword
    }

    private func unexpected(_ expected: String, sayingAfter: Bool = true, hint: String? = nil) -> PredicateSyntaxError {
        var message = "expected \(expected)"
        if sayingAfter, let previous { message += " after \(previous)" }
        if token.kind != .end { message += ", found \(display(token))" }
        if let hint { message += "; \(hint)" }
        return error(.unexpectedToken, at: token.start, message)
    }

    private func error(_ code: PredicateSyntaxError.Code, at offset: Int, _ message: String) -> PredicateSyntaxError {
        PredicateSyntaxError(code: code, format: format, column: column(offset), message: message)
    }

    /// The 1-based column, in characters, of a scalar offset.
    private func column(_ offset: Int) -> Int {
        text(0..<min(offset, lexer.scalars.count)).count + 1
    }

    private func text(_ range: Range<Int>) -> String {
        String(String.UnicodeScalarView(lexer.scalars[range]))
    }

    private func display(_ token: PredicateToken) -> String {
        var text = text(token.start..<token.end)
        if text.count > 30 { text = text.prefix(29) + "…" }
        if case .string = token.kind { return text }
        return "'\(text)'"
    }

    private static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }
}

extension PredicateValue {
    /// The constant `CAST(value, type)` stands for; nil when the type is unknown or the value
    /// cannot be converted.
    fileprivate static func cast(_ expression: FetchExpression, to type: String) -> PredicateValue? {
        if type == "NSArray" { return constantArray(expression) }
        guard case .constant(let value) = expression else { return nil }
        switch (type, value) {
        case ("NSDate", .integer(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case ("NSDate", .double(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case ("NSDate", .date): return value
        case ("NSNumber", .integer), ("NSNumber", .double), ("NSNumber", .decimal): return value
        case ("NSNumber", .string(let text)):
            if let integer = Int64(text) { return .integer(integer) }
            if let special = specialDoubles[text] { return .double(special) }
            guard isDecimalNumeral(text), let double = Double(text) else { return nil }
            return .double(double)
        case ("NSDecimalNumber", .integer(let integer)): return .decimal(Decimal(integer))
        case ("NSDecimalNumber", .double(let double)): return double.isFinite ? .decimal(Decimal(double)) : nil
        case ("NSDecimalNumber", .decimal): return value
        case ("NSDecimalNumber", .string(let text)):
            if text == "NaN" { return .decimal(.nan) }
            guard isDecimalNumeral(text), let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                return nil
            }
            return .decimal(decimal)
        case ("NSData", .string(let base64)): return Data(base64Encoded: base64).map(PredicateValue.data)
        case ("NSUUID", .string(let text)): return UUID(uuidString: text).map(PredicateValue.uuid)
        case ("NSURL", .string(let text)): return URL(string: text).map(PredicateValue.uri)
        case ("ObjectID", .string(let text)):
            return URL(string: text).flatMap(ObjectID.init(uri:)).map(PredicateValue.object)
        default: return nil
        }
    }

    fileprivate static func castRequirement(_ type: String) -> String {
        switch type {
        case "NSDate": "CAST to NSDate needs a number of seconds since 2001-01-01 00:00:00 UTC"
        case "NSNumber": "CAST to NSNumber needs a number or a string holding one"
        case "NSDecimalNumber": "CAST to NSDecimalNumber needs a number or a string holding a decimal number"
        case "NSData": "CAST to NSData needs a base64 string"
        case "NSUUID": "CAST to NSUUID needs a UUID string"
        case "NSURL": "CAST to NSURL needs a URL string"
        case "NSArray": "CAST to NSArray needs an array of constants, like {1, 'a'}"
        default: "CAST to \(type) needs an object ID URI string such as 'strata://<store>/Todo/p1'"
        }
    }

    private static let specialDoubles: [String: Double] = ["NaN": .nan, "Infinity": .infinity, "-Infinity": -.infinity]

    private static func constantArray(_ expression: FetchExpression) -> PredicateValue? {
        switch expression {
        case .constant(.array): return expression.constantValue
        case .array(let elements):
            var values: [PredicateValue] = []
            for element in elements {
                switch element {
                case .constant(let value): values.append(value)
                case .array:
                    guard let value = constantArray(element) else { return nil }
                    values.append(value)
                default: return nil
                }
            }
            return .array(values)
        default: return nil
        }
    }

    /// `-?digits[.digits][e[+-]digits]`: what `Decimal(string:)` and `Double(_:)` should accept
    /// here, since both accept more (a numeric prefix, "inf", hexadecimal).
    private static func isDecimalNumeral(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        func digits() -> Bool {
            let count = scalars.prefix { $0.isASCII && $0.properties.numericType == .decimal }.count
            scalars = scalars.dropFirst(count)
            return count > 0
        }
        if scalars.first == "-" { scalars = scalars.dropFirst() }
        guard digits() else { return false }
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            guard digits() else { return false }
        }
        if scalars.first == "e" || scalars.first == "E" {
            scalars = scalars.dropFirst()
            if scalars.first == "+" || scalars.first == "-" { scalars = scalars.dropFirst() }
            guard digits() else { return false }
        }
        return scalars.isEmpty
    }

    /// "an integer", "a string", ...: for messages about arguments.
    var kindDescription: String {
        switch self {
        case .null: "nil"
        case .bool: "a Bool"
        case .integer: "an integer"
        case .double: "a Double"
        case .decimal: "a Decimal"
        case .string: "a string"
        case .date: "a Date"
        case .data: "Data"
        case .uuid: "a UUID"
        case .uri: "a URL"
        case .object: "an ObjectID"
        case .array: "an array"
        }
    }
}

extension FetchExpression {
    fileprivate var constantValue: PredicateValue? {
        if case .constant(let value) = self { return value }
        return nil
    }
}
