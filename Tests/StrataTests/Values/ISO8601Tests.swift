import Foundation
import Strata
import StrataTestKit
import Testing

/// The instant `milliseconds` after 1970-01-01T00:00:00Z.
private func instant(_ milliseconds: Int64) -> Date {
    Date(timeIntervalSince1970: Double(milliseconds) / 1000)
}

/// The instant as whole milliseconds since 1970.
private func milliseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1000).rounded())
}

/// `value` in decimal with leading zeros up to `width` digits.
private func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

@Suite("ISO8601")
struct ISO8601Tests {
    // MARK: - Writing

    @Test(arguments: [
        (0, "1970-01-01T00:00:00.000Z"),
        (1, "1970-01-01T00:00:00.001Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (-14_182_940_000, "1969-07-20T20:17:40.000Z"),
        (-2_203_891_200_000, "1900-03-01T00:00:00.000Z"),
        (-12_219_292_800_000, "1582-10-15T00:00:00.000Z"),
        (-12_219_292_800_001, "1582-10-14T23:59:59.999Z"), // proleptic Gregorian, no Julian switch
        (-30_595_964_277_250, "1000-06-15T01:02:02.750Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        (-62_135_596_800_001, "0000-12-31T23:59:59.999Z"),
        (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        (-62_167_219_200_001, "-000001-12-31T23:59:59.999Z"),
        (1_714_557_600_000, "2024-05-01T10:00:00.000Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (4_102_444_800_000, "2100-01-01T00:00:00.000Z"),
        (4_107_542_399_999, "2100-02-28T23:59:59.999Z"),
        (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
        (13_574_563_200_000, "2400-02-29T00:00:00.000Z"),
        (64_060_588_800_000, "4000-01-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (253_402_300_800_000, "+010000-01-01T00:00:00.000Z"),
    ] as [(Int64, String)])
    func writesUTCWithMilliseconds(_ ms: Int64, _ expected: String) {
        #expect(ISO8601.string(from: instant(ms)) == expected)
        #expect(ISO8601.date(from: expected).map(milliseconds) == ms)
    }

    @Test func writingRoundsToTheNearestMillisecond() {
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 0.0004)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 0.0006)) == "1970-01-01T00:00:00.001Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 1.9996)) == "1970-01-01T00:00:02.000Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -0.0004)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -0.0006)) == "1969-12-31T23:59:59.999Z")
    }

    /// Beyond the years ±999999 the writer keeps to the first or last instant it can write, so
    /// that what it writes can always be read back.
    @Test(arguments: [
        (31_494_784_780_800, "+999999-12-31T23:59:59.999Z"),
        (5e13, "+999999-12-31T23:59:59.999Z"),
        (1e300, "+999999-12-31T23:59:59.999Z"),
        (.infinity, "+999999-12-31T23:59:59.999Z"),
        (-31_619_087_596_800.001, "-999999-01-01T00:00:00.000Z"),
        (-5e13, "-999999-01-01T00:00:00.000Z"),
        (-.infinity, "-999999-01-01T00:00:00.000Z"),
    ] as [(Double, String)])
    func writingClampsToSixDigitYears(_ seconds: Double, _ expected: String) {
        let text = ISO8601.string(from: Date(timeIntervalSince1970: seconds))
        #expect(text == expected)
        #expect(ISO8601.date(from: text) != nil)
    }

    // MARK: - Reading

    @Test(arguments: [
        ("2024-05-01T10:00:00.000Z", "2024-05-01T10:00:00.000Z"),
        ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00.000Z"),
        ("2024-05-01T10:00:00z", "2024-05-01T10:00:00.000Z"),
        ("2024-05-01t10:00:00Z", "2024-05-01T10:00:00.000Z"),
        ("2024-05-01 10:00:00Z", "2024-05-01T10:00:00.000Z"),
        ("2024-05-01T12:00:00+02:00", "2024-05-01T10:00:00.000Z"),
        ("2024-05-01T12:00:00.250+02:00", "2024-05-01T10:00:00.250Z"),
        ("2024-05-01T04:30:00-0530", "2024-05-01T10:00:00.000Z"),
        ("2024-05-01T04:30:00-05:30", "2024-05-01T10:00:00.000Z"),
        ("2024-05-01T10:00:00+00:00", "2024-05-01T10:00:00.000Z"),
        ("2024-05-01T10:00:00-00:00", "2024-05-01T10:00:00.000Z"),
        ("2024-05-01T00:30:00+01:00", "2024-04-30T23:30:00.000Z"),
        ("2024-03-01T00:30:00+01:00", "2024-02-29T23:30:00.000Z"),
        ("2024-12-31T23:00:00-01:00", "2025-01-01T00:00:00.000Z"),
        ("2024-05-01T10:00:00.5Z", "2024-05-01T10:00:00.500Z"),
        ("2024-05-01T10:00:00,25Z", "2024-05-01T10:00:00.250Z"),
        ("2024-05-01T10:00:00.123456789Z", "2024-05-01T10:00:00.123Z"),
        ("2024-05-01T10:00:00.9999Z", "2024-05-01T10:00:01.000Z"),
        ("2024-05-01", "2024-05-01T00:00:00.000Z"),
        ("2000-02-29", "2000-02-29T00:00:00.000Z"),
        ("2400-02-29", "2400-02-29T00:00:00.000Z"),
        ("0000-02-29", "0000-02-29T00:00:00.000Z"),
        ("0001-01-01", "0001-01-01T00:00:00.000Z"),
        ("+002024-05-01T10:00:00Z", "2024-05-01T10:00:00.000Z"),
        ("-000001-12-31T23:59:59.999Z", "-000001-12-31T23:59:59.999Z"),
        ("+010000-01-01T00:00:00.000Z", "+010000-01-01T00:00:00.000Z"),
        ("1969-07-20T20:17:40Z", "1969-07-20T20:17:40.000Z"),
        ("2100-12-31T23:59:59.999Z", "2100-12-31T23:59:59.999Z"),
    ])
    func reads(_ text: String, _ canonical: String) throws {
        let date = try #require(ISO8601.date(from: text))
        #expect(ISO8601.string(from: date) == canonical)
    }

    @Test func bareDateIsMidnightUTC() throws {
        let date = try #require(ISO8601.date(from: "2024-05-01"))
        #expect(milliseconds(date) == 1_714_521_600_000)
    }

    @Test(arguments: [
        // Impossible dates.
        "1900-02-29", "2100-02-29", "2023-02-29", "2024-02-30", "2024-04-31", "2024-06-31",
        "2024-13-01", "2024-00-10", "2024-05-00", "2024-05-32",
        // Impossible times and offsets.
        "2024-05-01T24:00:00Z", "2024-05-01T10:60:00Z", "2024-05-01T10:00:60Z",
        "2024-05-01T10:00:00+24:00", "2024-05-01T10:00:00+02:60",
        // A time needs a zone.
        "2024-05-01T10:00:00", "2024-05-01T10:00:00.000",
        // Malformed.
        "", "garbage", "2024", "2024-05", "2024-5-1", "24-05-01", "20240501", "2024/05/01",
        "+2024-05-01", "-2024-05-01", "2024-05-01T", "2024-05-01T10:00Z", "2024-05-01T10Z",
        "2024-05-01T10:00:00.Z", "2024-05-01T10:00:00+2:00", "2024-05-01T10:00:00+02",
        "2024-05-01T10:00:00+02:0", "2024-05-01T10:00:00ZZ", "2024-05-01T10:00:00Z ", " 2024-05-01",
        "2024-05-01X10:00:00Z", "2024-05-01T1a:00:00Z", "2024-05-01T10:00:00 Z", "２０２４-05-01",
        "2024-05-01T10:00:00UTC", "2024-05-01T10:00:00GMT+2",
    ])
    func rejects(_ text: String) {
        #expect(ISO8601.date(from: text) == nil)
    }

    // MARK: - Generated instants

    /// Every millisecond instant within ±3000 years of 1970 (years -1030 to 4970) survives
    /// write → read → write exactly.
    @Test(arguments: [1 as UInt64, 1970, 0xDA7E])
    func millisecondRoundTrip(_ seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let span: Int64 = 3000 * 31_556_952_000 // 3000 mean Gregorian years in milliseconds
        for _ in 0..<2000 {
            let ms = Int64.random(in: -span...span, using: &random)
            let text = ISO8601.string(from: instant(ms))
            let date = try #require(ISO8601.date(from: text), "\(ms) was written as \(text), which does not read back")
            #expect(milliseconds(date) == ms, "\(ms) → \(text)")
            #expect(ISO8601.string(from: date) == text)
        }
    }

    /// The calendar arithmetic agrees with Foundation's Gregorian calendar wherever that calendar
    /// is Gregorian (from 1583; before the 1582 reform Foundation switches to Julian).
    @Test func agreesWithFoundationsCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        var random = SeededGenerator(seed: 1583)
        let first: Int64 = -12_212_553_600_000 // 1583-01-01T00:00:00Z
        let last: Int64 = 253_402_300_799_999 // 9999-12-31T23:59:59.999Z
        for _ in 0..<1000 {
            let ms = Int64.random(in: first...last, using: &random)
            let wholeSeconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
            let parts = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second],
                from: Date(timeIntervalSince1970: Double(wholeSeconds)))
            let expected = "\(pad(parts.year!, 4))-\(pad(parts.month!, 2))-\(pad(parts.day!, 2))"
                + "T\(pad(parts.hour!, 2)):\(pad(parts.minute!, 2)):\(pad(parts.second!, 2))"
                + ".\(pad(Int(ms - wholeSeconds * 1000), 3))Z"
            #expect(ISO8601.string(from: instant(ms)) == expected, "\(ms)")
        }
    }

    /// Offsets: the same instant written in any zone reads back to that instant.
    @Test func offsetsAreSubtracted() throws {
        var random = SeededGenerator(seed: 0x0FF5E7)
        for _ in 0..<300 {
            let ms = Int64.random(in: -5_000_000_000_000...5_000_000_000_000, using: &random)
            let offsetMinutes = Int.random(in: -(23 * 60 + 59)...(23 * 60 + 59), using: &random)
            let local = instant(ms + Int64(offsetMinutes) * 60_000)
            let utc = ISO8601.string(from: local) // the local wall-clock time, labelled Z
            let sign = offsetMinutes < 0 ? "-" : "+"
            let zone = sign + pad(abs(offsetMinutes) / 60, 2) + ":" + pad(abs(offsetMinutes) % 60, 2)
            let text = String(utc.dropLast()) + zone
            let date = try #require(ISO8601.date(from: text), "\(text)")
            #expect(milliseconds(date) == ms, "\(text)")
        }
    }
}
