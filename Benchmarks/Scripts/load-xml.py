#!/usr/bin/env python3
"""Load a library data file (make-library.py) into an XML document.

    load-xml.py DATA.json OUT.xml [--indent]

The Python reference for `strata load` into an XML store: `json` and `xml.etree.ElementTree`
from the standard library. One <object type="Entity" id="pN"> element per object, in the
layout of Strata's XML store: an <attribute name=… type=…> child per attribute with its value
as text (dates and decimals as the file gives them) and a <relationship name=… destination=…
idrefs="p1 p2"> child per relationship, both sides of every relationship (the inverses are
computed). A reference to a missing object fails the load (KeyError). Written with
ElementTree.write (UTF-8, XML declaration); --indent pretty-prints first (ET.indent), as
Strata's store does; without it the file is unindented, which is faster for Python.
"""

import json
import sys
import xml.etree.ElementTree as ET

ATTRIBUTES = {
    "Publisher": [("name", "string"), ("city", "string")],
    "Author": [("name", "string"), ("country", "string"), ("born", "int32")],
    "Genre": [("name", "string")],
    "Book": [("title", "string"), ("isbn", "string"), ("year", "int16"), ("pages", "int32"),
             ("price", "decimal"), ("rating", "double"), ("published", "date"),
             ("summary", "string"), ("inPrint", "bool")],
    "Chapter": [("title", "string"), ("number", "int32"), ("words", "int32")],
}
# entity -> [(relationship, destination)]
RELATIONSHIPS = {
    "Publisher": [("books", "Book")],
    "Author": [("books", "Book")],
    "Genre": [("books", "Book")],
    "Book": [("author", "Author"), ("publisher", "Publisher"), ("genres", "Genre"),
             ("chapters", "Chapter")],
    "Chapter": [("book", "Book")],
}


def text(value):
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def main():
    args = [a for a in sys.argv[1:] if a != "--indent"]
    if len(args) != 2:
        sys.exit("usage: load-xml.py DATA.json OUT.xml [--indent]")
    data_path, out_path = args

    with open(data_path, encoding="utf-8") as f:
        objects = json.load(f)["objects"]

    # The inverses: every referenced object gets the ids that point at it.
    by_id = {name: {o["@id"]: dict(o) for o in objects.get(name, [])} for name in ATTRIBUTES}
    for name in ("Publisher", "Author", "Genre"):
        for o in by_id[name].values():
            o["books"] = []
    for book_id, b in by_id["Book"].items():
        if b.get("author") is not None:
            by_id["Author"][b["author"]]["books"].append(book_id)
        if b.get("publisher") is not None:
            by_id["Publisher"][b["publisher"]]["books"].append(book_id)
        b["genres"] = sorted(b.get("genres") or ())
        for genre_id in b["genres"]:
            by_id["Genre"][genre_id]["books"].append(book_id)
        for chapter_id in b.get("chapters") or ():
            by_id["Chapter"][chapter_id]["book"] = book_id

    root = ET.Element("database")
    for name in sorted(ATTRIBUTES):
        for object_id in sorted(by_id[name]):
            o = by_id[name][object_id]
            element = ET.SubElement(root, "object", type=name, id="p%d" % object_id)
            for attribute, kind in ATTRIBUTES[name]:
                value = o.get(attribute)
                if value is not None:
                    ET.SubElement(element, "attribute", name=attribute, type=kind).text = text(value)
            for relationship, destination in RELATIONSHIPS[name]:
                value = o.get(relationship)
                if value is None:
                    ids = ""
                elif isinstance(value, list):
                    ids = " ".join("p%d" % i for i in value)
                else:
                    ids = "p%d" % value
                ET.SubElement(element, "relationship", name=relationship,
                              destination=destination, idrefs=ids)

    tree = ET.ElementTree(root)
    if "--indent" in sys.argv[1:]:
        ET.indent(tree)
    tree.write(out_path, encoding="UTF-8", xml_declaration=True)

    total = sum(len(v) for v in by_id.values())
    print("wrote %d objects to %s" % (total, out_path))


if __name__ == "__main__":
    main()
