package import CLibXML2

/// A SAX reader's document (its parser's context object), told of what every Strata reader of
/// XML refuses — a declaration, which could expand without bound or read other files — and of
/// libxml2's errors.
package protocol SAXRefusing: AnyObject {
    /// The document declares `kind`: "an entity" or "a notation".
    func refuseDeclaration(_ kind: String)
    /// libxml2 reports an error (warnings are not passed on), its message without trailing
    /// whitespace.
    func parserError(_ message: String, line: Int, column: Int)
}

extension LibXML2 {
    /// Sets the callbacks of entity and notation declarations and of errors, for a parser whose
    /// context is a ``SAXRefusing`` object: the same in the XML store's reader, the Core Data
    /// XML store's and the Xcode model importer's.
    package static func refuseDeclarations(in handler: inout xmlSAXHandler) {
        handler.entityDecl = { context, _, _, _, _, _ in
            refusing(context)?.refuseDeclaration("an entity")
        }
        handler.unparsedEntityDecl = { context, _, _, _, _ in
            refusing(context)?.refuseDeclaration("an entity")
        }
        handler.notationDecl = { context, _, _, _ in
            refusing(context)?.refuseDeclaration("a notation")
        }
        handler.serror = { context, error in
            guard let error, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue, let document = refusing(context) else { return }
            var message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
            while message.last?.isWhitespace == true { message.removeLast() }
            document.parserError(message, line: Int(error.pointee.line), column: Int(error.pointee.int2))
        }
    }
}

/// The context object of a parser the callbacks of ``LibXML2/refuseDeclarations(in:)`` serve.
private func refusing(_ context: UnsafeMutableRawPointer?) -> (any SAXRefusing)? {
    guard let context else { return nil }
    return Unmanaged<AnyObject>.fromOpaque(context).takeUnretainedValue() as? any SAXRefusing
}
