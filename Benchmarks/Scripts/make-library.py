#!/usr/bin/env python3
"""Generate the library data set of Benchmarks/Data/Library.json (Strata's JSON data format).

    make-library.py --books N [--seed S] -o FILE

N books, N/10 authors, N/100 publishers, 50 genres; every sixth book has 3 ordered chapters
(N/2 chapters). Relationships are written from the Book side only ("author", "publisher",
"genres", "chapters"); the inverses follow from the model. The output is deterministic for a
given N and seed: the same arguments give the same bytes. Entities are written referenced ones
first (Publisher, Author, Genre, Chapter, then Book), one object per line.

Python standard library only.
"""

import argparse
import datetime
import json
import random
import sys

GENRES = [
    "Adventure", "Anthology", "Art", "Biography", "Business", "Children", "Classics", "Comics",
    "Cookbooks", "Crime", "Drama", "Economics", "Education", "Essays", "Fantasy", "Folklore",
    "Gardening", "Graphic Novels", "Health", "Historical Fiction", "History", "Horror", "Humor",
    "Journalism", "Law", "Linguistics", "Literary Fiction", "Mathematics", "Medicine", "Memoir",
    "Music", "Mystery", "Mythology", "Nature", "Philosophy", "Photography", "Poetry", "Politics",
    "Psychology", "Reference", "Religion", "Romance", "Science", "Science Fiction", "Short Stories",
    "Sports", "Technology", "Thriller", "Travel", "Young Adult",
]

FIRST = [
    "Ada", "Alan", "Amara", "Anders", "Aiko", "Beatriz", "Bjorn", "Chen", "Clara", "Dmitri",
    "Elena", "Emeka", "Farah", "Felix", "Grace", "Hana", "Hugo", "Ines", "Ivan", "Jonas",
    "Kofi", "Lena", "Luca", "Maya", "Mateo", "Nadia", "Noor", "Olga", "Omar", "Priya",
    "Rafael", "Rosa", "Sami", "Sofia", "Tariq", "Tomas", "Ursula", "Vera", "Wei", "Yusuf",
]
LAST = [
    "Abara", "Andersen", "Bauer", "Castillo", "Chowdhury", "Dubois", "Eriksen", "Fischer",
    "Garcia", "Haddad", "Ito", "Jansen", "Kowalski", "Larsen", "Moreau", "Nakamura", "Novak",
    "Okafor", "Petrov", "Quinn", "Rossi", "Santos", "Schmidt", "Silva", "Tanaka", "Umarov",
    "Varga", "Wagner", "Watanabe", "Yilmaz", "Zhang", "Zielinski",
]
COUNTRIES = [
    "Argentina", "Australia", "Brazil", "Canada", "Chile", "China", "Egypt", "France", "Germany",
    "Ghana", "India", "Ireland", "Italy", "Japan", "Kenya", "Mexico", "Nigeria", "Norway",
    "Poland", "Portugal", "South Korea", "Spain", "Sweden", "Turkey", "United Kingdom",
    "United States",
]
CITIES = [
    "Amsterdam", "Barcelona", "Berlin", "Boston", "Buenos Aires", "Cairo", "Chicago", "Dublin",
    "Edinburgh", "Hamburg", "Istanbul", "Kyoto", "Lagos", "Lisbon", "London", "Melbourne",
    "Mexico City", "Milan", "Montreal", "Mumbai", "Nairobi", "New York", "Oslo", "Paris",
    "Seoul", "Stockholm", "Tokyo", "Toronto", "Vienna", "Warsaw",
]
PUBLISHER_WORDS = [
    "Anchor", "Beacon", "Cedar", "Crown", "Ember", "Falcon", "Harbor", "Heron", "Juniper",
    "Lantern", "Maple", "Meridian", "North", "Orchard", "Pilgrim", "Quarry", "Raven", "Sable",
    "Tidewater", "Willow",
]
PUBLISHER_KINDS = ["Press", "Books", "House", "Publishing", "Editions", "& Sons", "Media"]
ADJECTIVES = [
    "Silent", "Hidden", "Last", "Golden", "Broken", "Distant", "Crimson", "Quiet", "Endless",
    "Forgotten", "Burning", "Winter", "Secret", "Lost", "Wild", "Hollow", "Bright", "Iron",
    "Paper", "Glass", "Northern", "Sudden", "Little", "Second", "Invisible",
]
NOUNS = [
    "River", "Garden", "City", "Machine", "House", "Road", "Island", "Archive", "Mirror",
    "Harbor", "Forest", "Letter", "Signal", "Kingdom", "Museum", "Winter", "Map", "Orchard",
    "Engine", "Lighthouse", "Station", "Library", "Voyage", "Promise", "Theory",
]
WORDS = (
    "a an the of in on at by for with from into over under between after before during without "
    "story family war love city village sea mountain journey memory secret letter child mother "
    "father brother sister friend stranger doctor teacher soldier detective scientist painter "
    "finds loses remembers discovers follows builds leaves returns searches hides writes reads "
    "quiet strange bright dark ancient modern small vast cold warm hidden broken forgotten "
    "summer winter night morning years decades century island river forest desert harbor "
    "history science power truth time hope fear grief courage ambition loyalty betrayal home"
).split()


