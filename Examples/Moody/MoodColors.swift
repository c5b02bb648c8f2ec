import Foundation
import Strata

/// The value transformer the model names for `Mood.colors`: a mood's colours, kept as the
/// book keeps them, three bytes (red, green, blue) per colour, and read as `"#RRGGBB"` strings.
/// The generated `Mood.colors` is a `MoodColors.Value`, that is `[String]`, and
/// `MoodyModel.registerTransformers(in:)` registers one under its name.
struct MoodColors: TypedAttributeTransformer {
    typealias Value = [String]

    func transform(_ value: Any) throws -> Data {
        guard let colors = value as? [String] else {
            throw StrataError(.invalidData, "MoodColors takes [String], not \(type(of: value))")
        }
        var bytes: [UInt8] = []
        for color in colors {
            guard color.count == 7, color.hasPrefix("#"), let rgb = UInt32(color.dropFirst(), radix: 16) else {
                throw StrataError(.invalidData, "'\(color)' is not a colour written #RRGGBB")
            }
            bytes += [UInt8(rgb >> 16), UInt8(rgb >> 8 & 0xFF), UInt8(rgb & 0xFF)]
        }
        return Data(bytes)
    }

    func reverseTransform(_ data: Data) throws -> Any {
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count - bytes.count % 3, by: 3).map { start in
            "#" + bytes[start..<start + 3].map { String(format: "%02X", $0) }.joined()
        }
    }
}
