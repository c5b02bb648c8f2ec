import Strata

/// The value transformer the model names for `Mood.colors`: a mood's colours, as hex strings
/// (`"#FF8800"`), kept as JSON. The generated `Mood.colors` is a `MoodColors.Value?`, that is
/// `[String]?`, and `MoodyModel.registerTransformers(in:)` registers one under its name.
typealias MoodColors = CodableAttributeTransformer<[String]>
