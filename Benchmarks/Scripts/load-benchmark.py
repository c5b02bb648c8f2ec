#!/usr/bin/env python3
"""Whole-process load benchmark: `strata load` and `strata dump` against Python scripts.

    load-benchmark.py [--strata PATH] [--sizes 10000,30000,40000,160000] [--runs 3] ...

For each size (number of books) it generates the library data set once
(make-library.py, cached in --workdir), then loads it, best of --runs, into a fresh output
file each time, with each contender:

    strata-sqlite   strata load --schema Data/Library.json OUT.sqlite DATA
    strata-binary   strata load ... OUT.plist      (the binary property-list store)
    strata-xml      strata load ... OUT.xml        (the XML store)
    python-sqlite   load-sqlite.py DATA OUT.sqlite (json + sqlite3, plain normalised schema)
    python-plist    load-plist.py DATA OUT.plist   (json + plistlib, FMT_BINARY)
    python-xml      load-xml.py DATA OUT.xml       (json + xml.etree.ElementTree)

and, for the --dump-sizes, the way back to JSON:

    strata-dump     strata dump STORE.sqlite -o OUT.json   (the store strata-sqlite loaded)
    python-dump     dump-sqlite.py DB.sqlite OUT.json      (the database python-sqlite loaded)

Each run is one process; it measures the process's wall time, its CPU time (user + system,
every thread) and its peak resident memory (ru_maxrss, from wait4, started from a small process
forked before any data is read: see Spawner). Every result is checked:
the object counts of each entity (strata inspect --format json for Strata's stores, row counts,
plistlib or element counts for Python's files, the number of objects in a dump); a failed check
or a failed run stops the benchmark. The best wall time, best CPU time and lowest peak of the
runs are reported (each minimum on its own), as a markdown table on standard output, with the
ratios Strata / Python for the same kind of store, and the scaling from one size to the next
(time and memory of 4x the data for 10k -> 40k -> 160k). Progress goes to standard error.

A contender whose run exceeds --timeout seconds is killed, reported as "> T s", and not run
again at larger sizes.

Build Strata first, in release mode, at the repository root:

    swift build -c release --product strata

Python 3.9 or later, standard library only.
"""

import argparse
import hashlib
import json
import os
import plistlib
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
BENCHMARKS = os.path.dirname(SCRIPTS)
REPOSITORY = os.path.dirname(BENCHMARKS)
SCHEMA = os.path.join(BENCHMARKS, "Data", "Library.json")
ENTITIES = ["Author", "Book", "Chapter", "Genre", "Publisher"]

# contender -> (kind of store, output extension, Python counterpart)
LOADERS = {
    "strata-sqlite": ("sqlite", "sqlite", "python-sqlite"),
    "strata-binary": ("binary", "plist", "python-plist"),
    "strata-xml": ("xml", "xml", "python-xml"),
    "python-sqlite": ("sqlite", "sqlite", None),
    "python-plist": ("binary", "plist", None),
    "python-xml": ("xml", "xml", None),
}
DUMPERS = {"strata-dump": "python-dump", "python-dump": None}


def log(message):
    print(message, file=sys.stderr, flush=True)


class RunFailed(Exception):
    pass


class TimedOut(Exception):
    pass


def measure(argv, timeout, stdout=subprocess.DEVNULL):
    """Runs argv; returns (wall s, cpu s, peak MiB). Raises RunFailed or TimedOut."""
    errors_file = tempfile.TemporaryFile()
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=stdout, stderr=errors_file, start_new_session=True)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            os.wait4(process.pid, 0)
            process.returncode = -9
            errors_file.close()
            raise TimedOut()
        time.sleep(0.002)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    errors_file.seek(0)
    errors = errors_file.read().decode("utf-8", "replace")
    errors_file.close()
    if process.returncode != 0:
        raise RunFailed("%s exited with %d:\n%s" % (" ".join(argv), process.returncode,
                                                     errors[-2000:]))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


