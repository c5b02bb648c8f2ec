/// How model names become Swift source: identifiers escaped where Swift reserves them, and the
/// Swift type of each attribute.
enum SwiftNames {
    /// Words that cannot name a property or a type without backquotes.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import",
        "init", "inout", "internal", "let", "operator", "private", "precedencegroup", "protocol",
        "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case",
        "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if",
        "in", "repeat", "return", "throw", "switch", "where", "while", "as", "false", "is", "nil",
        "self", "super", "throws", "true", "try", "await", "Any", "Self", "Type", "Protocol",
    ]

    /// A name as a Swift identifier: `` `default` `` for a keyword, the name itself otherwise.
    static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// A transformer's name as a Swift type name: characters Swift does not allow in an
    /// identifier become `_` (`com.example.Colors` is `com_example_Colors`).
    static func typeName(forTransformer name: String) -> String {
        var result = String(name.unicodeScalars.map { scalar -> Character in
            let isLetter = (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
            return isLetter || (scalar >= "0" && scalar <= "9") ? Character(scalar) : "_"
        })
        if result.isEmpty || result.first!.isNumber { result = "_" + result }
        return identifier(result)
    }

    /// A string as a Swift string literal.
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
