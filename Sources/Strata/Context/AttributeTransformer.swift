public import Foundation

/// Turns the Swift value of a `transformable` attribute into data and back. Every store keeps
/// transformable values as that data.
public protocol AttributeTransformer: Sendable {
    func transform(_ value: Any) throws -> Data
    func reverseTransform(_ data: Data) throws -> Any
}

/// A ready transformer for any `Codable` value, stored as JSON.
/// ```swift
/// coordinator.attributeTransformers.register(CodableAttributeTransformer<[String]>(), name: "MoodColors")
/// ```
public struct CodableAttributeTransformer<Value: Codable & Sendable>: AttributeTransformer {
    public init() {}

    public func transform(_ value: Any) throws -> Data {
        guard let value = value as? Value else {
            throw StrataError(.invalidData, "expected a \(Value.self) for this transformable attribute, found a \(type(of: value))")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(value)
    }

    public func reverseTransform(_ data: Data) throws -> Any {
        try JSONDecoder().decode(Value.self, from: data)
    }
}

/// The value transformers of a coordinator, by the names models use in `"transformer"`.
public final class AttributeTransformerRegistry: Sendable {
    private let transformers = Locked<[String: any AttributeTransformer]>([:])

    public init() {}

    public func register(_ transformer: any AttributeTransformer, name: String) {
        transformers.withLock { $0[name] = transformer }
    }

    public func transformer(named name: String) -> (any AttributeTransformer)? {
        transformers.withLock { $0[name] }
    }
}