class Spawner:
    """Runs the measured commands from a small process forked at the start, before this script
    reads any data. On Linux a child's ru_maxrss carries its parent's high-water mark across
    fork and exec (a /bin/true started by a Python holding 300 MB reports 300 MB), so a child
    started by this script after it has read a large JSON file would report the script's peak,
    not its own. The spawner stays as small as a bare Python, below every contender's peak."""

    def __init__(self):
        requests_read, self.requests = os.pipe()
        self.replies, replies_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.requests)
            os.close(self.replies)
            with os.fdopen(requests_read, "r") as requests, os.fdopen(replies_write, "w") as replies:
                for line in requests:
                    argv, timeout = json.loads(line)
                    try:
                        reply = {"result": measure(argv, timeout)}
                    except TimedOut:
                        reply = {"timed_out": True}
                    except RunFailed as error:
                        reply = {"failed": str(error)}
                    replies.write(json.dumps(reply) + "\n")
                    replies.flush()
            os._exit(0)
        os.close(requests_read)
        os.close(replies_write)
        self.request_file = os.fdopen(self.requests, "w")
        self.reply_file = os.fdopen(self.replies, "r")

    def measure(self, argv, timeout):
        self.request_file.write(json.dumps([argv, timeout]) + "\n")
        self.request_file.flush()
        reply = json.loads(self.reply_file.readline())
        if reply.get("timed_out"):
            raise TimedOut()
        if "failed" in reply:
            raise RunFailed(reply["failed"])
        return tuple(reply["result"])

    def close(self):
        self.request_file.close()
        os.waitpid(self.pid, 0)


def remove(path):
    for suffix in ("", "-wal", "-shm", "-journal", ".lock"):
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass


def data_set(workdir, books):
    """The cached data file for `books` books and its object counts."""
    generator = os.path.join(SCRIPTS, "make-library.py")
    with open(generator, "rb") as f:
        version = hashlib.sha1(f.read()).hexdigest()[:8]
    path = os.path.join(workdir, "library-%d-%s.json" % (books, version))
    counts_path = path + ".counts"
    if not (os.path.exists(path) and os.path.exists(counts_path)):
        # Written under names of this process, then renamed: another run may generate the
        # same set at the same time.
        log("generating %s" % path)
        temporary = "%s.%d.tmp" % (path, os.getpid())
        subprocess.run([sys.executable, generator, "--books", str(books), "-o", temporary],
                       check=True, stderr=subprocess.DEVNULL)
        with open(temporary, encoding="utf-8") as f:
            objects = json.load(f)["objects"]
        counts = {name: len(objects.get(name, [])) for name in ENTITIES}
        with open(counts_path + ".%d.tmp" % os.getpid(), "w") as f:
            json.dump(counts, f)
        os.replace(temporary, path)
        os.replace(counts_path + ".%d.tmp" % os.getpid(), counts_path)
    with open(counts_path) as f:
        return path, json.load(f)


def strata_counts(strata, store):
    out = subprocess.run([strata, "inspect", "--format", "json", store], check=True,
                         capture_output=True).stdout
    counts = json.loads(out)["objectCounts"]
    return {name: counts.get(name, 0) for name in ENTITIES}


def python_counts(kind, path):
    if kind == "sqlite":
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        counts = {name: db.execute("SELECT count(*) FROM %s" % name.lower()).fetchone()[0]
                  for name in ENTITIES}
        db.close()
        return counts
    if kind == "binary":
        with open(path, "rb") as f:
            objects = plistlib.load(f)["objects"]
        return {name: len(objects.get(name, [])) for name in ENTITIES}
    with open(path, "rb") as f:
        content = f.read()
    return {name: content.count(b'<object type="%s"' % name.encode()) for name in ENTITIES}


def dump_counts(path):
    with open(path, encoding="utf-8") as f:
        objects = json.load(f)["objects"]
    return {name: len(objects.get(name, [])) for name in ENTITIES}


def command(contender, strata, data, out):
    python = sys.executable
    if contender.startswith("strata-"):
        return [strata, "load", "--schema", SCHEMA, out, data]
    script = {"python-sqlite": "load-sqlite.py", "python-plist": "load-plist.py",
              "python-xml": "load-xml.py"}[contender]
    return [python, os.path.join(SCRIPTS, script), data, out]


def best(runs):
    return (min(r[0] for r in runs), min(r[1] for r in runs), min(r[2] for r in runs))


def fmt_ratio(a, b):
    return "%.2f×" % (a / b) if a and b else "–"


