internal import CLibXML2

/// The layout's element and attribute names as one parser interns them, in flat tables the
/// reader searches for every start tag: SAX2 hands out names from the parser's dictionary, so a
/// name matches when its pointer does.
///
/// Plain memory, freed by ``deallocate()``.
struct XMLNameTables {
    typealias Element = XMLStoreLayout.Element
    typealias Attribute = XMLStoreLayout.Attribute

    /// Each element's children and each element's attributes, `stride` entries per element,
    /// every list ending with a nil name.
    private typealias Table<Value> = UnsafeMutablePointer<(name: UnsafePointer<xmlChar>?, value: Value)>
    private let children: Table<Element>
    private let attributes: Table<Attribute>
    private static let stride = 8
    /// `<database>`, the root.
    let database: UnsafePointer<xmlChar>

    /// Interns the layout's names in `dictionary`.
    init(_ dictionary: xmlDictPtr?) {
        func intern(_ name: StaticString) -> UnsafePointer<xmlChar> { xmlDictLookup(dictionary, name.utf8Start, -1)! }
        database = intern(Element.database.name)
        let elementCount = Element.allCases.count
        children = .allocate(capacity: elementCount * Self.stride)
        children.initialize(repeating: (nil, .database), count: elementCount * Self.stride)
        attributes = .allocate(capacity: elementCount * Self.stride)
        attributes.initialize(repeating: (nil, .entity), count: elementCount * Self.stride)
        for element in Element.allCases {
            precondition(element.children.count < Self.stride && element.attributes.count < Self.stride)
            for (index, child) in element.children.enumerated() {
                children[element.rawValue * Self.stride + index] = (intern(child.name), child)
            }
            for (index, attribute) in element.attributes.enumerated() {
                attributes[element.rawValue * Self.stride + index] = (intern(attribute.name), attribute)
            }
        }
    }

    func deallocate() {
        children.deallocate()
        attributes.deallocate()
    }

    /// The child of `parent` named `name`, if it may have one.
    @inline(__always)
    func child(named name: UnsafePointer<xmlChar>, of parent: Element) -> Element? {
        Self.find(name, in: children, of: parent)
    }

    /// The XML attribute of `element` named `name`, if it takes one.
    @inline(__always)
    func attribute(named name: UnsafePointer<xmlChar>, of element: Element) -> Attribute? {
        Self.find(name, in: attributes, of: element)
    }

    @inline(__always)
    private static func find<Value>(_ name: UnsafePointer<xmlChar>, in table: Table<Value>, of element: Element) -> Value? {
        var entry = table + element.rawValue * stride
        while let candidate = entry.pointee.name {
            if candidate == name { return entry.pointee.value }
            entry += 1
        }
        return nil
    }
}

/// The text of the current element, gathered from the pieces libxml2 hands over, in memory
/// reused from element to element. Freed by ``deallocate()``.
struct XMLTextBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 1024) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    func deallocate() { base.deallocate() }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    mutating func removeAll() { count = 0 }

    @inline(__always)
    mutating func append(_ bytes: UnsafePointer<UInt8>, count added: Int) {
        if capacity - count < added { grow(to: count + added) }
        (base + count).update(from: bytes, count: added)
        count += added
    }

    private mutating func grow(to minimum: Int) {
        var newCapacity = capacity * 2
        while newCapacity < minimum { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.initialize(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }
}

/// The reader's open elements, in plain memory: as deep as the layout lets elements nest (six),
/// growing past that only if it ever had to. Freed by ``deallocate()``.
struct XMLFrameStack<Frame> {
    private var base: UnsafeMutablePointer<Frame>
    private var capacity = 8
    private(set) var count = 0

    init() { base = .allocate(capacity: capacity) }

    func deallocate() {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var last: Frame? { count > 0 ? base[count - 1] : nil }

    /// The innermost frame; the stack must not be empty.
    var top: Frame {
        get { base[count - 1] }
        nonmutating set { base[count - 1] = newValue }
    }

    @inline(__always)
    mutating func push(_ frame: Frame) {
        if count == capacity {
            let grown = UnsafeMutablePointer<Frame>.allocate(capacity: capacity * 2)
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
            base = grown
            capacity *= 2
        }
        (base + count).initialize(to: frame)
        count += 1
    }

    @inline(__always)
    mutating func popLast() -> Frame? {
        guard count > 0 else { return nil }
        count -= 1
        return (base + count).move()
    }
}
