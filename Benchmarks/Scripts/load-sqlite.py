#!/usr/bin/env python3
"""Load a library data file (make-library.py) into a plain, normalised SQLite database.

    load-sqlite.py DATA.json OUT.sqlite

The Python reference for `strata load` into a SQLite store: `json` and `sqlite3` from the
standard library, what an experienced Python programmer would write. Tables publisher, author,
genre, book (author_id, publisher_id), chapter (book_id, position) and book_genre; primary keys
are the @id values; isbn and genre names are UNIQUE; foreign keys are enforced
(PRAGMA foreign_keys=ON), so a dangling reference fails the load as it fails `strata load`;
the foreign-key columns are indexed, as Strata indexes its relationship columns. Like Strata's
store: WAL journal, synchronous=NORMAL, everything in one transaction. Dates and decimals are
stored as the text the file gives (ISO 8601, exact decimal strings). OUT must not exist.
"""

import json
import os
import sqlite3
import sys

SCHEMA = """
CREATE TABLE publisher (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    city TEXT NOT NULL
);
CREATE TABLE author (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    country TEXT NOT NULL,
    born INTEGER
);
CREATE TABLE genre (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE book (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    isbn TEXT NOT NULL UNIQUE,
    year INTEGER NOT NULL,
    pages INTEGER NOT NULL,
    price TEXT NOT NULL,
    rating REAL NOT NULL,
    published TEXT NOT NULL,
    summary TEXT NOT NULL,
    in_print INTEGER NOT NULL,
    author_id INTEGER REFERENCES author(id),
    publisher_id INTEGER REFERENCES publisher(id)
);
CREATE TABLE chapter (
    id INTEGER PRIMARY KEY,
    book_id INTEGER NOT NULL REFERENCES book(id),
    position INTEGER NOT NULL,
    title TEXT NOT NULL,
    number INTEGER NOT NULL,
    words INTEGER NOT NULL
);
CREATE TABLE book_genre (
    book_id INTEGER NOT NULL REFERENCES book(id),
    genre_id INTEGER NOT NULL REFERENCES genre(id),
    PRIMARY KEY (book_id, genre_id)
) WITHOUT ROWID;
CREATE INDEX book_author ON book(author_id);
CREATE INDEX book_publisher ON book(publisher_id);
CREATE INDEX chapter_book ON chapter(book_id, position);
CREATE INDEX book_genre_genre ON book_genre(genre_id);
"""


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: load-sqlite.py DATA.json OUT.sqlite")
    data_path, db_path = sys.argv[1], sys.argv[2]
    if os.path.exists(db_path):
        sys.exit("load-sqlite.py: %s exists" % db_path)

    with open(data_path, encoding="utf-8") as f:
        objects = json.load(f)["objects"]

    books = objects.get("Book", [])
    chapter_of = {}  # chapter id -> (book id, position)
    for book in books:
        for position, chapter_id in enumerate(book.get("chapters") or ()):
            chapter_of[chapter_id] = (book["@id"], position)

    db = sqlite3.connect(db_path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")
    db.executescript(SCHEMA)
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO publisher (id, name, city) VALUES (?, ?, ?)",
        ((p["@id"], p["name"], p["city"]) for p in objects.get("Publisher", [])),
    )
    db.executemany(
        "INSERT INTO author (id, name, country, born) VALUES (?, ?, ?, ?)",
        ((a["@id"], a["name"], a["country"], a.get("born")) for a in objects.get("Author", [])),
    )
    db.executemany(
        "INSERT INTO genre (id, name) VALUES (?, ?)",
        ((g["@id"], g["name"]) for g in objects.get("Genre", [])),
    )
    db.executemany(
        "INSERT INTO book (id, title, isbn, year, pages, price, rating, published, summary,"
        " in_print, author_id, publisher_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (b["@id"], b["title"], b["isbn"], b["year"], b["pages"], b["price"], b["rating"],
             b["published"], b["summary"], b["inPrint"], b.get("author"), b.get("publisher"))
            for b in books
        ),
    )
    db.executemany(
        "INSERT INTO chapter (id, book_id, position, title, number, words)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (
            (c["@id"], *chapter_of.get(c["@id"], (None, 0)), c["title"], c["number"], c["words"])
            for c in objects.get("Chapter", [])
        ),
    )
    db.executemany(
        "INSERT INTO book_genre (book_id, genre_id) VALUES (?, ?)",
        ((b["@id"], g) for b in books for g in b.get("genres") or ()),
    )
    db.execute("COMMIT")
    db.close()

    total = sum(len(v) for v in objects.values())
    print("loaded %d objects into %s" % (total, db_path))


if __name__ == "__main__":
    main()
