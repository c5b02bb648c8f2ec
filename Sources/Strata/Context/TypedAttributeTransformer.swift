/// A value transformer that names the Swift type it makes, so that generated classes can type a
/// transformable attribute by its transformer: the model's `"transformer": "MoodColors"` gives
/// `@Attribute("colors") var colors: MoodColors.Value`, and the generated
/// `registerTransformers(in:)` registers `MoodColors()` under the name `"MoodColors"`.
///
/// ```swift
/// typealias MoodColors = CodableAttributeTransformer<[String]>
/// ```
public protocol TypedAttributeTransformer: AttributeTransformer {
    /// The Swift type of the attribute's values.
    associatedtype Value
    /// A transformer; the generated `registerTransformers(in:)` registers one made this way.
    init()
}

extension CodableAttributeTransformer: TypedAttributeTransformer {}
