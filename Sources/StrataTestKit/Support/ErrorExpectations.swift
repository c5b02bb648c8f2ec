public import Strata
public import Testing

/// Runs `body`, expecting it to throw a `StrataError` with `code`; returns the error for
/// further checks, or nil (with an issue recorded) when nothing or another error was thrown.
///
/// ```swift
/// let error = expectError(.objectNotFound) { _ = try context.existingObject(with: id) }
/// #expect(error?.message == "...")
/// ```
@discardableResult
public func expectError(
    _ code: StrataError.Code, sourceLocation: Testing.SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> StrataError? {
    do {
        try body()
        Issue.record("expected a \(code) error, but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as StrataError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a StrataError \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The error `body` throws, as a `StrataError`, whatever its code; nil (with an issue recorded)
/// when nothing or another error was thrown.
public func strataError(_ body: () throws -> Void, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> StrataError? {
    do {
        try body()
        Issue.record("expected an error", sourceLocation: sourceLocation)
        return nil
    } catch let error as StrataError {
        return error
    } catch {
        Issue.record("expected a StrataError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
