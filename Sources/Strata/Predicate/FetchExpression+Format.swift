extension FetchExpression {
    /// Parses one expression of the NSPredicate format-string language (`NSExpression(format:)`):
    /// a key path, a constant, arithmetic, a function call — `price * 1.1`, `count + 1`,
    /// `lowercase:(name)`, `%K`, `$variable`. Specifiers are filled from `arguments` in order, as
    /// ``FetchPredicate/init(format:_:)`` fills them.
    ///
    /// ```swift
    /// var request = BatchUpdateRequest(entityName: "Book")
    /// request.propertiesToUpdate = ["price": try FetchExpression(format: "price * 1.1")]
    /// ```
    /// - Throws: ``PredicateSyntaxError`` with the column of the problem.
    public init(format: String, _ arguments: any PredicateArgument...) throws(PredicateSyntaxError) {
        var parser = PredicateParser(format: format, arguments: arguments.map(\.predicateValue))
        // The parser throws untyped errors, every one a PredicateSyntaxError (see
        // FetchPredicate.init(format:argumentArray:)).
        do {
            self = try parser.parseStandaloneExpression()
        } catch let error as PredicateSyntaxError {
            throw error
        } catch {
            preconditionFailure("the predicate parser threw \(error), not a PredicateSyntaxError")
        }
    }
}
