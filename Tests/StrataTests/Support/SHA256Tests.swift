import Strata
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    /// The test vectors of FIPS 180-4 (NIST's "SHA256ShortMsg" examples and the long message).
    @Test("FIPS 180-4 test vectors", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        // The 448-bit message: 56 bytes, so the padding needs a second block.
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        // The 896-bit message.
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func fipsVectors(_ message: String, _ digest: String) {
        #expect(SHA256.hexDigest(message) == digest)
    }

    @Test("one million 'a's, in one piece and in 1000-byte pieces")
    func oneMillionA() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(SHA256.hexDigest(String(repeating: "a", count: 1_000_000)) == expected)

        var hasher = SHA256()
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(piece) }
        #expect(hex(hasher.finalize()) == expected)
    }

    /// Lengths around the 64-byte block and the 56-byte padding limit, where an off-by-one in
    /// padding would show. Digests from coreutils' `sha256sum`.
    @Test("messages of 55, 56, 63, 64, 65, 119 and 120 bytes", arguments: [
        (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
        (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
        (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
    ])
    func blockBoundaries(_ length: Int, _ digest: String) {
        #expect(SHA256.hexDigest(String(repeating: "a", count: length)) == digest)
    }

    @Test("a string is hashed as its UTF-8 bytes")
    func utf8() {
        #expect(SHA256.hexDigest("héllo, wörld 👋") == "b497476f781861ee04b761526a5c5aad5d2f4b2ad09d6d361d8ab74d14cfcafa")
    }

    @Test("the digest is 32 bytes; the hex form is 64 lower-case digits")
    func digestShape() {
        var hasher = SHA256()
        hasher.update("abc")
        let digest = hasher.finalize()
        #expect(digest.count == 32)
        #expect(digest.prefix(4) == [0xBA, 0x78, 0x16, 0xBF])
        let text = SHA256.hexDigest("abc")
        #expect(text.count == 64)
        #expect(text.allSatisfy { "0123456789abcdef".contains($0) })
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