def main():
    parser = argparse.ArgumentParser(
        description="strata load / dump against Python, whole processes (see the source).")
    parser.add_argument("--strata", default=os.path.join(REPOSITORY, ".build", "release", "strata"),
                        help="the strata executable (default: the release build at the root)")
    parser.add_argument("--sizes", default="10000,30000,40000,160000",
                        help="numbers of books, comma-separated (default 10000,30000,40000,160000)")
    parser.add_argument("--dump-sizes", default="30000,160000",
                        help="sizes also dumped back to JSON (default 30000,160000; '' for none)")
    parser.add_argument("--runs", type=int, default=3, help="runs per contender (default 3)")
    parser.add_argument("--only", default="",
                        help="contenders to run, comma-separated (default all): "
                        + ", ".join(list(LOADERS) + list(DUMPERS)))
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds a run may take before it is killed (default 600)")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "strata-loadbench"),
                        help="where data sets are cached (default $TMPDIR/strata-loadbench); each"
                        " run writes its outputs in a new directory there, removed at the end")
    parser.add_argument("--json", help="also write the measurements to this file")
    parser.add_argument("--keep", action="store_true",
                        help="keep the stores and files written (in a new directory of --workdir)")
    parser.add_argument("--merge", nargs="+", metavar="JSON",
                        help="run nothing: print the tables of earlier --json files, each"
                        " contender's best over all their runs")
    args = parser.parse_args()
    if args.merge:
        print_tables(merged(args.merge), args)
        return

    sizes = [int(s) for s in args.sizes.split(",") if s]
    dump_sizes = {int(s) for s in args.dump_sizes.split(",") if s}
    wanted = [c for c in args.only.split(",") if c] or list(LOADERS) + list(DUMPERS)
    for c in wanted:
        if c not in LOADERS and c not in DUMPERS:
            parser.error("unknown contender %r" % c)
    if any(c.startswith("strata") for c in wanted) and not os.access(args.strata, os.X_OK):
        parser.error("no strata executable at %s (swift build -c release --product strata)"
                     % args.strata)
    os.makedirs(args.workdir, exist_ok=True)
    outdir = tempfile.mkdtemp(prefix="out-", dir=args.workdir)  # this run's own outputs
    spawner = Spawner()
    try:
        run_all(args, sizes, dump_sizes, wanted, outdir, spawner)
    finally:
        spawner.close()
        if args.keep:
            log("outputs kept in %s" % outdir)
        else:
            shutil.rmtree(outdir, ignore_errors=True)


