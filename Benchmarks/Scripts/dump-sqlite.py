#!/usr/bin/env python3
"""Write the plain SQLite database of load-sqlite.py back as JSON, in the shape `strata dump` writes.

    dump-sqlite.py DB.sqlite [OUT.json]     (stdout without OUT)

The Python reference for `strata dump`: `sqlite3` and `json` from the standard library.
{"objects": {Entity: [object, ...]}}, entities in name order, objects by @id, every attribute
(null when absent) and both sides of every relationship (to-many ids ascending, Book.chapters in
their stored order), keys sorted, indented by two spaces: json.dump(indent=2, sort_keys=True).
"""

import json
import sqlite3
import sys
from collections import defaultdict


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: dump-sqlite.py DB.sqlite [OUT.json]")
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)

    def grouped(sql):
        groups = defaultdict(list)
        for key, value in db.execute(sql):
            groups[key].append(value)
        return groups

    author_books = grouped("SELECT author_id, id FROM book WHERE author_id IS NOT NULL ORDER BY id")
    publisher_books = grouped(
        "SELECT publisher_id, id FROM book WHERE publisher_id IS NOT NULL ORDER BY id")
    genre_books = grouped("SELECT genre_id, book_id FROM book_genre ORDER BY genre_id, book_id")
    book_genres = grouped("SELECT book_id, genre_id FROM book_genre ORDER BY book_id, genre_id")
    book_chapters = grouped("SELECT book_id, id FROM chapter ORDER BY book_id, position")

    objects = {
        "Author": [
            {"@id": i, "name": name, "country": country, "born": born,
             "books": author_books.get(i, [])}
            for i, name, country, born in db.execute(
                "SELECT id, name, country, born FROM author ORDER BY id")
        ],
        "Book": [
            {"@id": i, "title": title, "isbn": isbn, "year": year, "pages": pages,
             "price": price, "rating": rating, "published": published, "summary": summary,
             "inPrint": bool(in_print), "author": author_id, "publisher": publisher_id,
             "genres": book_genres.get(i, []), "chapters": book_chapters.get(i, [])}
            for (i, title, isbn, year, pages, price, rating, published, summary, in_print,
                 author_id, publisher_id) in db.execute(
                "SELECT id, title, isbn, year, pages, price, rating, published, summary,"
                " in_print, author_id, publisher_id FROM book ORDER BY id")
        ],
        "Chapter": [
            {"@id": i, "book": book_id, "title": title, "number": number, "words": words}
            for i, book_id, title, number, words in db.execute(
                "SELECT id, book_id, title, number, words FROM chapter ORDER BY id")
        ],
        "Genre": [
            {"@id": i, "name": name, "books": genre_books.get(i, [])}
            for i, name in db.execute("SELECT id, name FROM genre ORDER BY id")
        ],
        "Publisher": [
            {"@id": i, "name": name, "city": city, "books": publisher_books.get(i, [])}
            for i, name, city in db.execute("SELECT id, name, city FROM publisher ORDER BY id")
        ],
    }
    db.close()

    out = open(sys.argv[2], "w", encoding="utf-8") if len(sys.argv) == 3 else sys.stdout
    with out:
        json.dump({"objects": objects}, out, indent=2, sort_keys=True, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main()
