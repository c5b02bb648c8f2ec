#!/usr/bin/env python3
"""Load a library data file (make-library.py) into a binary property list.

    load-plist.py DATA.json OUT.plist

The Python reference for `strata load` into a binary store: `json` and `plistlib` from the
standard library. The plist holds the same graph a Strata binary store holds, in the same
layout: {"objects": {Entity: [record, ...]}}, one dictionary per object with its "@id", its
attributes (dates as plist dates, decimals as strings) and both sides of every relationship as
ids (Author/Publisher/Genre "books", Chapter "book", Book "author", "publisher", "genres" and the
ordered "chapters"; a book without chapters has no "chapters" key, as in Strata's store).
A reference to a missing object fails the load (KeyError). Written with
plistlib.dump(fmt=FMT_BINARY).
"""

import datetime
import json
import plistlib
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: load-plist.py DATA.json OUT.plist")
    data_path, out_path = sys.argv[1], sys.argv[2]

    with open(data_path, encoding="utf-8") as f:
        objects = json.load(f)["objects"]

    publishers = {p["@id"]: dict(p, books=[]) for p in objects.get("Publisher", [])}
    authors = {a["@id"]: dict(a, books=[]) for a in objects.get("Author", [])}
    genres = {g["@id"]: dict(g, books=[]) for g in objects.get("Genre", [])}
    chapters = {c["@id"]: dict(c) for c in objects.get("Chapter", [])}
    books = {}
    for b in objects.get("Book", []):
        book = dict(b)
        book["published"] = datetime.datetime.fromisoformat(b["published"]).replace(tzinfo=None)
        book_id = book["@id"]
        if b.get("author") is not None:
            authors[b["author"]]["books"].append(book_id)
        if b.get("publisher") is not None:
            publishers[b["publisher"]]["books"].append(book_id)
        book["genres"] = sorted(b.get("genres") or ())
        for genre_id in book["genres"]:
            genres[genre_id]["books"].append(book_id)
        for chapter_id in b.get("chapters") or ():
            chapters[chapter_id]["book"] = book_id
        books[book_id] = book

    graph = {"objects": {
        "Author": sorted(authors.values(), key=lambda o: o["@id"]),
        "Book": sorted(books.values(), key=lambda o: o["@id"]),
        "Chapter": sorted(chapters.values(), key=lambda o: o["@id"]),
        "Genre": sorted(genres.values(), key=lambda o: o["@id"]),
        "Publisher": sorted(publishers.values(), key=lambda o: o["@id"]),
    }}
    with open(out_path, "wb") as f:
        plistlib.dump(graph, f, fmt=plistlib.FMT_BINARY, sort_keys=False)

    total = sum(len(v) for v in graph["objects"].values())
    print("wrote %d objects to %s" % (total, out_path))


if __name__ == "__main__":
    main()
