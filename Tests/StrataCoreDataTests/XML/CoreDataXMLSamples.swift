import Foundation
@testable import StrataCoreData

/// A Core Data XML store of our own, written as Core Data writes one (upper-cased entity names,
/// lower-cased property names, `z` ids, dates in seconds since 2001, booleans 1/0, base64 with
/// line breaks), with every attribute type, a subentity, to-one, to-many and ordered to-many
/// relationships, and its model.
enum CoreDataXMLSamples {
    static let company = """
        <?xml version="1.0" standalone="yes"?>
        <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

        <database>
            <databaseInfo>
                <version>134481920</version>
                <UUID>0B7E5B4C-8C3A-4C8F-9E41-3A2D7F1C9B10</UUID>
                <nextObjectID>106</nextObjectID>
                <metadata>
                    <plist version="1.0">
                        <dict>
                            <key>NSPersistenceFrameworkVersion</key>
                            <integer>1244</integer>
                            <key>NSStoreModelVersionHashes</key>
                            <dict>
                                <key>Department</key>
                                <data>
                AAEC
                </data>
                                <key>Manager</key>
                                <data>AwQF</data>
                                <key>Person</key>
                                <data>BgcI</data>
                                <key>Project</key>
                                <data>CQoL</data>
                            </dict>
                            <key>NSStoreModelVersionIdentifiers</key>
                            <array>
                                <string>2</string>
                            </array>
                            <key>checked</key>
                            <true/>
                            <key>createdAt</key>
                            <date>2024-05-01T10:00:00Z</date>
                            <key>ratio</key>
                            <real>0.5</real>
                        </dict>
                    </plist>
                </metadata>
            </databaseInfo>
            <object type="DEPARTMENT" id="z101">
                <attribute name="title" type="string">R&amp;D</attribute>
                <relationship name="members" type="0/0" destination="PERSON" idrefs="z105 z103 z104"></relationship>
            </object>
            <object type="PROJECT" id="z102">
                <attribute name="code" type="string">P1</attribute>
                <relationship name="people" type="0/0" destination="PERSON" idrefs="z104 z103"></relationship>
            </object>
            <object type="PERSON" id="z103">
                <attribute name="name" type="string">Ada &lt;Lovelace&gt;</attribute>
                <attribute name="age" type="int16">36</attribute>
                <attribute name="visits" type="int32">-2147483648</attribute>
                <attribute name="serial" type="int64">9223372036854775807</attribute>
                <attribute name="salary" type="decimal">1234.56</attribute>
                <attribute name="height" type="double">1.6499999999999999</attribute>
                <attribute name="weight" type="float">55.5</attribute>
                <attribute name="active" type="bool">1</attribute>
                <attribute name="hiredat" type="date">736732800.25000000000000000000</attribute>
                <attribute name="photo" type="binary">AAEC
        AwQF
        </attribute>
                <attribute name="badge" type="uuid">e621e1f8-c36c-495a-93fc-0c247a3e6e5f</attribute>
                <attribute name="homepage" type="uri">https://example.com/a?b=1&amp;c=2</attribute>
                <attribute name="settings" type="transformable">c2V0dGluZ3M=</attribute>
                <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z101"></relationship>
                <relationship name="projects" type="0/0" destination="PROJECT" idrefs="z102"></relationship>
                <relationship name="boss" type="1/1" destination="MANAGER" idrefs="z104"></relationship>
            </object>
            <object type="MANAGER" id="z104">
                <attribute name="name" type="string">Grace</attribute>
                <attribute name="active" type="bool">0</attribute>
                <attribute name="level" type="int16">3</attribute>
                <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z101"></relationship>
                <relationship name="projects" type="0/0" destination="PROJECT" idrefs="z102"></relationship>
                <relationship name="boss" type="1/1" destination="MANAGER"></relationship>
                <relationship name="reports" type="0/0" destination="PERSON" idrefs="z105 z103"></relationship>
            </object>
            <object type="PERSON" id="z105">
                <attribute name="name" type="string"></attribute>
                <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z101"></relationship>
                <relationship name="projects" type="0/0" destination="PROJECT"></relationship>
                <relationship name="boss" type="1/1" destination="MANAGER" idrefs="z104"></relationship>
            </object>
            <object type="PROJECT" id="z106">
                <attribute name="code" type="string">P2</attribute>
                <relationship name="people" type="0/0" destination="PERSON"></relationship>
            </object>
        </database>

        """

    /// The model of ``company``, with Core Data's names in their own case.
    static let companyModel = """
        {
          "name": "Company",
          "entities": [
            { "name": "Department",
              "attributes": [{ "name": "title", "type": "string" }],
              "relationships": [{ "name": "members", "destination": "Person", "inverse": "department", "toMany": true, "ordered": true }] },
            { "name": "Project",
              "attributes": [{ "name": "code", "type": "string" }],
              "relationships": [{ "name": "people", "destination": "Person", "inverse": "projects", "toMany": true }] },
            { "name": "Person",
              "attributes": [
                { "name": "name", "type": "string" },
                { "name": "age", "type": "int16", "optional": true },
                { "name": "visits", "type": "int32", "optional": true },
                { "name": "serial", "type": "int64", "optional": true },
                { "name": "salary", "type": "decimal", "optional": true },
                { "name": "height", "type": "double", "optional": true },
                { "name": "weight", "type": "float", "optional": true },
                { "name": "active", "type": "bool", "optional": true },
                { "name": "hiredAt", "type": "date", "optional": true },
                { "name": "photo", "type": "binary", "optional": true },
                { "name": "badge", "type": "uuid", "optional": true },
                { "name": "homePage", "type": "uri", "optional": true },
                { "name": "settings", "type": "transformable", "transformer": "NSSecureUnarchiveFromData", "optional": true }
              ],
              "relationships": [
                { "name": "department", "destination": "Department", "inverse": "members", "optional": true },
                { "name": "projects", "destination": "Project", "inverse": "people", "toMany": true },
                { "name": "boss", "destination": "Manager", "inverse": "reports", "optional": true }
              ] },
            { "name": "Manager", "parent": "Person",
              "attributes": [{ "name": "level", "type": "int16", "optional": true }],
              "relationships": [{ "name": "reports", "destination": "Person", "inverse": "boss", "toMany": true, "ordered": true }] }
          ]
        }
        """

    /// Writes `text` to a new file in a new temporary directory.
    static func file(_ text: String, named name: String = "store.xml") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-cdxml-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }
}
