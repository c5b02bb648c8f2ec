import Foundation
import Strata
import StrataBinaryPlist
import StrataTestKit
import Testing

/// Damaged, truncated and hostile files: every one is refused with `corruptStore` naming what is
/// wrong and where; none crashes, loops or allocates beyond the file's size.
@Suite struct BinaryPlistReaderTests {
    let format = Fixtures.format

    /// The error decoding `bytes` as a store throws, or nil when it decodes.
    func storeError<Bytes: Collection>(_ bytes: Bytes) -> StrataError? where Bytes.Element == UInt8 {
        do {
            _ = try format.decode(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// The message with every byte offset replaced by N.
    func normalized(_ error: StrataError?) -> String? {
        guard let error else { return nil }
        #expect(error.code == .corruptStore)
        return error.message.replacing(/byte offset \d+/, with: "byte offset N")
    }

    // MARK: - Truncation and mutation

    @Test func everyTruncationIsRefused() throws {
        let bytes = try format.encode(Fixtures.smallStore())
        for length in 0..<bytes.count {
            let prefix = bytes[..<length]
            #expect(storeError(prefix)?.code == .corruptStore, "a file truncated to \(length) bytes")
            #expect(throws: StrataError.self) { try format.decodeMetadata(prefix) }
            #expect(throws: StrataError.self) { try BinaryPlistValue.decode(prefix) }
        }
        let empty = try #require(storeError([UInt8]()))
        #expect(empty.message == "not a readable binary property list: the file does not start with 'bplist00' (it starts with '', 0 bytes in all) (at byte offset 0)")
        #expect(storeError(bytes[..<41])?.message == "not a readable binary property list: the file is 41 bytes long, too short for a header, one object and the 32-byte trailer; it is truncated (at byte offset 41)")
    }

    @Test func everyCutOfTheObjectsIsRefused() throws {
        // The objects cut short while the offset table and the trailer are kept (and the trailer
        // pointed at the moved table): offsets and lengths now run past the objects.
        let bytes = try format.encode(Fixtures.smallStore())
        let tableOffset = Int(bytes[(bytes.count - 8)...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        for length in 9..<tableOffset {
            var cut = Array(bytes[..<length]) + bytes[tableOffset...]
            let trailer = cut.count - 32
            cut.replaceSubrange((trailer + 24)..<(trailer + 32), with: PlistBuilder.bigEndian(UInt64(length)))
            #expect(storeError(cut)?.code == .corruptStore, "objects cut to \(length) bytes")
            #expect(throws: StrataError.self) { try BinaryPlistValue.decode(cut) }
        }
    }

    @Test func seededRandomMutationsNeverCrash() throws {
        let original = try format.encode(Fixtures.smallStore())
        var generator = SeededGenerator(seed: 0x5EED_B915)
        let interesting: [UInt8] = [0x00, 0xFF, 0x0F, 0x7F, 0x80, 0x13, 0x14, 0x1F, 0x4F, 0x5F, 0x6F, 0xAF, 0xDF, 0xD0, 0xA0, 0x33]
        var refused = 0
        var accepted = 0
        for round in 0..<4_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                // Half the mutations hit the offset table and trailer, where one byte matters most.
                let tableStart = max(8, bytes.count - 32 - 200)
                let position = Bool.random(using: &generator)
                    ? Int.random(in: 0..<bytes.count, using: &generator)
                    : Int.random(in: tableStart..<bytes.count, using: &generator)
                bytes[position] = Bool.random(using: &generator)
                    ? interesting.randomElement(using: &generator)!
                    : UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? BinaryPlistValue.decode(bytes)
            _ = try? format.decodeMetadata(bytes)
            do {
                let contents = try format.decode(bytes)
                accepted += 1
                // A file the reader accepts is a store the writer can write again.
                let again = try format.decode(format.encode(contents))
                #expect(again.records == contents.records, "round \(round)")
            } catch {
                #expect(error.code == .corruptStore, "round \(round): \(error)")
                refused += 1
            }
        }
        #expect(refused + accepted == 4_000)
        #expect(refused > 3_000)
    }

    // MARK: - Cycles, sharing, depth

    @Test func aTopDictionaryThatContainsItselfIsCyclic() throws {
        let builder = PlistBuilder()
        let top = builder.reserve()
        builder.set(top, builder.dictionary([("metadata", top), ("objects", top)]))
        let bytes = builder.build(top: top)
        #expect(storeError(bytes)?.message == "the metadata is the container at byte offset 8, which contains it: the structure is cyclic (at byte offset 8)")
        #expect(throws: StrataError.self) { try BinaryPlistValue.decode(bytes) }
        #expect(throws: StrataError.self) { try format.decodeMetadata(bytes) }
    }

    @Test func anArrayThatContainsItselfIndirectlyIsCyclic() throws {
        let builder = PlistBuilder()
        let first = builder.reserve()
        let second = builder.add(builder.array([first]))
        builder.set(first, builder.array([second]))
        let error = try #require(throws: StrataError.self) { try BinaryPlistValue.decode(builder.build(top: first)) }
        #expect(error.message == "the container at byte offset 8 contains itself: the structure is cyclic (at byte offset 8)")
    }

    /// A valid store's metadata as a tree, to build hostile stores around.
    func metadataTree() throws -> BinaryPlistValue {
        try #require(try BinaryPlistValue.decode(format.encode(Fixtures.contents([])))["metadata"])
    }

    @Test func aRecordWhoseToManyIsItsOwnEntityArrayIsCyclic() throws {
        let builder = PlistBuilder()
        let metadata = builder.add(try metadataTree())
        let records = builder.reserve()
        let record = builder.add(builder.dictionary([("@id", builder.add(.int(1))), ("@version", builder.add(.int(1))), ("tags", records)]))
        builder.set(records, builder.array([record]))
        let objects = builder.add(builder.dictionary([("Item", records)]))
        let top = builder.add(builder.dictionary([("metadata", metadata), ("objects", objects)]))
        let recordsOffset = builder.offset(of: records)
        #expect(storeError(builder.build(top: top))?.message
            == "'tags' of record 0 of 'Item' (the dictionary at byte offset \(builder.offset(of: record))) is the container at byte offset \(recordsOffset), which contains it: the structure is cyclic (at byte offset \(recordsOffset))")
    }

    @Test func sharedContainersCannotAmplifyTheFile() throws {
        // 3,000 records that all share one 3,000-member to-many array: a 180 KB file that would
        // decode into 9 million references.
        let builder = PlistBuilder()
        let metadata = builder.add(try metadataTree())
        let one = builder.add(.int(1))
        let members = builder.add(builder.array(Array(repeating: one, count: 3_000)))
        var recordRefs: [Int] = []
        for key in 1...3_000 {
            recordRefs.append(builder.add(builder.dictionary([("@id", builder.add(.int(Int64(key)))), ("@version", one), ("tags", members)])))
        }
        let objects = builder.add(builder.dictionary([("Item", builder.add(builder.array(recordRefs)))]))
        let top = builder.add(builder.dictionary([("metadata", metadata), ("objects", objects)]))
        let bytes = builder.build(top: top)
        #expect(bytes.count < 200_000)
        let message = try #require(normalized(storeError(bytes)))
        #expect(message.hasPrefix("'tags' of record "))
        #expect(message.hasSuffix("makes the file refer to its objects more often than a file of \(bytes.count) bytes can (containers are shared or nested in a loop) (at byte offset N)"))
        let treeError = try #require(throws: StrataError.self) { try BinaryPlistValue.decode(bytes) }
        #expect(treeError.message.hasPrefix("the file refers to its objects more often than a file of \(bytes.count) bytes can"))
    }

    @Test func deepNestingStopsAtTheLimit() throws {
        let builder = PlistBuilder()
        var inner = builder.add(builder.array([]))
        for _ in 0..<10_000 { inner = builder.add(builder.array([inner])) }
        let error = try #require(throws: StrataError.self) { try BinaryPlistValue.decode(builder.build(top: inner)) }
        #expect(normalized(error) == "containers nest more than 256 deep (at byte offset N)")
        // The store reader expects at most five levels: a nested array where a record belongs is a type error.
        let store = PlistBuilder()
        let metadata = store.add(try metadataTree())
        let objects = store.add(store.dictionary([("Item", store.add(store.array([store.add(store.array([]))])))]))
        let top = store.add(store.dictionary([("metadata", metadata), ("objects", objects)]))
        #expect(normalized(storeError(store.build(top: top))) == "record 0 of 'Item' should be a dictionary but is an array of 0 (at byte offset N)")
    }

    // MARK: - Counts, offsets and the trailer

    /// A file with one object (`bytes`) as its top object.
    func single(_ bytes: [UInt8], _ trailer: PlistBuilder.Trailer = .init()) -> [UInt8] {
        let builder = PlistBuilder()
        let top = builder.add(bytes)
        return builder.build(top: top, trailer)
    }

    func treeError(_ bytes: [UInt8]) -> String? {
        do {
            _ = try BinaryPlistValue.decode(bytes)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func hugeCountsAreRefusedBeforeAnyAllocation() throws {
        let huge = PlistBuilder.bigEndian(Int64.max)
        #expect(treeError(single([0xAF, 0x13] + huge)) == "an array says it has 9223372036854775807 elements, more than the 0 bytes left before the offset table can hold; the file is truncated or damaged (at byte offset 8)")
        #expect(treeError(single([0xDF, 0x13] + huge + [0, 0])) == "a dictionary says it has 9223372036854775807 elements, more than the 2 bytes left before the offset table can hold; the file is truncated or damaged (at byte offset 8)")
        #expect(treeError(single([0x4F, 0x13] + huge)) == "data says it has 9223372036854775807 bytes, more than the 0 bytes left before the offset table can hold; the file is truncated or damaged (at byte offset 8)")
        #expect(treeError(single([0x5F, 0x12, 0xFF, 0xFF, 0xFF, 0xFF])) == "an ASCII string says it has 4294967295 bytes, more than the 0 bytes left before the offset table can hold; the file is truncated or damaged (at byte offset 8)")
        #expect(treeError(single([0x6F, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0])) == "a UTF-16 string says it has 4611686018427387904 elements, more than the 0 bytes left before the offset table can hold; the file is truncated or damaged (at byte offset 8)")
        #expect(treeError(single([0xAF, 0x13] + PlistBuilder.bigEndian(Int64(-1)))) == "an array with a negative length -1 (at byte offset 9)")
        #expect(treeError(single([0xAF, 0x23, 0, 0, 0, 0, 0, 0, 0, 0])) == "an array whose length is not an integer of 1, 2, 4 or 8 bytes (marker 0x23) (at byte offset 9)")
        #expect(treeError(single([0xA3, 0x00, 0x00])) == "an array needs 6 bytes but only 2 remain before the offset table; the file is truncated or damaged (at byte offset 8)")
        #expect(treeError(single([0x13, 0x01])) == "an integer needs 8 bytes but only 1 remain before the offset table; the file is truncated or damaged (at byte offset 8)")
        let trailerCount = single([0x08], .init(objectCount: UInt64.max))
        #expect(treeError(trailerCount) == "not a readable binary property list: the trailer says the file has 18446744073709551615 objects, but the 4 bytes of its offset table hold 1 offsets of 4 bytes (at byte offset 21)")
    }

    @Test func trailerFieldsAreChecked() throws {
        #expect(treeError(single([0x08], .init(offsetSize: 3))) == "not a readable binary property list: the trailer gives an offset size of 3 bytes; it must be 1, 2, 4 or 8 (the file is truncated or damaged) (at byte offset 19)")
        #expect(treeError(single([0x08], .init(refSize: 0))) == "not a readable binary property list: the trailer gives an object reference size of 0 bytes; it must be 1, 2, 4 or 8 (at byte offset 20)")
        #expect(treeError(single([0x08], .init(topObject: 1))) == "not a readable binary property list: the trailer names object 1 as the top object, but there are only 1 (at byte offset 29)")
        #expect(treeError(single([0x08], .init(tableOffset: 4))) == "not a readable binary property list: the trailer puts the offset table at byte 4, outside the 9..<13 the objects and table can occupy (at byte offset 37)")
        #expect(treeError(single([0x08], .init(tableOffset: UInt64.max))) == "not a readable binary property list: the trailer puts the offset table at byte 18446744073709551615, outside the 9..<13 the objects and table can occupy (at byte offset 37)")
        #expect(treeError(single([0x08], .init(objectCount: 0))) == "not a readable binary property list: the trailer says the file has 0 objects, but the 4 bytes of its offset table hold 1 offsets of 4 bytes (at byte offset 21)")
        // An offset that points into the offset table itself.
        var bytes = single([0x08])
        bytes.replaceSubrange(9..<13, with: PlistBuilder.bigEndian(UInt32(9)))
        #expect(treeError(bytes) == "the offset table puts object 0 at byte 9, outside the objects (bytes 8..<9) (at byte offset 9)")
        // A container reference past the last object.
        #expect(treeError(single([0xA1, 0x00, 0x07])) == "a reference to object 7 in the container at byte offset 8, but the file has only 1 objects (at byte offset 9)")
    }

    @Test func malformedScalarsAreRefused() throws {
        #expect(treeError(single([0x70])) == "unknown object marker 0x70 (at byte offset 8)")
        #expect(treeError(single([0x0F])) == "unknown object marker 0xF (at byte offset 8)")
        #expect(treeError(single([0x21, 0, 0])) == "a real of 2 bytes; only 4- and 8-byte reals exist (at byte offset 8)")
        #expect(treeError(single([0x15] + Array(repeating: 0, count: 32))) == "an integer of 32 bytes; integers have 1, 2, 4, 8 or 16 bytes (at byte offset 8)")
        #expect(treeError(single([0x53, 0x61, 0xE9, 0x62])) == "an ASCII string holds the byte 0xE9, which is not ASCII (at byte offset 10)")
        #expect(treeError(single([0x61, 0xD8, 0x3D])) == "a UTF-16 string holds an unpaired surrogate, which is not valid UTF-16 (at byte offset 8)")
        let big = [0x14] + PlistBuilder.bigEndian(UInt64(0)) + PlistBuilder.bigEndian(UInt64(1) << 63)
        #expect(treeError(single(big)) == "a 16-byte integer above the 64-bit range (Strata integers are int64; Python's plistlib writes integers from 2^63 to 2^64-1 this way) (at byte offset 8)")
        let negative = [0x14] + PlistBuilder.bigEndian(UInt64.max) + PlistBuilder.bigEndian(Int64(-5))
        #expect(try BinaryPlistValue.decode(single(negative)) == .int(-5))
        let small = [0x14] + PlistBuilder.bigEndian(UInt64(0)) + PlistBuilder.bigEndian(Int64.max)
        #expect(try BinaryPlistValue.decode(single(small)) == .int(.max))
        #expect(try BinaryPlistValue.decode(single([0x11, 0xFF, 0xFF])) == .int(65_535))
        #expect(try BinaryPlistValue.decode(single([0x12, 0xFF, 0xFF, 0xFF, 0xFF])) == .int(4_294_967_295))
    }

    @Test func utf16StringsAreTranscodedAndUnpairedSurrogatesRefused() throws {
        /// A UTF-16 string object of `units`.
        func utf16(_ units: [UInt16]) -> [UInt8] {
            [0x60 | UInt8(min(units.count, 15))] + (units.count >= 15 ? [0x10, UInt8(units.count)] : [])
                + units.flatMap { PlistBuilder.bigEndian($0) }
        }
        for text in ["é", "ß€", "😀", "a😀b", "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}", "nul\u{0}", String(repeating: "ünï😀", count: 40)] {
            #expect(try BinaryPlistValue.decode(single(utf16(Array(text.utf16)))) == .string(text))
        }
        let unpaired = "a UTF-16 string holds an unpaired surrogate, which is not valid UTF-16 (at byte offset 8)"
        #expect(treeError(single(utf16([0xDC00, 0x61]))) == unpaired, "a low surrogate first")
        #expect(treeError(single(utf16([0xD83D, 0x61]))) == unpaired, "a high surrogate before a letter")
        #expect(treeError(single(utf16([0xD83D, 0xD83D, 0xDE00]))) == unpaired, "two high surrogates")
        #expect(treeError(single(utf16([0x61, 0xDE00]))) == unpaired, "a low surrogate last")
    }

    // MARK: - Stores that do not fit their model

    /// The small store as a tree, changed at `path`, then written and read as a store.
    func storeError(setting path: [TreePath], to value: BinaryPlistValue?) throws -> String? {
        let tree = try BinaryPlistValue.decode(format.encode(Fixtures.smallStore()))
        return normalized(storeError(PlistBuilder.file(tree.setting(path, to: value))))
    }

    @Test func theSmallStoreRebuiltByHandIsValid() throws {
        let tree = try BinaryPlistValue.decode(format.encode(Fixtures.smallStore()))
        #expect(sameContents(try format.decode(PlistBuilder.file(tree)), Fixtures.smallStore()))
    }

    @Test func wrongTypesAreRefused() throws {
        let item: [TreePath] = ["objects", "Item", 0]
        #expect(try storeError(setting: item + ["small"], to: .string("7"))
            == "'small' of record 0 of 'Item' (the dictionary at byte offset N) should be an integer (the model says int16) but is a string (at byte offset N)")
        #expect(try storeError(setting: item + ["small"], to: .int(40_000))
            == "'small' of record 0 of 'Item' (the dictionary at byte offset N) is 40000, outside the int16 range -32768...32767 (at byte offset N)")
        #expect(try storeError(setting: item + ["text"], to: .int(1))
            == "'text' of record 0 of 'Item' (the dictionary at byte offset N) should be a string (the model says string) but is the integer 1 (at byte offset N)")
        #expect(try storeError(setting: item + ["when"], to: .real(1))
            == "'when' of record 0 of 'Item' (the dictionary at byte offset N) should be a date (the model says date) but is the real 1.0 (at byte offset N)")
        #expect(try storeError(setting: item + ["blob"], to: .string(""))
            == "'blob' of record 0 of 'Item' (the dictionary at byte offset N) should be data (the model says binary) but is a string (at byte offset N)")
        #expect(try storeError(setting: item + ["flag"], to: .int(1))
            == "'flag' of record 0 of 'Item' (the dictionary at byte offset N) should be a boolean (the model says bool) but is the integer 1 (at byte offset N)")
        #expect(try storeError(setting: item + ["amount"], to: .string("12abc"))
            == "'amount' of record 0 of 'Item' (the dictionary at byte offset N) is \"12abc\", not a decimal number like \"12.50\" with at most 38 significant digits (at byte offset N)")
        #expect(try storeError(setting: item + ["token"], to: .string("not-a-uuid"))
            == "'token' of record 0 of 'Item' (the dictionary at byte offset N) is \"not-a-uuid\", not a UUID like \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\" (at byte offset N)")
        #expect(try storeError(setting: item + ["link"], to: .string(""))
            == "'link' of record 0 of 'Item' (the dictionary at byte offset N) is \"\", not a URI (at byte offset N)")
        #expect(try storeError(setting: item + ["@id"], to: .string("1"))
            == "the '@id' of record 0 of 'Item' (the dictionary at byte offset N) should be an integer but is a string (at byte offset N)")
        #expect(try storeError(setting: item + ["tags"], to: .int(1))
            == "'tags' of record 0 of 'Item' (the dictionary at byte offset N) should be an array but is the integer 1 (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Item"], to: .dictionary([:]))
            == "the records of 'Item' should be an array but is a dictionary of 0 (at byte offset N)")
        // A UUID may also be 16 bytes of data.
        let tree = try BinaryPlistValue.decode(format.encode(Fixtures.smallStore()))
        let bytes: [UInt8] = [0x3F, 0x25, 0x04, 0xE0, 0x4F, 0x89, 0x11, 0xD3, 0x9A, 0x0C, 0x03, 0x05, 0xE8, 0x2C, 0x33, 0x01]
        let contents = try format.decode(PlistBuilder.file(tree.setting(item + ["token"], to: .data(bytes))))
        #expect(sameContents(contents, Fixtures.smallStore()))
    }

    @Test func unknownEntitiesAndKeysAreRefused() throws {
        #expect(try storeError(setting: ["objects", "Gadget"], to: .array([]))
            == "the 'objects' dictionary has records of 'Gadget', an entity the stored model does not have (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Items"], to: .array([]))
            == "the 'objects' dictionary has records of 'Items', an entity the stored model does not have; did you mean 'Item'? (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Asset"], to: .array([]))
            == "the 'objects' dictionary has records of 'Asset', which is abstract and has no instances of its own (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Item", 0, "colour"], to: .string("red"))
            == "record 0 of 'Item' (the dictionary at byte offset N) has the key 'colour', which 'Item' does not have (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Item", 0, "txet"], to: .string("x"))
            == "record 0 of 'Item' (the dictionary at byte offset N) has the key 'txet', which 'Item' does not have; did you mean 'text'? (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Item", 0, "scratch"], to: .string("x"))
            == "record 0 of 'Item' (the dictionary at byte offset N) has a value for 'scratch', a transient attribute, which no store keeps (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Item", 0, "@id"], to: nil)
            == "record 0 of 'Item' (the dictionary at byte offset N) has no '@id' (its primary key) (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Item", 0, "@version"], to: nil)
            == "record 0 of 'Item' (the dictionary at byte offset N) has no '@version' (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Item", 1, "@id"], to: .int(1))
            == "'Item' has two records with primary key 1 (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Photo", 0, "@id"], to: .int(1))
            == "primary key 1 is used by a 'Document' and a 'Photo' record; keys are unique within the 'Asset' hierarchy (at byte offset N)")
        #expect(try storeError(setting: ["extra"], to: .int(1))
            == "the top dictionary has an unknown key 'extra'; a Strata binary store has only 'metadata' and 'objects' (at byte offset N)")
        #expect(try storeError(setting: ["objects"], to: nil)
            == "the top dictionary has no 'objects'; this is not a Strata binary store (at byte offset N)")
        #expect(try storeError(setting: ["metadata", "storeIdentifier"], to: nil)
            == "the metadata has no 'storeIdentifier' (at byte offset N)")
        #expect(try storeError(setting: ["metadata", "modelHash"], to: .string("x"))
            == "the metadata has an unknown key 'modelHash'; did you mean 'modelName'? (at byte offset N)")
        #expect(try storeError(setting: ["metadata", "formatVersion"], to: .int(2))
            == "the store was written in layout version 2 by a newer Strata; this one reads version 1 (at byte offset N)")
        #expect(try storeError(setting: ["metadata", "keySequences", "Gadget"], to: .int(2))
            == "the metadata has a key sequence for 'Gadget', an entity the stored model does not have (at byte offset N)")
        #expect(try storeError(setting: ["metadata", "custom", "n"], to: .int(2))
            == "the value of 'n' in the metadata's 'custom' should be a string but is the integer 2 (at byte offset N)")
        #expect(try storeError(setting: ["metadata", "modelVersionHash"], to: .string("0123"))
            == "the model stored in the metadata does not have the model and entity hashes the metadata gives; the file was altered (at byte offset N)")
        #expect(try storeError(setting: ["metadata", "schema"], to: .string("{"))?.hasPrefix("the model stored in the metadata does not load: ") == true)
        // A model nested far beyond the JSON parser's limit is an error, not a stack overflow.
        #expect(try storeError(setting: ["metadata", "schema"], to: .string(String(repeating: "[", count: 100_000)))?
            .hasPrefix("the model stored in the metadata does not load: ") == true)
    }

    @Test func badReferencesAreRefused() throws {
        let item: [TreePath] = ["objects", "Item", 0]
        #expect(try storeError(setting: item + ["owner"], to: .int(99))
            == "Item/p1.owner refers to 'Owner' 99, which is not in the file: a dangling reference")
        #expect(try storeError(setting: item + ["tags"], to: .array([.int(1), .int(5)]))
            == "Item/p1.tags refers to 'Tag' 5, which is not in the file: a dangling reference")
        #expect(try storeError(setting: item + ["owner"], to: .string("Tag/p1"))
            == "'owner' of record 0 of 'Item' (the dictionary at byte offset N) refers to \"Tag/p1\", which is not a 'Owner' (at byte offset N)")
        #expect(try storeError(setting: item + ["owner"], to: .string("Gadget/p1"))
            == "'owner' of record 0 of 'Item' (the dictionary at byte offset N) refers to \"Gadget/p1\", but the model has no entity 'Gadget' (at byte offset N)")
        #expect(try storeError(setting: item + ["owner"], to: .string("Owner/1"))
            == "'owner' of record 0 of 'Item' (the dictionary at byte offset N) is \"Owner/1\", not a reference like 'Entity/p12' (at byte offset N)")
        #expect(try storeError(setting: item + ["owner"], to: .string("strata://"))
            == "'owner' of record 0 of 'Item' (the dictionary at byte offset N) is \"strata://\", not an object URI like 'strata://<store UUID>/Entity/p12' (at byte offset N)")
        #expect(try storeError(setting: item + ["owner"], to: .bool(true))
            == "'owner' of record 0 of 'Item' (the dictionary at byte offset N) should be a reference (a primary key, 'Entity/p12' or an object URI) but is the boolean true (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Owner", 0, "assets"], to: .array([.int(1)]))
            == "'assets' of record 0 of 'Owner' (the dictionary at byte offset N) refers to 'Asset' 1, but 'Asset' is abstract: a reference to one of its subentities names it ('Entity/p1') (at byte offset N)")
        #expect(try storeError(setting: ["objects", "Owner", 0, "assets"], to: .array([.string("Asset/p1")]))
            == "'assets' of record 0 of 'Owner' (the dictionary at byte offset N) refers to \"Asset/p1\", but 'Asset' is abstract and has no instances (at byte offset N)")
        // Named references may dangle (the noAction delete rule leaves such references), and may
        // point into another store.
        let contents = try format.decode(PlistBuilder.file(
            try BinaryPlistValue.decode(format.encode(Fixtures.smallStore()))
                .setting(item + ["owner"], to: .string("strata://OTHER-STORE/Owner/p4"))
                .setting(item + ["tags"], to: .array([.string("Tag/p1"), .string("Tag/p8")]))))
        let record = try #require(contents.record(Fixtures.id("Item", 1)))
        #expect(record.toOne["owner"] == Fixtures.id("Owner", 4, store: "OTHER-STORE"))
        #expect(record.toMany["tags"] == [Fixtures.id("Tag", 1), Fixtures.id("Tag", 8)])
    }

    @Test func notABinaryPlist() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.plist")
        try Data("<?xml version=\"1.0\"?><plist></plist>".utf8).write(to: url)
        let error = try #require(throws: StrataError.self) { try format.read(from: url) }
        #expect(error.description == "\(url.path): not a readable binary property list: the file does not start with 'bplist00' (it starts with '<?xml ve', 36 bytes in all) (at byte offset 0)")
        let missing = try #require(throws: StrataError.self) { try format.read(from: directory.file("missing.plist")) }
        #expect(missing.code == .storeIO)
        #expect(missing.message == "cannot open '\(directory.file("missing.plist").path)': no such file")
        let folder = try #require(throws: StrataError.self) { try format.read(from: directory.url) }
        #expect(folder.message == "cannot read '\(directory.url.path)': it is not a regular file")
        // Any other property list is refused for what it lacks.
        let other = PlistBuilder.file(.dictionary(["CFBundleName": .string("App")]))
        #expect(normalized(storeError(other)) == "the top dictionary has an unknown key 'CFBundleName'; a Strata binary store has only 'metadata' and 'objects' (at byte offset N)")
        #expect(normalized(storeError(PlistBuilder.file(.array([])))) == "the top object should be a dictionary but is an array of 0 (at byte offset N)")
    }
}