def run_all(args, sizes, dump_sizes, wanted, outdir, spawner):
    results = []  # dicts: books, objects, mb, contender, wall, cpu, peak, timed_out
    given_up = set()
    for books in sizes:
        data, expected = data_set(args.workdir, books)
        objects = sum(expected.values())
        megabytes = os.path.getsize(data) / 1e6
        loaders = [c for c in LOADERS if c in wanted]
        dumpers = [c for c in DUMPERS if c in wanted and books in dump_sizes]
        if dumpers:  # a dump reads what a load wrote
            for c in ("strata-sqlite", "python-sqlite"):
                if c not in loaders:
                    loaders.insert(0, c)
        runs = {c: [] for c in loaders + dumpers}
        timed_out = set()
        for run in range(args.runs):
            for contender in loaders + dumpers:
                if contender in given_up or contender in timed_out:
                    continue
                if contender in LOADERS:
                    kind, extension, _ = LOADERS[contender]
                    out = os.path.join(outdir, "%s-%d.%s" % (contender, books, extension))
                    remove(out)
                    argv = command(contender, args.strata, data, out)
                else:
                    source = os.path.join(outdir, "%s-%d.sqlite" % (
                        "strata-sqlite" if contender == "strata-dump" else "python-sqlite", books))
                    out = os.path.join(outdir, "%s-%d.json" % (contender, books))
                    remove(out)
                    if contender == "strata-dump":
                        argv = [args.strata, "dump", source, "-o", out]
                    else:
                        argv = [sys.executable, os.path.join(SCRIPTS, "dump-sqlite.py"), source, out]
                log("%d books, run %d: %s" % (books, run + 1, contender))
                try:
                    wall, cpu, peak = spawner.measure(argv, args.timeout)
                except TimedOut:
                    log("  killed after %g s" % args.timeout)
                    timed_out.add(contender)
                    given_up.add(contender)
                    remove(out)
                    continue
                except RunFailed as error:
                    sys.exit("load-benchmark.py: %s" % error)
                if contender.startswith("strata-") and contender in LOADERS:
                    counts = strata_counts(args.strata, out)
                elif contender in LOADERS:
                    counts = python_counts(LOADERS[contender][0], out)
                else:
                    counts = dump_counts(out)
                if counts != expected:
                    sys.exit("load-benchmark.py: %s of %d books: counts %s, expected %s"
                             % (contender, books, counts, expected))
                log("  %.2f s wall, %.2f s cpu, %.0f MiB" % (wall, cpu, peak))
                runs[contender].append((wall, cpu, peak))
                if contender in DUMPERS:
                    remove(out)
        for contender in loaders + dumpers:
            entry = {"books": books, "objects": objects, "mb": megabytes,
                     "contender": contender, "timed_out": contender in timed_out}
            if runs[contender]:
                entry["wall"], entry["cpu"], entry["peak"] = best(runs[contender])
                entry["runs"] = runs[contender]
            if runs[contender] or contender in timed_out:
                results.append(entry)
        if not args.keep:  # the loads' outputs are big
            for contender in loaders:
                remove(os.path.join(outdir, "%s-%d.%s" % (contender, books, LOADERS[contender][1])))

    print_tables(results, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def merged(paths):
    """The results of several --json files, each contender's runs put together."""
    combined = {}
    for path in paths:
        with open(path) as f:
            for entry in json.load(f):
                key = (entry["books"], entry["contender"])
                if key not in combined:
                    combined[key] = dict(entry, runs=[])
                combined[key]["runs"] += entry.get("runs", [])
                combined[key]["timed_out"] = combined[key]["timed_out"] and entry["timed_out"]
    results = []
    for entry in combined.values():
        if entry["runs"]:
            entry["wall"], entry["cpu"], entry["peak"] = best(entry["runs"])
        results.append(entry)
    order = list(LOADERS) + list(DUMPERS)
    return sorted(results, key=lambda r: (r["books"], order.index(r["contender"])))


def print_tables(results, args):
    def find(books, contender):
        for r in results:
            if r["books"] == books and r["contender"] == contender:
                return r
        return None

    def cell(r, key, digits):
        if r is None:
            return "–"
        if r.get("timed_out") and key not in r:
            return "> %g" % args.timeout if key == "wall" else "–"
        return ("%%.%df" % digits) % r[key]

    head = subprocess.run(["git", "-C", REPOSITORY, "log", "-1", "--format=%h %cs"],
                          capture_output=True, text=True).stdout.strip()
    runs = max((len(r.get("runs", [])) for r in results), default=0)
    print("strata: %s (%s); Python %s. Best of %d runs: wall, CPU (user + system, every"
          " thread) and peak RSS are each the minimum over the runs.\n"
          % (args.strata, head or "no git", sys.version.split()[0], runs))
    print("| books | objects | JSON MB | contender | wall s | CPU s | peak MiB "
          "| wall vs Python | CPU vs Python | peak vs Python |")
    print("| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        ratios = ["", "", ""]
        pair = LOADERS.get(r["contender"], (None, None, None))[2] or DUMPERS.get(r["contender"])
        other = find(r["books"], pair) if pair else None
        if other and "wall" in r and "wall" in other:
            ratios = [fmt_ratio(r["wall"], other["wall"]), fmt_ratio(r["cpu"], other["cpu"]),
                      fmt_ratio(r["peak"], other["peak"])]
        elif pair and r.get("timed_out") and other and "wall" in other:
            ratios = ["> %.1f×" % (args.timeout / other["wall"]), "", ""]
        print("| %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %s |" % (
            format(r["books"], ","), format(r["objects"], ","), r["mb"], r["contender"],
            cell(r, "wall", 2), cell(r, "cpu", 2), cell(r, "peak", 0), *ratios))

    sizes = sorted({r["books"] for r in results})
    steps = [(a, b) for a in sizes for b in sizes if b == 4 * a]
    if steps:
        print("\nScaling: 4× the books (issue 12's target: ≤ 4.4× time and memory).\n")
        header = " | ".join("%s→%s %s" % (short(a), short(b), what)
                            for a, b in steps for what in ("wall", "CPU", "peak"))
        print("| contender | %s |" % header)
        print("| --- |%s" % (" ---: |" * (3 * len(steps))))
        contenders = []
        for r in results:
            if r["contender"] not in contenders:
                contenders.append(r["contender"])
        for contender in contenders:
            cells = []
            for a, b in steps:
                ra, rb = find(a, contender), find(b, contender)
                for key in ("wall", "cpu", "peak"):
                    if ra and rb and key in ra and key in rb:
                        cells.append(fmt_ratio(rb[key], ra[key]))
                    else:
                        cells.append("–")
            if any(c != "–" for c in cells):
                print("| %s | %s |" % (contender, " | ".join(cells)))


def short(books):
    return "%dk" % (books // 1000) if books % 1000 == 0 else str(books)


if __name__ == "__main__":
    main()
