import Foundation
import Strata

/// Strata models of the Core Data fixture stores, written by hand from the fixtures' `.xcdatamodel`
/// files (`models/alemar11__CoreDataPlus__SampleModel_v1.xml`, `…_v2.xml`, `…SampleModel3.xml`;
/// transient attributes included, as the importer keeps them) and, for `Recipes.sqlite`, which
/// comes without its model, from its tables and Apple's iPhoneCoreDataRecipes sample.
enum CoreDataModels {
    static let sampleModelV1 = """
{"name": "SampleModel", "version": "1", "entities": [
  {"name": "Car", "attributes": [
    {"name": "color", "type": "transformable", "optional": true, "transformer": "ColorTransformer"},
    {"name": "currentDrivingSpeed", "type": "int64", "optional": true, "transient": true, "default": 0},
    {"name": "maker", "type": "string", "optional": true},
    {"name": "markedForDeletionAsOf", "type": "date", "optional": true},
    {"name": "model", "type": "string", "optional": true},
    {"name": "numberPlate", "type": "string"}],
   "relationships": [{"name": "owner", "destination": "Person", "inverse": "cars", "optional": true}],
   "uniquenessConstraints": [["numberPlate"]]},
  {"name": "SportCar", "parent": "Car"},
  {"name": "ExpensiveSportCar", "parent": "SportCar", "attributes": [
    {"name": "isLimitedEdition", "type": "bool", "optional": true, "default": false}]},
  {"name": "Person", "attributes": [
    {"name": "firstName", "type": "string", "optional": true},
    {"name": "id", "type": "uuid"},
    {"name": "isDriving", "type": "bool", "transient": true, "default": false},
    {"name": "lastName", "type": "string", "optional": true},
    {"name": "updatedAt", "type": "date"}],
   "relationships": [{"name": "cars", "destination": "Car", "inverse": "owner", "toMany": true}],
   "uniquenessConstraints": [["firstName", "lastName"]]}]}
"""

    static let sampleModelV2 = """
{"name": "SampleModel", "version": "2", "entities": [
  {"name": "Car", "attributes": [
    {"name": "maker", "type": "string", "optional": true},
    {"name": "markedForDeletionAsOf", "type": "date", "optional": true},
    {"name": "model", "type": "string", "optional": true},
    {"name": "numberPlate", "type": "string"}],
   "relationships": [{"name": "owner", "destination": "Person", "inverse": "cars", "optional": true}],
   "indexes": [{"name": "byMakerAndNumberPlate", "elements": [{"property": "maker"}, {"property": "numberPlate"}]}],
   "uniquenessConstraints": [["numberPlate"]]},
  {"name": "SportCar", "parent": "Car"},
  {"name": "LuxuryCar", "parent": "SportCar", "renamingIdentifier": "ExpensiveSportCar", "attributes": [
    {"name": "isLimitedEdition", "type": "bool", "optional": true, "default": false}]},
  {"name": "Person", "attributes": [
    {"name": "firstName", "type": "string", "optional": true},
    {"name": "lastName", "type": "string", "optional": true},
    {"name": "updatedAt", "type": "date"}],
   "relationships": [{"name": "cars", "destination": "Car", "inverse": "owner", "toMany": true}],
   "uniquenessConstraints": [["firstName", "lastName"]]}]}
"""

    static let sampleModel3 = """
{"name": "SampleModel3", "version": "1", "entities": [
  {"name": "User", "attributes": [
    {"name": "name", "type": "string"},
    {"name": "petName", "type": "string", "optional": true}]}]}
"""

    static let recipes = """
{"name": "Recipes", "entities": [
  {"name": "Image", "attributes": [
    {"name": "image", "type": "transformable", "optional": true, "transformer": "ImageToDataTransformer"}],
   "relationships": [{"name": "recipe", "destination": "Recipe", "inverse": "image", "optional": true}]},
  {"name": "Ingredient", "attributes": [
    {"name": "amount", "type": "string", "optional": true},
    {"name": "displayOrder", "type": "int16", "optional": true},
    {"name": "name", "type": "string", "optional": true}],
   "relationships": [{"name": "recipe", "destination": "Recipe", "inverse": "ingredients", "optional": true}]},
  {"name": "Recipe", "attributes": [
    {"name": "instructions", "type": "string", "optional": true},
    {"name": "name", "type": "string", "optional": true},
    {"name": "overview", "type": "string", "optional": true},
    {"name": "prepTime", "type": "string", "optional": true},
    {"name": "thumbnailImage", "type": "transformable", "optional": true, "transformer": "ImageToDataTransformer"}],
   "relationships": [
    {"name": "image", "destination": "Image", "inverse": "recipe", "optional": true, "deleteRule": "cascade"},
    {"name": "ingredients", "destination": "Ingredient", "inverse": "recipe", "toMany": true, "deleteRule": "cascade"},
    {"name": "type", "destination": "RecipeType", "inverse": "recipes", "optional": true}]},
  {"name": "RecipeType", "attributes": [
    {"name": "name", "type": "string", "optional": true}],
   "relationships": [{"name": "recipes", "destination": "Recipe", "inverse": "type", "toMany": true}]}]}
"""

    /// A fixture store and the model it was written with.
    struct Fixture: Sendable, CustomStringConvertible {
        var store: String
        var model: String
        var url: URL { CoreDataFixtures.store(store) }
        var schema: Schema { get throws { try Schema(data: Data(model.utf8)) } }
        var description: String { store }
    }

    /// Every store in `fixtures/coredata/stores`, with its model.
    static let fixtures: [Fixture] = [
        Fixture(store: "alemar11__CoreDataPlus__SampleModel_V1.sqlite", model: sampleModelV1),
        Fixture(store: "alemar11__CoreDataPlus__SampleModel_V2.sqlite", model: sampleModelV2),
        Fixture(store: "alemar11__CoreDataPlus__SampleModel3_V1.sqlite", model: sampleModel3),
        Fixture(store: "magicalpanda__MagicalRecord__Recipes.sqlite", model: recipes),
    ]
}