def isbn13(n):
    """A valid, unique ISBN-13 for book number n (n < 900,000,000)."""
    body = "978" + "%09d" % ((n * 7919) % 900_000_000)
    total = sum((1 if i % 2 == 0 else 3) * int(d) for i, d in enumerate(body))
    return body + str((10 - total % 10) % 10)


def summary(rng):
    """130 to 200 characters of varied text."""
    target = rng.randint(130, 200)
    words = []
    length = 0
    while length < target:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def generate(books, seed):
    rng = random.Random(seed)
    n_authors = max(1, books // 10)
    n_publishers = max(1, books // 100)
    n_genres = len(GENRES)

    publishers = []
    for i in range(1, n_publishers + 1):
        name = "%s %s" % (rng.choice(PUBLISHER_WORDS), rng.choice(PUBLISHER_KINDS))
        publishers.append({"@id": i, "name": "%s %d" % (name, i), "city": rng.choice(CITIES)})

    authors = []
    for i in range(1, n_authors + 1):
        author = {
            "@id": i,
            "name": "%s %s" % (rng.choice(FIRST), rng.choice(LAST)),
            "country": rng.choice(COUNTRIES),
        }
        if i % 7 != 0:  # every seventh author's birth year is unknown
            author["born"] = rng.randint(1900, 2000)
        authors.append(author)

    genres = [{"@id": i, "name": name} for i, name in enumerate(GENRES, start=1)]

    chapters = []
    book_list = []
    for i in range(1, books + 1):
        year = rng.randint(1950, 2024)
        day = datetime.date(year, 1, 1).toordinal() + rng.randint(0, 364)
        published = datetime.date.fromordinal(day)
        book = {
            "@id": i,
            "title": "The %s %s" % (rng.choice(ADJECTIVES), rng.choice(NOUNS))
            + (" %d" % rng.randint(2, 9) if rng.random() < 0.2 else ""),
            "isbn": isbn13(i),
            "year": year,
            "pages": rng.randint(80, 1200),
            "price": "%d.%02d" % (rng.randint(4, 79), rng.choice([0, 49, 95, 99])),
            "rating": round(rng.uniform(1.0, 5.0), 2),
            "published": published.isoformat() + "T00:00:00.000Z",
            "summary": summary(rng),
            "inPrint": rng.random() < 0.7,
        }
        if i % 50 != 0:  # every fiftieth book has no author
            book["author"] = rng.randint(1, n_authors)
        if i % 20 != 0:  # every twentieth book has no publisher
            book["publisher"] = rng.randint(1, n_publishers)
        book["genres"] = sorted(rng.sample(range(1, n_genres + 1), rng.randint(1, 3)))
        if i % 6 == 0:  # every sixth book has three ordered chapters
            ids = []
            for number in range(1, 4):
                chapter_id = len(chapters) + 1
                chapters.append({
                    "@id": chapter_id,
                    "title": "%s %s" % (rng.choice(ADJECTIVES), rng.choice(NOUNS)),
                    "number": number,
                    "words": rng.randint(1500, 12000),
                })
                ids.append(chapter_id)
            # Stored in a shuffled order now and then, so that the order is the relationship's,
            # not the ids'.
            if i % 12 == 0:
                ids.reverse()
            book["chapters"] = ids
        book_list.append(book)

    return [
        ("Publisher", publishers),
        ("Author", authors),
        ("Genre", genres),
        ("Chapter", chapters),
        ("Book", book_list),
    ]


def write(entities, out):
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    out.write('{"objects":{\n')
    for e, (name, objects) in enumerate(entities):
        out.write('"%s":[\n' % name)
        last = len(objects) - 1
        for i, obj in enumerate(objects):
            out.write(dumps(obj) + (",\n" if i < last else "\n"))
        out.write("]" + (",\n" if e < len(entities) - 1 else "\n"))
    out.write("}}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--books", type=int, required=True, help="number of books (>= 1)")
    parser.add_argument("--seed", type=int, default=12, help="random seed (default 12)")
    parser.add_argument("-o", "--output", required=True, help="output file ('-' for stdout)")
    args = parser.parse_args()
    if args.books < 1:
        parser.error("--books must be at least 1")
    entities = generate(args.books, args.seed)
    if args.output == "-":
        write(entities, sys.stdout)
    else:
        with open(args.output, "w", encoding="utf-8") as out:
            write(entities, out)
    counts = ", ".join("%d %s" % (len(objs), name) for name, objs in entities)
    total = sum(len(objs) for _, objs in entities)
    print("%s: %d objects (%s)" % (args.output, total, counts), file=sys.stderr)


if __name__ == "__main__":
    main()
