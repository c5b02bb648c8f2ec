import Foundation
import StrataSQLite

/// A small Core Data store made with plain SQL in Core Data's layout, for what the fixtures lack:
/// subentities, an ordered one-to-many (`Z_FOK_AUTHOR`), an ordered many-to-many join table
/// (`Z_2TAGS` with `Z_FOK_4TAGS`), a to-one to an entity with subentities (`ZFEATURED` and
/// `Z2_FEATURED`), every attribute type, custom metadata, and rows kept only in the `-wal`.
///
/// The layout follows stores Core Data wrote that are described in public code: Apple Photos'
/// `Z_26ASSETS (Z_26ALBUMS, Z_34ASSETS, Z_FOK_34ASSETS)`, Notes' `ZFOLDER (ZPARENT, Z6_PARENT)`,
/// and the `Z_FOK_<RELATIONSHIP>` columns of ordered one-to-many relationships.
enum SyntheticCoreDataStore {
    static let model = """
        {"name": "Library", "version": "3", "entities": [
          {"name": "Author", "attributes": [
            {"name": "name", "type": "string"},
            {"name": "born", "type": "date", "optional": true},
            {"name": "rating", "type": "double", "optional": true},
            {"name": "id", "type": "uuid", "optional": true},
            {"name": "homepage", "type": "uri", "optional": true},
            {"name": "active", "type": "bool", "optional": true}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true, "ordered": true}]},
          {"name": "Book", "attributes": [
            {"name": "title", "type": "string"},
            {"name": "price", "type": "decimal", "optional": true},
            {"name": "pages", "type": "int32", "optional": true},
            {"name": "cover", "type": "binary", "optional": true, "externalStorage": true}],
           "relationships": [
            {"name": "author", "destination": "Author", "inverse": "books", "optional": true},
            {"name": "tags", "destination": "Tag", "inverse": "books", "toMany": true, "ordered": true},
            {"name": "featuredIn", "destination": "Tag", "inverse": "featured", "toMany": true}]},
          {"name": "Novel", "parent": "Book", "attributes": [{"name": "genre", "type": "string", "optional": true}]},
          {"name": "Tag", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [
            {"name": "books", "destination": "Book", "inverse": "tags", "toMany": true},
            {"name": "featured", "destination": "Book", "inverse": "featuredIn", "optional": true}]}]}
        """

    /// The store's UUID, in its metadata.
    static let uuid = "0C4D1A4E-5E5B-4C1B-9D43-3F0C8E2C1A77"

    static let schemaSQL = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
        "CREATE TABLE ZAUTHOR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZACTIVE INTEGER, ZBORN TIMESTAMP, ZRATING FLOAT, ZHOMEPAGE VARCHAR, ZNAME VARCHAR, ZID BLOB )",
        "CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPAGES INTEGER, ZAUTHOR INTEGER, Z_FOK_AUTHOR INTEGER, ZPRICE DECIMAL, ZGENRE VARCHAR, ZTITLE VARCHAR, ZCOVER BLOB )",
        "CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFEATURED INTEGER, Z2_FEATURED INTEGER, ZNAME VARCHAR )",
        "CREATE TABLE Z_2TAGS ( Z_2BOOKS INTEGER, Z_4TAGS INTEGER, Z_FOK_4TAGS INTEGER, PRIMARY KEY (Z_2BOOKS, Z_4TAGS) )",
        "INSERT INTO Z_PRIMARYKEY VALUES (1, 'Author', 0, 2), (2, 'Book', 0, 3), (3, 'Novel', 2, 0), (4, 'Tag', 0, 2)",
    ]

    /// Rows: author 1 wrote books 3, 1, 2 in that order (their `Z_FOK_AUTHOR`); book 1 has the
    /// tags 2, 1 in that order; book 3 (a novel) is featured by tag 1.
    static let rowsSQL = [
        "INSERT INTO ZAUTHOR VALUES (1, 1, 3, 1, 86400.5, 4.25, 'https://example.com/a', 'Ada', X'FEFE4176912D429F9C83662FFF641115')",
        "INSERT INTO ZAUTHOR VALUES (2, 1, 1, 0, NULL, NULL, NULL, 'Bo', NULL)",
        "INSERT INTO ZBOOK VALUES (1, 2, 1, 320, 1, 2048, 12.5, NULL, 'First', X'0148656C6C6F')",
        "INSERT INTO ZBOOK VALUES (2, 2, 1, NULL, 1, 3072, '19.99', NULL, 'Second', NULL)",
        "INSERT INTO ZBOOK VALUES (3, 3, 2, 128, 1, 1024, NULL, 'Mystery', 'Third', NULL)",
        "INSERT INTO ZTAG VALUES (1, 4, 1, 3, 3, 'crime')",
        "INSERT INTO ZTAG VALUES (2, 4, 1, NULL, NULL, 'classic')",
        "INSERT INTO Z_2TAGS VALUES (1, 2, 1024), (1, 1, 2048), (3, 1, 1024)",
    ]

    /// Creates the store at `url` in WAL mode with every table and row in its `-wal` (automatic
    /// checkpoints off), and returns the connection, still open: while it is, the `-wal` and
    /// `-shm` stay beside the file.
    static func createWALOnly(at url: URL) throws -> Database {
        let database = try Database(path: url.path, mode: .init(readOnly: false, create: true))
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA wal_autocheckpoint = 0")
        for sql in schemaSQL + rowsSQL { try database.execute(sql) }
        let metadata: [String: Any] = [
            "NSStoreUUID": uuid, "NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1344,
            "NSStoreModelVersionIdentifiers": ["3"],
            "NSStoreModelVersionHashes": ["Author": Data([1, 2, 3]), "Book": Data([4, 5]), "Novel": Data([6]), "Tag": Data([7])],
            "appTheme": "dark",
        ]
        let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
        _ = try database.rows("INSERT INTO Z_METADATA VALUES (1, ?1, ?2)", [.text(uuid), .blob(plist)]) { _ in 0 }
        return database
    }
}
