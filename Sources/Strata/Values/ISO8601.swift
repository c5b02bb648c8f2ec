public import Foundation

/// Dates in the text form of Strata's data format: ISO 8601, UTC, with milliseconds
/// (`2024-05-01T10:00:00.000Z`).
///
/// Reading also accepts an offset (`+02:00`, `-0500`), any number of fractional digits, and a
/// bare date (`2024-05-01`, midnight UTC). Years outside 0000–9999 are written with a sign and six
/// digits (`-001000-01-01T00:00:00.000Z`). The proleptic Gregorian calendar is used throughout, so
/// dates before 1970 and after 2100 round-trip exactly to the millisecond.
public enum ISO8601 {
    /// The milliseconds since 1970 that the text form can write and read back: the years
    /// -999999 through +999999.
    private static let representableMilliseconds: ClosedRange<Int64> =
        days(fromCivil: -999_999, 1, 1) * 86_400_000...days(fromCivil: 999_999, 12, 31) * 86_400_000 + 86_399_999

    /// ``representableMilliseconds`` in seconds, for dates given as a number. Half-open, because
    /// at this magnitude a double cannot tell the last millisecond from the next second.
    package static let representableSeconds: Range<Double> =
        Double(representableMilliseconds.lowerBound) / 1000..<Double(representableMilliseconds.upperBound + 1) / 1000

    /// Formats a date as UTC with milliseconds, rounding to the nearest millisecond. A date
    /// beyond the years ±999999 is written as the first or last millisecond of that range.
    public static func string(from date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard abs(milliseconds) < 1e17, representableMilliseconds.contains(Int64(milliseconds)) else {
            return date.timeIntervalSince1970 < 0 ? "-999999-01-01T00:00:00.000Z" : "+999999-12-31T23:59:59.999Z"
        }
        let total = Int64(milliseconds)
        let seconds = floorDivide(total, 1000)
        let millis = Int(total - seconds * 1000)
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(fromDays: days)

        var text = ""
        if (0...9999).contains(year) {
            text += pad(year, 4)
        } else {
            text += (year < 0 ? "-" : "+") + pad(abs(year), 6)
        }
        text += "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        text += "." + pad(millis, 3) + "Z"
        return text
    }

    /// Parses an ISO 8601 date-time; nil when the text is not one, or names an impossible date.
    public static func date(from text: String) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let (year, month, day) = scanner.scanDate() else { return nil }
        var secondOfDay = 0
        var fraction = 0.0
        var offset = 0
        if scanner.isAtEnd {
            // A bare date: midnight UTC.
        } else {
            guard scanner.consume(UInt8(ascii: "T")) || scanner.consume(UInt8(ascii: "t")) || scanner.consume(UInt8(ascii: " ")),
                  let hour = scanner.scanDigits(2), scanner.consume(UInt8(ascii: ":")),
                  let minute = scanner.scanDigits(2), scanner.consume(UInt8(ascii: ":")),
                  let second = scanner.scanDigits(2),
                  hour < 24, minute < 60, second < 60
            else { return nil }
            secondOfDay = hour * 3600 + minute * 60 + second
            if scanner.consume(UInt8(ascii: ".")) || scanner.consume(UInt8(ascii: ",")) {
                guard let digits = scanner.scanDigitString(), !digits.isEmpty else { return nil }
                fraction = Double("0." + digits) ?? 0
            }
            if scanner.consume(UInt8(ascii: "Z")) || scanner.consume(UInt8(ascii: "z")) {
                offset = 0
            } else if let sign = scanner.scanSign() {
                guard let hours = scanner.scanDigits(2) else { return nil }
                _ = scanner.consume(UInt8(ascii: ":"))
                guard let minutes = scanner.scanDigits(2), hours < 24, minutes < 60 else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            } else {
                return nil
            }
        }
        guard scanner.isAtEnd else { return nil }
        let days = self.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + Int64(secondOfDay) - Int64(offset)
        // Whole seconds and the fraction are added in milliseconds first so that a value written
        // with milliseconds reads back to the same millisecond.
        let wholeMilliseconds = Double(seconds) * 1000 + (fraction * 1000).rounded(.down)
        let rest = fraction * 1000 - (fraction * 1000).rounded(.down)
        return Date(timeIntervalSince1970: (wholeMilliseconds + rest) / 1000)
    }

    // MARK: - Calendar arithmetic (Howard Hinnant's days-from-civil algorithms)

    package static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    package static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    package static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { index == bytes.count }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func scanSign() -> Int? {
            if consume(UInt8(ascii: "+")) { return 1 }
            if consume(UInt8(ascii: "-")) { return -1 }
            return nil
        }

        mutating func scanDigits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        mutating func scanDigitString() -> String? {
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func scanDate() -> (Int, Int, Int)? {
            let year: Int
            if let sign = scanSign() {
                guard let digits = scanDigits(6) else { return nil }
                year = sign * digits
            } else {
                guard let digits = scanDigits(4) else { return nil }
                year = digits
            }
            guard consume(UInt8(ascii: "-")), let month = scanDigits(2), consume(UInt8(ascii: "-")),
                  let day = scanDigits(2),
                  (1...12).contains(month), (1...ISO8601.daysInMonth(year, month)).contains(day)
            else { return nil }
            return (year, month, day)
        }
    }
}

extension ISO8601 {
    /// Division rounding toward negative infinity.
    package static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        StrataISO8601FloorDivide(a, b)
    }
}

private func StrataISO8601FloorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let quotient = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
}

private func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
