import Foundation
import Testing
@testable import Strata

@Suite struct PredicateParserTests {
    // MARK: Operators and options

    @Test(arguments: [
        ("=", ComparisonOperator.equal), ("==", .equal), ("!=", .notEqual), ("<>", .notEqual),
        ("<", .lessThan), ("<=", .lessThanOrEqual), ("=<", .lessThanOrEqual),
        (">", .greaterThan), (">=", .greaterThanOrEqual), ("=>", .greaterThanOrEqual),
    ])
    func symbolicOperators(symbol: String, op: ComparisonOperator) throws {
        #expect(try FetchPredicate(format: "priority \(symbol) 3") == comparison(.key("priority"), op, .constant(3)))
        #expect(try FetchPredicate(format: "priority\(symbol)3") == comparison(.key("priority"), op, .constant(3)))
    }

    @Test(arguments: [
        ("IN", ComparisonOperator.in), ("in", .in), ("CONTAINS", .contains), ("contains", .contains),
        ("BEGINSWITH", .beginsWith), ("BeginsWith", .beginsWith), ("ENDSWITH", .endsWith),
        ("endswith", .endsWith), ("LIKE", .like), ("like", .like), ("MATCHES", .matches), ("Matches", .matches),
    ])
    func keywordOperators(keyword: String, op: ComparisonOperator) throws {
        #expect(try FetchPredicate(format: "title \(keyword) 'x'") == comparison(.key("title"), op, .constant("x")))
    }

