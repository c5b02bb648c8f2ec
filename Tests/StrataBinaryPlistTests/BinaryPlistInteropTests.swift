import Foundation
import Strata
import StrataBinaryPlist
import StrataTestKit
import Testing

/// Files that Python's plistlib reads, and files plistlib writes that Strata reads. Skipped (and
/// reported as skipped) only when python3 is not installed.
@Suite(.enabled(if: Python.isAvailable, "python3 is not installed: the plistlib interoperability tests are skipped"))
struct BinaryPlistInteropTests {
    let format = Fixtures.format

    /// Loads a plist with plistlib and prints it as JSON with every scalar tagged by its type.
    static let dumpScript = #"""
    import base64, datetime, json, plistlib, sys
    def tag(v):
        if isinstance(v, bool): return {"bool": "true" if v else "false"}
        if isinstance(v, int): return {"int": str(v)}
        if isinstance(v, float): return {"real": repr(v)}
        if isinstance(v, str): return {"str": v}
        if isinstance(v, bytes): return {"data": base64.b64encode(v).decode()}
        if isinstance(v, datetime.datetime): return {"date": v.isoformat(timespec="milliseconds")}
        if isinstance(v, list): return [tag(x) for x in v]
        if isinstance(v, dict): return {k: tag(x) for k, x in v.items()}
        raise TypeError(type(v))
    with open(sys.argv[1], "rb") as f:
        p = plistlib.load(f)
    print(json.dumps(tag(p), sort_keys=True))
    """#

    /// Loads a plist with plistlib and writes it back with plistlib's own binary writer.
    static let rewriteScript = #"""
    import plistlib, sys
    with open(sys.argv[1], "rb") as f:
        p = plistlib.load(f)
    with open(sys.argv[2], "wb") as f:
        plistlib.dump(p, f, fmt=plistlib.FMT_BINARY, sort_keys=False)
    """#

    func dump(_ url: URL) throws -> [String: Any] {
        let output = try Python.run(Self.dumpScript, [url.path])
        #expect(output.status == 0, "plistlib could not read the file: \(output.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
        return try #require(json as? [String: Any])
    }

    /// Everything edge-like the value tests use, in one store.
    static func edgeStore() -> AtomicStoreContents {
        let strings = [
            "", "with \"double\" and 'single' quotes", "<&>", "a\tb", "line\nbreak\r\n", "emoji 😀👍🏽", "non-BMP 𝄞 𠀀",
            String(repeating: "ünïcödé ", count: 40), "nul\u{0}byte",
        ]
        let dates = ["1969-12-31T23:59:59.999Z", "1900-01-01T00:00:00.001Z", "2100-03-01T00:00:00.999Z", "2999-12-31T23:59:59.999Z", "2024-05-01T10:00:00.123Z"]
        var records: [StoreRecord] = []
        var key: Int64 = 0
        func add(_ attributes: AttributeValues) {
            key += 1
            records.append(Fixtures.record("Item", key, attributes))
        }
        for string in strings { add(["text": .string(string)]) }
        for integer in [Int64.min, .max, -1, 0, 255, 256, 65_536, 4_294_967_296] { add(["large": .integer(integer)]) }
        for double in [Double.nan, .infinity, -.infinity, -0.0, 0.1, .greatestFiniteMagnitude] { add(["ratio": .double(double)]) }
        for float in [Float.nan, .infinity, 0.1, .greatestFiniteMagnitude] { add(["level": .float(float)]) }
        for date in dates { add(["when": .date(ISO8601.date(from: date)!)]) }
        add(["blob": .binary(Data()), "flag": .bool(false)])
        add(["blob": .binary(Data([0, 1, 2, 255])), "flag": .bool(true), "amount": .decimal(Decimal(string: "-123456789012345678.901234567890")!)])
        add(["token": .uuid(UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!), "link": .uri(URL(string: "https://example.com/a%20b?q=1#f")!)])
        var contents = Fixtures.smallStore()
        for record in records {
            let record = StoreRecord(objectID: Fixtures.id("Item", 100 + record.objectID.primaryKey!), attributes: record.attributes, version: 1)
            contents.records["Item", default: [:]][record.objectID] = record
        }
        return contents
    }

    @Test func plistlibReadsOurFiles() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.plist")
        let contents = Self.edgeStore()
        try format.write(contents, to: url)
        let plist = try dump(url)
        let metadata = try #require(plist["metadata"] as? [String: Any])
        #expect((metadata["schema"] as? [String: String])?["str"] == Fixtures.schema.jsonString)
        #expect((metadata["storeIdentifier"] as? [String: String])?["str"] == Fixtures.storeIdentifier)
        #expect((metadata["formatVersion"] as? [String: String])?["int"] == "1")
        let objects = try #require(plist["objects"] as? [String: Any])
        let items = try #require(objects["Item"] as? [[String: Any]])
        #expect(items.count == 2 + 35)
        func value(_ key: Int64, _ attribute: String) -> [String: String]? {
            guard let item = items.first(where: { ($0["@id"] as? [String: String])?["int"] == String(key) }) else { return nil }
            return item[attribute] as? [String: String]
        }
        #expect(value(101, "text") == ["str": ""])
        #expect(value(102, "text") == ["str": "with \"double\" and 'single' quotes"])
        #expect(value(103, "text") == ["str": "<&>"])
        #expect(value(104, "text") == ["str": "a\tb"])
        #expect(value(105, "text") == ["str": "line\nbreak\r\n"])
        #expect(value(106, "text") == ["str": "emoji 😀👍🏽"])
        #expect(value(107, "text") == ["str": "non-BMP 𝄞 𠀀"])
        #expect(value(108, "text") == ["str": String(repeating: "ünïcödé ", count: 40)])
        #expect(value(109, "text") == ["str": "nul\u{0}byte"])
        #expect(value(110, "large") == ["int": "-9223372036854775808"])
        #expect(value(111, "large") == ["int": "9223372036854775807"])
        #expect(value(112, "large") == ["int": "-1"])
        #expect(value(117, "large") == ["int": "4294967296"])
        #expect(value(118, "ratio") == ["real": "nan"])
        #expect(value(119, "ratio") == ["real": "inf"])
        #expect(value(120, "ratio") == ["real": "-inf"])
        #expect(value(121, "ratio") == ["real": "-0.0"])
        #expect(value(122, "ratio") == ["real": "0.1"])
        #expect(value(123, "ratio") == ["real": "1.7976931348623157e+308"])
        #expect(value(126, "level") == ["real": "0.10000000149011612"])
        #expect(value(128, "when") == ["date": "1969-12-31T23:59:59.999"])
        #expect(value(129, "when") == ["date": "1900-01-01T00:00:00.001"])
        #expect(value(130, "when") == ["date": "2100-03-01T00:00:00.999"])
        #expect(value(131, "when") == ["date": "2999-12-31T23:59:59.999"])
        #expect(value(133, "blob") == ["data": ""])
        #expect(value(133, "flag") == ["bool": "false"])
        #expect(value(134, "flag") == ["bool": "true"])
        #expect(value(134, "blob") == ["data": "AAEC/w=="])
        #expect(value(134, "amount") == ["str": "-123456789012345678.90123456789"])
        #expect(value(135, "token") == ["str": "3F2504E0-4F89-11D3-9A0C-0305E82C3301"])
        #expect(value(135, "link") == ["str": "https://example.com/a%20b?q=1#f"])
    }

    @Test func weReadWhatPlistlibWritesBack() throws {
        let directory = try TemporaryDirectory()
        let ours = directory.file("ours.plist")
        let theirs = directory.file("theirs.plist")
        let contents = Self.edgeStore()
        try format.write(contents, to: ours)
        let output = try Python.run(Self.rewriteScript, [ours.path, theirs.path])
        #expect(output.status == 0, "plistlib failed: \(output.stderr)")
        let rewritten = try Data(contentsOf: theirs)
        #expect(rewritten != (try Data(contentsOf: ours)), "plistlib lays the file out differently, so this test reads a file Strata did not write")
        let back = try format.read(from: theirs)
        #expect(back.metadata == contents.metadata)
        #expect(back.keySequences == contents.keySequences)
        #expect(back.recordCount == contents.recordCount)
        // plistlib keeps dates to the microsecond: the milliseconds survive, the last bits of the
        // double may not. Everything else comes back exactly.
        for (entity, records) in contents.records {
            for (id, record) in records {
                guard var read = back.records[entity]?[id] else {
                    Issue.record("\(id) is missing after plistlib rewrote the file")
                    continue
                }
                if case .date(let original)? = record.attributes["when"], case .date(let date)? = read.attributes["when"] {
                    #expect(ISO8601.string(from: date) == ISO8601.string(from: original))
                    read.attributes["when"] = .date(original)
                }
                #expect(read == record)
            }
        }
    }

    /// A store made by Python alone, with plistlib's choices of integer sizes and string kinds.
    static let writeScript = #"""
    import datetime, json, math, plistlib, sys
    meta = json.load(open(sys.argv[1]))
    item = lambda key, **values: {"@id": key, "@version": 1, **values}
    store = {
        "metadata": {
            "formatVersion": 1, "storeIdentifier": meta["id"], "storeType": "binary",
            "modelName": "BinarySink", "modelVersionHash": meta["hash"],
            "entityVersionHashes": meta["entityHashes"], "schema": meta["schema"],
            "custom": {"written by": "plistlib"}, "keySequences": {"Item": 6, "Owner": 1},
        },
        "objects": {
            "Owner": [{"@id": 1, "@version": 4, "name": "Grace", "items": [1, 2, 3], "assets": []}],
            "Item": [
                item(1, text="naïve 😀 𝄞", small=-32768, medium=2147483647, large=-9223372036854775808, owner=1, tags=[]),
                item(2, large=9223372036854775807, ratio=float("nan"), level=0.5, flag=True, owner=1, next="Item/p77"),
                item(3, when=datetime.datetime(1969, 12, 31, 23, 59, 59, 999000), blob=b"", owner=1),
                item(4, when=datetime.datetime(2150, 6, 1, 12, 0, 0, 1000), blob=b"\x00\xff", ratio=-float("inf"), amount="0.000000000000000000000000000001"),
                item(5, token="3f2504e0-4f89-11d3-9a0c-0305e82c3301", link="urn:isbn:0451450523", large=255, medium=65536),
                item(6, text="", ratio=3, amount=42),
            ],
        },
    }
    with open(sys.argv[2], "wb") as f:
        plistlib.dump(store, f, fmt=plistlib.FMT_BINARY)
    """#

    func pythonStore(_ script: String = writeScript, in directory: TemporaryDirectory) throws -> URL {
        let schema = Fixtures.schema
        let meta: [String: Any] = [
            "id": Fixtures.storeIdentifier, "hash": schema.versionHash, "entityHashes": schema.entityVersionHashes,
            "schema": schema.jsonString,
        ]
        let metaURL = directory.file("meta.json")
        try JSONSerialization.data(withJSONObject: meta).write(to: metaURL)
        let url = directory.file("python.plist")
        let output = try Python.run(script, [metaURL.path, url.path])
        #expect(output.status == 0, "the Python script failed: \(output.stderr)")
        return url
    }

    @Test func weReadStoresPlistlibWrites() throws {
        let directory = try TemporaryDirectory()
        let contents = try format.read(from: pythonStore(in: directory))
        #expect(contents.metadata.custom == ["written by": "plistlib"])
        #expect(contents.metadata.modelVersionHash == Fixtures.schema.versionHash)
        #expect(contents.keySequences == ["Item": 6, "Owner": 1])
        let owner = Fixtures.id("Owner", 1)
        func item(_ key: Int64) -> StoreRecord? { contents.record(Fixtures.id("Item", key)) }
        #expect(contents.record(owner) == Fixtures.record(
            "Owner", 1, version: 4, ["name": .string("Grace")],
            toMany: ["items": [Fixtures.id("Item", 1), Fixtures.id("Item", 2), Fixtures.id("Item", 3)], "assets": []]))
        #expect(item(1) == Fixtures.record(
            "Item", 1, ["text": .string("naïve 😀 𝄞"), "small": .integer(-32768), "medium": .integer(2_147_483_647), "large": .integer(.min)],
            toOne: ["owner": owner], toMany: ["tags": []]))
        #expect(item(2) == Fixtures.record(
            "Item", 2, ["large": .integer(.max), "ratio": .double(.nan), "level": .float(0.5), "flag": .bool(true)],
            toOne: ["owner": owner, "next": Fixtures.id("Item", 77)]))
        guard case .date(let before1970)? = item(3)?.attributes["when"], case .date(let after2100)? = item(4)?.attributes["when"] else {
            Issue.record("the dates did not load: \(String(describing: item(3))) \(String(describing: item(4)))")
            return
        }
        #expect(ISO8601.string(from: before1970) == "1969-12-31T23:59:59.999Z")
        #expect(ISO8601.string(from: after2100) == "2150-06-01T12:00:00.001Z")
        #expect(item(3)?.attributes["blob"] == .binary(Data()))
        #expect(item(4)?.attributes["blob"] == .binary(Data([0, 255])))
        #expect(item(4)?.attributes["ratio"] == .double(-.infinity))
        #expect(item(4)?.attributes["amount"] == .decimal(Decimal(string: "0.000000000000000000000000000001")!))
        #expect(item(5) == Fixtures.record(
            "Item", 5, ["token": .uuid(UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!), "link": .uri(URL(string: "urn:isbn:0451450523")!),
                        "large": .integer(255), "medium": .integer(65_536)]))
        // Python integers where the model has a double or a decimal are read as those.
        #expect(item(6) == Fixtures.record("Item", 6, ["text": .string(""), "ratio": .double(3), "amount": .decimal(42)]))
    }

    @Test func plistlibsSixteenByteIntegersBeyondInt64AreRefused() throws {
        let directory = try TemporaryDirectory()
        let script = Self.writeScript.replacingOccurrences(of: "large=255", with: "large=2**63")
        let url = try pythonStore(script, in: directory)
        let error = try #require(throws: StrataError.self) { try format.read(from: url) }
        #expect(error.code == .corruptStore)
        #expect(error.message.hasPrefix("a 16-byte integer above the 64-bit range (Strata integers are int64; Python's plistlib writes integers from 2^63 to 2^64-1 this way) (at byte offset "))
        #expect(error.file == url.path)
    }
}