    @Test func between() throws {
        #expect(
            try FetchPredicate(format: "priority BETWEEN {1, 5}")
                == comparison(.key("priority"), .between, .array([.constant(1), .constant(5)]))
        )
        #expect(
            try FetchPredicate(format: "priority between %@", [1, 5])
                == comparison(.key("priority"), .between, .constant([1, 5]))
        )
        #expect(
            try FetchPredicate(format: "date BETWEEN {$start, $end}")
                == comparison(.key("date"), .between, .array([.variable("start", []), .variable("end", [])]))
        )
    }

    @Test(arguments: [
        ("[c]", ComparisonOptions.caseInsensitive), ("[d]", .diacriticInsensitive), ("[n]", .normalized),
        ("[cd]", [.caseInsensitive, .diacriticInsensitive]), ("[dc]", [.caseInsensitive, .diacriticInsensitive]),
        ("[C]", .caseInsensitive), ("[cdn]", [.caseInsensitive, .diacriticInsensitive, .normalized]),
        ("[nc]", [.caseInsensitive, .normalized]), (" [ c ]", .caseInsensitive),
    ] as [(String, ComparisonOptions)])
    func options(written: String, options: ComparisonOptions) throws {
        for (keyword, op) in [("==", ComparisonOperator.equal), ("!=", .notEqual), ("BEGINSWITH", .beginsWith), ("LIKE", .like)] {
            #expect(
                try FetchPredicate(format: "name \(keyword)\(written) 'x'")
                    == comparison(.key("name"), op, .constant("x"), options: options)
            )
        }
    }

    @Test func optionsOnEveryOperator() throws {
        for op in ComparisonOperator.allCases where op != .between {
            #expect(
                try FetchPredicate(format: "a \(op.rawValue)[cd] b")
                    == comparison(.key("a"), op, .key("b"), options: [.caseInsensitive, .diacriticInsensitive])
            )
        }
    }

    // MARK: Logic and precedence

    @Test(arguments: [
        ("a == 1 OR b == 2 AND c == 3", FetchPredicate.or([equal("a", 1), .and([equal("b", 2), equal("c", 3)])])),
        ("a == 1 AND b == 2 OR c == 3", .or([.and([equal("a", 1), equal("b", 2)]), equal("c", 3)])),
        ("a == 1 AND b == 2 AND c == 3", .and([equal("a", 1), equal("b", 2), equal("c", 3)])),
        ("a == 1 OR b == 2 OR c == 3", .or([equal("a", 1), equal("b", 2), equal("c", 3)])),
        ("(a == 1 AND b == 2) AND c == 3", .and([.and([equal("a", 1), equal("b", 2)]), equal("c", 3)])),
        ("a == 1 OR (b == 2 OR c == 3)", .or([equal("a", 1), .or([equal("b", 2), equal("c", 3)])])),
        ("(a == 1 OR b == 2) AND c == 3", .and([.or([equal("a", 1), equal("b", 2)]), equal("c", 3)])),
        ("NOT a == 1 AND b == 2", .and([.not(equal("a", 1)), equal("b", 2)])),
        ("NOT (a == 1 AND b == 2)", .not(.and([equal("a", 1), equal("b", 2)]))),
        ("NOT a == 1 OR NOT b == 2", .or([.not(equal("a", 1)), .not(equal("b", 2))])),
        ("NOT NOT a == 1", .not(.not(equal("a", 1)))),
        ("!a == 1", .not(equal("a", 1))),
        ("!(a == 1)", .not(equal("a", 1))),
        ("a == 1 && b == 2 || !c == 3", .or([.and([equal("a", 1), equal("b", 2)]), .not(equal("c", 3))])),
        ("a == 1 and b == 2 or not c == 3", .or([.and([equal("a", 1), equal("b", 2)]), .not(equal("c", 3))])),
        ("((a == 1))", equal("a", 1)),
        ("TRUEPREDICATE", .true),
        ("falsepredicate", .false),
        ("TRUEPREDICATE OR NOT FALSEPREDICATE", .or([.true, .not(.false)])),
        ("\n\ta == 1\r\n", equal("a", 1)),
    ])
    func precedence(format: String, expected: FetchPredicate) throws {
        #expect(try FetchPredicate(format: format) == expected)
    }

    // MARK: Literals

    @Test(arguments: [
        ("'single'", PredicateValue.string("single")),
        ("\"double\"", "double"),
        ("''", ""),
        ("\"it's\"", "it's"),
        ("'say \"hi\"'", "say \"hi\""),
        (#"'a\nb\tc\rd\\e\"f\'g'"#, "a\nb\tc\rd\\e\"f'g"),
        (#"'caf\u00e9'"#, "café"),
        (#"'\uD83D\uDE00'"#, "😀"),
        ("'%@ and %K'", "%@ and %K"),
        ("'AND OR NOT'", "AND OR NOT"),
        ("'\u{301}x'", "\u{301}x"),
        ("42", 42),
        ("-42", -42),
        ("0", 0),
        ("0x1F", 31),
        ("0XfF", 255),
        ("0o17", 15),
        ("0b101", 5),
        ("-0x10", -16),
        ("- 7", -7),
        ("9223372036854775807", .integer(.max)),
        ("-9223372036854775808", .integer(.min)),
        ("1.5", 1.5),
        ("-2.25", -2.25),
        ("1e3", 1000.0),
        ("1.5E-3", 0.0015),
        ("2e+2", 200.0),
        ("TRUE", true),
        ("yes", true),
        ("FALSE", false),
        ("No", false),
        ("NIL", nil),
        ("null", nil),
    ])
    func literals(literal: String, value: PredicateValue) throws {
        #expect(try FetchPredicate(format: "x == \(literal)") == equal("x", value))
    }

    @Test func arrays() throws {
        #expect(
            try FetchPredicate(format: "x IN {1, 2, 'a'}")
                == comparison(.key("x"), .in, .array([.constant(1), .constant(2), .constant("a")]))
        )
        #expect(try FetchPredicate(format: "x IN {}") == comparison(.key("x"), .in, .array([])))
        #expect(
            try FetchPredicate(format: "x IN {{1}, {}, a.b, $v, %@}", 7)
                == comparison(
                    .key("x"), .in,
                    .array([.array([.constant(1)]), .array([]), .key("a.b"), .variable("v", []), .constant(7)])
                )
        )
    }

    @Test func casts() throws {
        let store = "6F1C1B5A-9D0E-4C2B-8E3F-0A1B2C3D4E5F"
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let cases: [(String, PredicateValue)] = [
            ("CAST(0, 'NSDate')", .date(Date(timeIntervalSinceReferenceDate: 0))),
            ("CAST(-1.5, \"NSDate\")", .date(Date(timeIntervalSinceReferenceDate: -1.5))),
            ("CAST(736000000.123, 'NSDate')", .date(Date(timeIntervalSinceReferenceDate: 736_000_000.123))),
            ("CAST('12.50', 'NSDecimalNumber')", .decimal(Decimal(string: "12.5")!)),
            ("CAST('-1e3', 'NSDecimalNumber')", .decimal(-1000)),
            ("CAST(3, 'NSDecimalNumber')", .decimal(3)),
            ("CAST('12', 'NSNumber')", 12),
            ("CAST('1.5', 'NSNumber')", 1.5),
            ("CAST('Infinity', 'NSNumber')", .double(.infinity)),
            ("CAST('-Infinity', 'NSNumber')", .double(-.infinity)),
            ("CAST(7, 'NSNumber')", 7),
            ("CAST('AQL/', 'NSData')", .data(Data([1, 2, 255]))),
            ("CAST('', 'NSData')", .data(Data())),
            ("CAST('E621E1F8-C36C-495A-93FC-0C247A3E6E5F', 'NSUUID')", .uuid(uuid)),
            ("CAST('https://example.com/a?b=1', 'NSURL')", .uri(URL(string: "https://example.com/a?b=1")!)),
            ("CAST('strata://\(store)/Todo/p3', 'ObjectID')",
             .object(ObjectID(entityName: "Todo", storeIdentifier: store, primaryKey: 3))),
            ("CAST({1, 'a', {2, NIL}}, 'NSArray')", [1, "a", [2, nil]]),
            ("CAST({}, 'NSArray')", []),
            ("CAST({CAST(0, 'NSDate')}, 'NSArray')", [.date(Date(timeIntervalSinceReferenceDate: 0))]),
            ("CAST(CAST('1', 'NSNumber'), 'NSDate')", .date(Date(timeIntervalSinceReferenceDate: 1))),
        ]
        for (cast, value) in cases {
            #expect(try FetchPredicate(format: "x == \(cast)") == equal("x", value), "\(cast)")
        }
        let nan = try FetchPredicate(format: "x == CAST('NaN', 'NSNumber')")
        guard case .comparison(let c) = nan, case .constant(.double(let d)) = c.right else {
            Issue.record("expected a double constant, got \(nan)")
            return
        }
        #expect(d.isNaN)
        #expect(try FetchPredicate(format: "x == CAST(%@, 'NSDate')", 10) == equal("x", .date(Date(timeIntervalSinceReferenceDate: 10))))
    }

    // MARK: Key paths, variables, modifiers, subqueries

    @Test(arguments: [
        ("author.name", FetchExpression.keyPath(["author", "name"])),
        ("SELF", .evaluatedObject),
        ("self", .evaluatedObject),
        ("SELF.name", .keyPath(["name"])),
        ("books.@count", .keyPath(["books", "@count"])),
        ("author.books.@count", .keyPath(["author", "books", "@count"])),
        ("books.@sum.price", .keyPath(["books", "@sum", "price"])),
        ("books.@avg.price", .keyPath(["books", "@avg", "price"])),
        ("tags.@max.name", .keyPath(["tags", "@max", "name"])),
        ("tags.@min.name", .keyPath(["tags", "@min", "name"])),
        ("books.@COUNT", .keyPath(["books", "@count"])),
        ("@count", .keyPath(["@count"])),
        ("SELF.@count", .keyPath(["@count"])),
        ("#IN", .keyPath(["IN"])),
        ("#self", .keyPath(["self"])),
        ("a.#AND.b", .keyPath(["a", "AND", "b"])),
        ("a.in.NOT", .keyPath(["a", "in", "NOT"])),
        ("#1st", .keyPath(["1st"])),
        ("_private2", .keyPath(["_private2"])),
        ("名前.été", .keyPath(["名前", "été"])),
        ("size.first", .keyPath(["size", "first"])),
        ("$name", .variable("name", [])),
        ("$x.name.first", .variable("x", ["name", "first"])),
        ("$IN", .variable("IN", [])),
        ("$t.books.@count", .variable("t", ["books", "@count"])),
    ])
    func keyPaths(written: String, expression: FetchExpression) throws {
        #expect(try FetchPredicate(format: "\(written) == 1") == comparison(expression, .equal, .constant(1)))
        #expect(try FetchPredicate(format: "1 == \(written)") == comparison(.constant(1), .equal, expression))
    }

    @Test(arguments: [
        ("ANY", ComparisonModifier.any), ("any", .any), ("SOME", .any), ("ALL", .all), ("all", .all),
        ("NONE", .none), ("None", .none),
    ])
    func modifiers(keyword: String, modifier: ComparisonModifier) throws {
        #expect(
            try FetchPredicate(format: "\(keyword) tags.name ==[c] 'home'")
                == comparison(.key("tags.name"), .equal, .constant("home"), modifier, options: .caseInsensitive)
        )
        #expect(
            try FetchPredicate(format: "NOT \(keyword) tags.name IN %@", ["a"])
                == .not(comparison(.key("tags.name"), .in, .constant(["a"]), modifier))
        )
    }

    @Test func subqueries() throws {
        #expect(
            try FetchPredicate(format: "SUBQUERY(tags, $t, $t.name BEGINSWITH 'h' AND $t.todos.@count > 1).@count > 0")
                == comparison(
                    .subquery(
                        collection: .key("tags"), variable: "t",
                        predicate: .and([
                            comparison(.variable("t", ["name"]), .beginsWith, .constant("h")),
                            comparison(.variable("t", ["todos", "@count"]), .greaterThan, .constant(1)),
                        ]),
                        keyPath: ["@count"]
                    ),
                    .greaterThan, .constant(0)
                )
        )
        #expect(
            try FetchPredicate(format: "subquery(a.b, $x, TRUEPREDICATE) != NIL")
                == comparison(
                    .subquery(collection: .key("a.b"), variable: "x", predicate: .true, keyPath: []),
                    .notEqual, .constant(nil)
                )
        )
        let inner = FetchExpression.subquery(
            collection: .variable("t", ["items"]), variable: "i", predicate: equal("done", true), keyPath: ["@count"]
        )
        #expect(
            try FetchPredicate(format: "SUBQUERY(tags, $t, SUBQUERY($t.items, $i, done == YES).@count == 0).@count == 2")
                == comparison(
                    .subquery(
                        collection: .key("tags"), variable: "t",
                        predicate: comparison(inner, .equal, .constant(0)), keyPath: ["@count"]
                    ),
                    .equal, .constant(2)
                )
        )
    }

    @Test func constantsOnTheLeft() throws {
        #expect(try FetchPredicate(format: "'home' IN tags.name") == comparison(.constant("home"), .in, .key("tags.name")))
        #expect(try FetchPredicate(format: "%@ < priority", 3) == comparison(.constant(3), .lessThan, .key("priority")))
        #expect(try FetchPredicate(format: "NIL == notes") == comparison(.constant(nil), .equal, .key("notes")))
    }

    // MARK: Arguments

    @Test func everyArgumentType() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123.25)
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let url = URL(string: "https://example.com")!
        let id = ObjectID(entityName: "Todo", storeIdentifier: "S", primaryKey: 9)
        let cases: [(any PredicateArgument, PredicateValue)] = [
            ("s", "s"), (Int(-1), -1), (Int8(-8), -8), (Int16(16), 16), (Int32(32), 32), (Int64.min, .integer(.min)),
            (UInt(7), 7), (UInt8(255), 255), (UInt16(16), 16), (UInt32.max, .integer(Int64(UInt32.max))),
            (UInt64(Int64.max), .integer(.max)), (UInt64.max, .decimal(Decimal(UInt64.max))),
            (2.5, 2.5), (Float(0.5), 0.5), (true, true), (Decimal(string: "0.1")!, .decimal(Decimal(string: "0.1")!)),
            (date, .date(date)), (Data([0, 1]), .data(Data([0, 1]))), (uuid, .uuid(uuid)), (url, .uri(url)),
            (id, .object(id)), ([1, 2], [1, 2]),
            (Set(["b", "c", "a"]), ["a", "b", "c"]), (Set([10, 9, 100]), [10, 100, 9]),
            (PredicateValue.string("v"), "v"), (String?.none, nil), (Int?.some(4), 4), ([Int?.none, 1], [nil, 1]),
            ([[1], []] as [[Int]], [[1], []]),
        ]
        for (argument, value) in cases {
            #expect(try FetchPredicate(format: "x == %@", argument) == equal("x", value), "\(argument)")
            #expect(try FetchPredicate(format: "x == %@", argumentArray: [argument]) == equal("x", value))
        }
    }

    @Test func typedSpecifiers() throws {
        #expect(try FetchPredicate(format: "x == %d", 3) == equal("x", 3))
        #expect(try FetchPredicate(format: "x == %i", Int16(-3)) == equal("x", -3))
        #expect(try FetchPredicate(format: "x == %ld AND y == %lld AND z == %u", 1, 2, UInt8(3))
            == .and([equal("x", 1), equal("y", 2), equal("z", 3)]))
        #expect(try FetchPredicate(format: "x == %f", 2.5) == equal("x", 2.5))
        #expect(try FetchPredicate(format: "x == %lf", Decimal(1)) == equal("x", .decimal(1)))
        #expect(try FetchPredicate(format: "x == %s", "%@") == equal("x", "%@"))
    }

    @Test func keyPathArguments() throws {
        #expect(try FetchPredicate(format: "%K == %@", "title", "x") == equal("title", "x"))
        #expect(try FetchPredicate(format: "%K BEGINSWITH %@", "author.name", "A")
            == comparison(.key("author.name"), .beginsWith, .constant("A")))
        #expect(try FetchPredicate(format: "%K > 2", "books.@COUNT") == comparison(.key("books.@count"), .greaterThan, .constant(2)))
        #expect(try FetchPredicate(format: "%K.@count > 2", "books") == comparison(.key("books.@count"), .greaterThan, .constant(2)))
        #expect(try FetchPredicate(format: "%K == 1", "IN") == equal("IN", 1))
        #expect(try FetchPredicate(format: "%K == 1", "1st._x.名前") == equal("1st._x.名前", 1))
        #expect(try FetchPredicate(format: "ANY %K == %@", "tags.name", "x")
            == comparison(.key("tags.name"), .equal, .constant("x"), .any))
    }

    @Test func argumentsFillInOrder() throws {
        #expect(
            try FetchPredicate(format: "a == %@ AND %K == %d OR c IN %@", "x", "b", 2, ["y"])
                == .or([.and([equal("a", "x"), equal("b", 2)]), comparison(.key("c"), .in, .constant(["y"]))])
        )
    }

    // MARK: Errors

    @Test(arguments: [
        ("title ==", 9, PredicateSyntaxError.Code.unexpectedToken, "expected a value after '=='"),
        ("", 1, .unexpectedToken, "expected a predicate"),
        ("   ", 4, .unexpectedToken, "expected a predicate"),
        ("title", 6, .unexpectedToken, "expected a comparison operator such as '==', '<', IN or CONTAINS after 'title'"),
        ("a == 1 b", 8, .unexpectedToken, "expected AND, OR or the end of the predicate after '1', found 'b'"),
        ("a == 'x' 'y'", 10, .unexpectedToken, "expected AND, OR or the end of the predicate after 'x', found 'y'"),
        ("(a == 1", 8, .unexpectedToken, "expected ')' to close the '(' opened in column 1"),
        ("a == 1)", 7, .unexpectedToken, "unmatched ')'"),
        ("a ==[x] 3", 6, .invalidConstruct,
         "unknown comparison option 'x'; use c (case-insensitive), d (diacritic-insensitive) or n (normalized)"),
        ("a ==[cx] 3", 7, .invalidConstruct,
         "unknown comparison option 'x'; use c (case-insensitive), d (diacritic-insensitive) or n (normalized)"),
        ("a ==[c 3", 8, .unexpectedToken, "expected ']' to close the comparison options, found '3'"),
        ("a IN [1, 2]", 7, .unexpectedToken,
         "expected comparison options such as [c], [d] or [cd] after 'IN'; write arrays as {1, 2}"),
        ("a ==[c]", 8, .unexpectedToken, "expected a value after '==[c]'"),
        ("a BEGINSWITH [cd]", 18, .unexpectedToken, "expected a value after 'BEGINSWITH[cd]'"),
        ("title == 'abc", 10, .invalidToken, "unterminated string: no closing '"),
        ("title == \"abc\\\"", 10, .invalidToken, "unterminated string: no closing \""),
        ("a == 'x\\q'", 8, .invalidToken, "unknown escape '\\q'; use \\n \\t \\r \\\\ \\\" \\' or \\uXXXX"),
        ("a == '\\u12'", 7, .invalidToken, "invalid \\u escape: expected four hexadecimal digits"),
        ("a == '\\uD800'", 7, .invalidToken, "invalid \\u escape: a lone UTF-16 surrogate"),
        ("a == '\\uDC00\\uD800'", 7, .invalidToken, "invalid \\u escape: a lone UTF-16 surrogate"),
        ("a.@foo == 1", 3, .invalidConstruct, "unknown collection operator '@foo'; use @count, @sum, @avg, @min, @max or @distinctUnionOfObjects"),
        ("@first == 1", 1, .invalidConstruct, "unknown collection operator '@first'; use @count, @sum, @avg, @min, @max or @distinctUnionOfObjects"),
        ("IN == 3", 1, .unexpectedToken, "expected a predicate, found 'IN'; write #IN for a key path named IN"),
        ("title == and", 10, .unexpectedToken, "expected a value after '==', found 'and'; write #and for a key path named and"),
        ("a BETWEEN {1}", 11, .invalidConstruct, "BETWEEN needs an array of two bounds, like {1, 5}, not 1 element"),
        ("a BETWEEN 3", 11, .invalidConstruct, "BETWEEN needs an array of two bounds, like {1, 5}"),
        ("CAST('x', 'NSDate') == a", 6, .invalidConstruct,
         "CAST to NSDate needs a number of seconds since 2001-01-01 00:00:00 UTC"),
        ("x == CAST(a, 'NSNumber')", 11, .invalidConstruct, "CAST to NSNumber needs a number or a string holding one"),
        ("x == CAST('1.5x', 'NSDecimalNumber')", 11, .invalidConstruct,
         "CAST to NSDecimalNumber needs a number or a string holding a decimal number"),
        ("x == CAST('%%%', 'NSData')", 11, .invalidConstruct, "CAST to NSData needs a base64 string"),
        ("x == CAST('nope', 'NSUUID')", 11, .invalidConstruct, "CAST to NSUUID needs a UUID string"),
        ("x == CAST({a}, 'NSArray')", 11, .invalidConstruct, "CAST to NSArray needs an array of constants, like {1, 'a'}"),
        ("x == CAST('https://x/Todo/p1', 'ObjectID')", 11, .invalidConstruct,
         "CAST to ObjectID needs an object ID URI string such as 'strata://<store>/Todo/p1'"),
        ("x == CAST(1, 'Foo')", 14, .invalidConstruct,
         "cannot CAST to 'Foo'; use NSArray, NSData, NSDate, NSDecimalNumber, NSNumber, NSURL, NSUUID, ObjectID"),
        ("x == CAST(1, NSDate)", 14, .unexpectedToken, "expected a type name such as 'NSDate' after ',', found 'NSDate'"),
        ("x == CAST(1 'NSDate')", 13, .unexpectedToken, "expected ',' after the value to CAST, found 'NSDate'"),
        ("x == CAST(1, 'NSDate'", 22, .unexpectedToken, "expected ')' to close the CAST opened in column 6"),
        ("a == 99999999999999999999", 6, .invalidToken, "integer '99999999999999999999' does not fit in 64 bits"),
        ("a == 0x1FFFFFFFFFFFFFFFF", 6, .invalidToken, "integer '0x1FFFFFFFFFFFFFFFF' does not fit in 64 bits"),
        ("a == 9223372036854775808", 6, .invalidToken, "integer 9223372036854775808 does not fit in 64 bits"),
        ("a == -9223372036854775809", 7, .invalidToken, "integer -9223372036854775809 does not fit in 64 bits"),
        ("a == 0x", 6, .invalidToken, "invalid number '0x'"),
        ("a == 0b102", 6, .invalidToken, "invalid number '0b102'"),
        ("a == 12abc", 6, .invalidToken, "invalid number '12abc'"),
        ("a == 1e", 6, .invalidToken, "invalid number '1e': expected digits in the exponent"),
        ("a == -", 7, .unexpectedToken, "expected a value after '-'"),
        ("a == %x", 6, .invalidToken, "unknown format specifier '%x'; use %@, %K, %d, %i, %f or %s"),
        ("a == %", 6, .invalidToken, "unknown format specifier '%'; use %@, %K, %d, %i, %f or %s"),
        ("a == 1 & b == 2", 8, .invalidToken, "unexpected '&'; write '&&' or AND"),
        ("a == 1 | b == 2", 8, .invalidToken, "unexpected '|'; write '||' or OR"),
        ("a + == 2", 5, .unexpectedToken, "expected a value after '+', found '=='"),
        ("a & 1 == 2", 3, .invalidToken, "unexpected '&'; write '&&' or AND"),
        ("summ:(a) == 2", 1, .invalidConstruct, "unknown function 'summ:'; did you mean 'sum:'?"),
        ("frobnicate(a) == 2", 1, .invalidConstruct, "unknown function 'frobnicate'; functions include sum:, count:, average:, lowercase:, abs: and now()"),
        ("sum:(a, b) == 2", 1, .invalidConstruct, "sum: takes 1 argument, not 2"),
        ("now(1) == 2", 1, .invalidConstruct, "now takes 0 arguments, not 1"),
        ("add:to:(1) == 2", 1, .invalidConstruct, "add:to: takes 2 arguments, not 1"),
        ("add:to(1, 2) == 2", 7, .unexpectedToken, "expected ':' in the function name 'add:to' after 'to', found '('"),
        ("sum:(a == 2", 8, .unexpectedToken, "expected ')' to close the '(' opened in column 5, found '=='"),
        ("a[FIRST == 2", 9, .unexpectedToken, "expected ']' to close the '[' opened in column 2, found '=='"),
        ("a[] == 2", 3, .unexpectedToken, "expected an index: FIRST, LAST, SIZE or a number after '[', found ']'"),
        ("(a + 1 == 2", 12, .unexpectedToken, "expected ')' to close the '(' opened in column 1"),
        ("(a + 1) * == 2", 11, .unexpectedToken, "expected a value after '*', found '=='"),
        ("a ** == 2", 6, .unexpectedToken, "expected a value after '**', found '=='"),
        ("a == ~", 6, .invalidToken, "unexpected character '~'"),
        ("a == \u{7}", 6, .invalidToken, "unexpected character U+7"),
        ("a == $", 6, .invalidToken, "expected a variable name after '$'"),
        ("a == #", 6, .invalidToken, "expected a name after '#'"),
        ("a == @", 6, .invalidToken, "expected a collection operator such as @count after '@'"),
        ("a. == 1", 4, .unexpectedToken, "expected a key path component after '.', found '=='"),
        ("ANY == 1", 5, .unexpectedToken, "expected a key path after 'ANY', found '=='"),
        ("a == 1 AND", 11, .unexpectedToken, "expected a predicate after 'AND'"),
        ("a == 1 OR )", 11, .unexpectedToken, "expected a predicate after 'OR', found ')'"),
        ("NOT", 4, .unexpectedToken, "expected a predicate after 'NOT'"),
        ("a IN {1, 2", 11, .unexpectedToken, "expected ',' or '}' to close the '{' opened in column 6"),
        ("a IN {1,}", 9, .unexpectedToken, "expected an array element after ',', found '}'"),
        ("SUBQUERY(tags, t, TRUEPREDICATE).@count > 0", 16, .unexpectedToken,
         "expected a variable such as $x after ',', found 't'"),
        ("SUBQUERY(tags $t, TRUEPREDICATE).@count > 0", 15, .unexpectedToken,
         "expected ',' after the SUBQUERY's collection, found '$t'"),
        ("SUBQUERY(tags, $t, TRUEPREDICATE", 33, .unexpectedToken, "expected ')' to close the SUBQUERY opened in column 1"),
        ("SUBQUERY tags", 10, .unexpectedToken, "expected '(' after SUBQUERY, found 'tags'"),
        ("名前 == 1 AND", 12, .unexpectedToken, "expected a predicate after 'AND'"),
        ("e\u{301} ==", 5, .unexpectedToken, "expected a value after '=='"),
        ("'e\u{301}' == $", 8, .invalidToken, "expected a variable name after '$'"),
        ("a == 'very long string that goes on and on' b", 45, .unexpectedToken,
         "expected AND, OR or the end of the predicate after 'very long string that goes o…, found 'b'"),
    ])
    func syntaxErrors(format: String, column: Int, code: PredicateSyntaxError.Code, message: String) {
        #expect(throws: PredicateSyntaxError(code: code, format: format, column: column, message: message)) {
            try FetchPredicate(format: format)
        }
    }

    @Test func argumentErrors() {
        let cases: [(String, [any PredicateArgument], Int, PredicateSyntaxError.Code, String)] = [
            ("a == %@", [], 6, .wrongArgumentCount, "missing argument 1 for %@: 0 arguments given"),
            ("a == %@ OR b == %K", ["x"], 17, .wrongArgumentCount, "missing argument 2 for %K: 1 argument given"),
            ("a == %@", [1, 2], 8, .wrongArgumentCount, "2 arguments given but the format uses 1"),
            ("a == 1", [1], 7, .wrongArgumentCount, "1 argument given but the format uses 0"),
            ("a == %d", ["x"], 6, .invalidArgument, "argument 1 for %d must be an integer, not a string"),
            ("a == %i", [1.5], 6, .invalidArgument, "argument 1 for %i must be an integer, not a Double"),
            ("a == %f", [3], 6, .invalidArgument, "argument 1 for %f must be a floating-point number, not an integer"),
            ("a == %s", [Int?.none], 6, .invalidArgument, "argument 1 for %s must be a string, not nil"),
            ("%K == 1", [3], 1, .invalidArgument, "argument 1 for %K must be a key path string, not an integer"),
            ("%K == 1", ["a..b"], 1, .invalidArgument, "argument 1 for %K is not a key path: \"a..b\""),
            ("%K == 1", [""], 1, .invalidArgument, "argument 1 for %K is not a key path: \"\""),
            ("%K == 1", ["a.@foo"], 1, .invalidArgument, "argument 1 for %K is not a key path: \"a.@foo\""),
            ("%K == 1", ["first name"], 1, .invalidArgument, "argument 1 for %K is not a key path: \"first name\""),
            ("%K == 1", ["a.b-c"], 1, .invalidArgument, "argument 1 for %K is not a key path: \"a.b-c\""),
            ("a == %@ AND b == %d", ["x", 2.5], 18, .invalidArgument, "argument 2 for %d must be an integer, not a Double"),
        ]
        for (format, arguments, column, code, message) in cases {
            #expect(throws: PredicateSyntaxError(code: code, format: format, column: column, message: message)) {
                try FetchPredicate(format: format, argumentArray: arguments)
            }
        }
    }

    @Test func nestingDepthIsBounded() throws {
        let limit = PredicateSyntaxError.maximumNestingDepth
        func parens(_ n: Int) -> String { String(repeating: "(", count: n) + "a == 1" + String(repeating: ")", count: n) }
        #expect(try FetchPredicate(format: parens(limit)) == equal("a", 1))
        #expect(throws: PredicateSyntaxError(
            code: .nestingTooDeep, format: parens(limit + 1), column: limit + 1, message: "nested more than 64 levels deep"
        )) {
            try FetchPredicate(format: parens(limit + 1))
        }
        let nots = String(repeating: "NOT ", count: limit + 1) + "a == 1"
        #expect(throws: PredicateSyntaxError(
            code: .nestingTooDeep, format: nots, column: 4 * limit + 1, message: "nested more than 64 levels deep"
        )) {
            try FetchPredicate(format: nots)
        }
    }

    @Test func errorDescriptionPointsAtTheColumn() {
        let error = PredicateSyntaxError(code: .unexpectedToken, format: "title ==", column: 9, message: "expected a value after '=='")
        #expect(error.description == """
            invalid predicate: expected a value after '==' at column 9
              title ==
                      ^
            """)
        let multiline = PredicateSyntaxError(code: .unexpectedToken, format: "a == 1\n\tOR", column: 11, message: "m")
        #expect(multiline.description == "invalid predicate: m at column 11\n  a == 1  OR\n            ^")
    }
}

/// Arithmetic, functions, subscripts and `@distinctUnionOfObjects`.
extension PredicateParserTests {
    private static func call(_ function: PredicateFunction, _ arguments: FetchExpression...) -> FetchExpression {
        .function(function, arguments)
    }

    @Test func arithmeticPrecedenceAndAssociativity() throws {
        let (a, b, c) = (FetchExpression.key("a"), FetchExpression.key("b"), FetchExpression.key("c"))
        let cases: [(String, FetchExpression)] = [
            ("a + b * c", Self.call(.add, a, Self.call(.multiply, b, c))),
            ("(a + b) * c", Self.call(.multiply, Self.call(.add, a, b), c)),
            ("a - b - c", Self.call(.subtract, Self.call(.subtract, a, b), c)),
            ("a - (b - c)", Self.call(.subtract, a, Self.call(.subtract, b, c))),
            ("a / b * c", Self.call(.multiply, Self.call(.divide, a, b), c)),
            ("a ** b ** c", Self.call(.raise, a, Self.call(.raise, b, c))),
            ("-a ** 2", Self.call(.negate, Self.call(.raise, a, .constant(2)))),
            ("-2 ** 2", Self.call(.raise, .constant(-2), .constant(2))),
            ("-(2)", Self.call(.negate, .constant(2))),
            ("- -a", Self.call(.negate, Self.call(.negate, a))),
            ("a - -3", Self.call(.subtract, a, .constant(-3))),
            ("a-3", Self.call(.subtract, a, .constant(3))),
            ("-a * b", Self.call(.multiply, Self.call(.negate, a), b)),
        ]
        for (text, expression) in cases {
            #expect(try FetchPredicate(format: "\(text) == 1") == comparison(expression, .equal, .constant(1)), "\(text)")
        }
        #expect(try FetchPredicate(format: "price * 2 > cost + 1")
            == comparison(Self.call(.multiply, .key("price"), .constant(2)), .greaterThan, Self.call(.add, .key("cost"), .constant(1))))
    }

    @Test func parenthesesOpenPredicatesOrExpressions() throws {
        let sum = Self.call(.add, .key("a"), .key("b"))
        #expect(try FetchPredicate(format: "(a + b) * 2 > 3") == comparison(Self.call(.multiply, sum, .constant(2)), .greaterThan, .constant(3)))
        #expect(try FetchPredicate(format: "(a + b) > 3") == comparison(sum, .greaterThan, .constant(3)))
        #expect(try FetchPredicate(format: "((a)) IN {1}") == comparison(.key("a"), .in, .array([.constant(1)])))
        #expect(try FetchPredicate(format: "(a > 1) AND (b + 1 < 2)")
            == .and([equal("a", 1).replacing(.greaterThan), comparison(Self.call(.add, .key("b"), .constant(1)), .lessThan, .constant(2))]))
        #expect(try FetchPredicate(format: "NOT (a + b)[FIRST] == 1") == .not(comparison(.index(sum, .first, keyPath: []), .equal, .constant(1))))
    }

    @Test func functionCalls() throws {
        let cases: [(String, FetchExpression)] = [
            ("sum:(books.price)", Self.call(.sum, .key("books.price"))),
            ("sum(books.price)", Self.call(.sum, .key("books.price"))),
            ("count:(tags)", Self.call(.count, .key("tags"))),
            ("average:({1, 2, x})", Self.call(.average, .array([.constant(1), .constant(2), .key("x")]))),
            ("now()", Self.call(.now)),
            ("add:to:(a, 2)", Self.call(.add, .key("a"), .constant(2))),
            ("from:subtract:(a, 2)", Self.call(.subtract, .key("a"), .constant(2))),
            ("lowercase:(title)", Self.call(.lowercase, .key("title"))),
            ("abs:(-x)", Self.call(.abs, Self.call(.negate, .key("x")))),
            ("length:(lowercase:(title)) + 1", Self.call(.add, Self.call(.length, Self.call(.lowercase, .key("title"))), .constant(1))),
            ("max:(SUBQUERY(tags, $t, $t.n > 1).n)", Self.call(.max, .subquery(
                collection: .key("tags"), variable: "t", predicate: comparison(.variable("t", ["n"]), .greaterThan, .constant(1)), keyPath: ["n"]))),
            ("noindex:(a)", Self.call(.noindex, .key("a"))),
        ]
        for (text, expression) in cases {
            #expect(try FetchPredicate(format: "\(text) == 1") == comparison(expression, .equal, .constant(1)), "\(text)")
        }
        // A key path may still be named like a function.
        #expect(try FetchPredicate(format: "sum == 1") == equal("sum", 1))
    }

    @Test func subscripts() throws {
        let steps = FetchExpression.key("steps")
        let cases: [(String, FetchExpression)] = [
            ("steps[FIRST]", .index(steps, .first, keyPath: [])),
            ("steps[last]", .index(steps, .last, keyPath: [])),
            ("steps[SIZE]", .index(steps, .size, keyPath: [])),
            ("steps[1]", .index(steps, .position(.constant(1)), keyPath: [])),
            ("steps[$i + 1].name", .index(steps, .position(Self.call(.add, .variable("i", []), .constant(1))), keyPath: ["name"])),
            ("steps[first.rank]", .index(steps, .position(.key("first.rank")), keyPath: [])),
            ("steps[#first]", .index(steps, .position(.key("first")), keyPath: [])),
            ("{1, 2}[LAST]", .index(.array([.constant(1), .constant(2)]), .last, keyPath: [])),
            ("steps[FIRST].tags[LAST].name", .index(.index(steps, .first, keyPath: ["tags"]), .last, keyPath: ["name"])),
        ]
        for (text, expression) in cases {
            #expect(try FetchPredicate(format: "\(text) == 1") == comparison(expression, .equal, .constant(1)), "\(text)")
        }
    }

    @Test func distinctUnionOfObjects() throws {
        #expect(try FetchPredicate(format: "ANY books.@DISTINCTUNIONOFOBJECTS.genre == 'x'")
            == comparison(.keyPath(["books", "@distinctUnionOfObjects", "genre"]), .equal, .constant("x"), .any))
        #expect(try FetchPredicate(format: "%K == 1", "books.@distinctUnionOfObjects.genre")
            == equal("books.@distinctUnionOfObjects.genre", 1))
    }
}

extension FetchPredicate {
    /// The comparison with another operator.
    fileprivate func replacing(_ op: ComparisonOperator) -> FetchPredicate {
        guard case .comparison(var comparison) = self else { return self }
        comparison.op = op
        return .comparison(comparison)
    }
}
