#!/usr/bin/env python3
"""duo-profile-diff: compare two duo profiles region by region.

    duo-profile-diff A.csv B.csv [--chart out.png] [--json] [--force]
    duo-profile-diff DIR_A DIR_B [--chart-dir OUT] [--json] [--force]

A and B are reports of duo's built-in profiler, written by any duo program
run with DUO_PROFILE=csv (or json) and DUO_PROFILE_FILE=<path>.  Region
names are the same on every backend, so two builds' reports join on them.

Given two directories, files with the same name (e.g. serial/duo-saxpy.csv
and cuda/duo-saxpy.csv) are paired and each pair gets its own table.

Exit status: 0 on success, 2 on bad input (a missing file, a file that is
not a duo profile or has an unknown version, a malformed or duplicate row,
profiles of two different programs without --force).  The text needs only
Python's standard library; the charts need matplotlib.
"""

import argparse
import csv
import io
import json
import math
import os
import sys

FORMAT_VERSION = 1
COLUMNS = ["region", "kind", "calls", "total_ms", "mean_ms", "min_ms",
           "max_ms", "bytes", "flops", "gb_per_s", "gflop_per_s"]
NUMERIC = COLUMNS[2:]
# Regions of this kind are the program's own duo_region_begin/end spans:
# they may contain other regions, so they stay out of the totals.
USER_KIND = "region"
LOG_SPREAD = 100.0  # a chart goes to a log scale when max/min bar > this

DESCRIPTION = """\
Compare two duo profiles (the built-in profiler's CSV or JSON reports,
DUO_PROFILE=csv|json DUO_PROFILE_FILE=path) region by region, or two
directories of them paired by file name:

  duo-profile-diff A.csv B.csv [--chart out.png] [--json] [--force]
  duo-profile-diff DIR_A DIR_B [--chart-dir OUT] [--json] [--force]

For each program it prints a Markdown table with one row per region,
sorted by the time on A (longest first):
  A ms, B ms   the region's total time on each side
  speedup A/B  A's time divided by B's: above 1 means B is faster
  share A, B   the region's share of that side's total time, where the
               total is the sum over every region whose kind is not
               "region": user regions (duo_region_begin/end) may contain
               other regions, so counting them would count time twice.
               A user region's share is shown in parentheses and is not
               part of the total.
Regions recorded on one side only are marked "only in A" / "only in B".
"""

EPILOG = """\
exit status: 0 ok; 2 bad input: a missing file, not a duo profile (bad
header), an unknown format version, a malformed row (wrong column count,
a non-number), a region listed twice, or two different programs (the
first word of the "# program" line) unless --force.
"""


class InputError(Exception):
    """Bad input: reported as 'duo-profile-diff: <message>', exit 2."""


# ----------------------------------------------------------------------------
# Reading profiles


class Profile:
    def __init__(self, path):
        self.path = path
        self.backend = "unknown"
        self.device = "unknown"
        self.program = "unknown"
        self.lost = 0
        self.regions = {}  # name -> dict of the COLUMNS (numbers as float)
        self.order = []    # names in file order

    @property
    def app(self):
        words = self.program.split()
        return words[0] if words else "unknown"

    def add(self, row, where):
        """where: "line 12" or "regions[3]", for messages."""
        name = row["region"]
        if name in self.regions:
            sep = ":" if where.startswith("line ") else ": "
            raise InputError("%s%s%s: region %r is listed twice (first at %s)"
                             % (self.path, sep,
                                where.replace("line ", ""), name,
                                self.regions[name]["_where"]))
        row["_where"] = where
        self.regions[name] = row
        self.order.append(name)


def number(text, column, where):
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise InputError("%s: column %s is %r, not a number"
                         % (where, column, text)) from None
    if not math.isfinite(value) or value < 0:
        raise InputError("%s: column %s is %r; expected a finite number >= 0"
                         % (where, column, text))
    return value


def read_profile(path):
    if not os.path.exists(path):
        raise InputError("%s: no such file" % path)
    if os.path.isdir(path):
        raise InputError("%s: is a directory (give two files or two "
                         "directories)" % path)
    try:
        with open(path, "r", encoding="utf-8", newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("%s: cannot read: %s" % (path, e)) from None
    if text.lstrip().startswith("{"):
        return read_json(path, text)
    return read_csv(path, text)


def not_a_profile(path, first):
    hint = ""
    if first.startswith("duo profile:"):
        hint = (" (this is a DUO_PROFILE=summary report; write csv or json "
                "to compare: DUO_PROFILE=csv DUO_PROFILE_FILE=out.csv)")
    return InputError("%s: not a duo profile: the first line is %r, expected "
                      "'# duo-profile %d' (a report written with "
                      "DUO_PROFILE=csv or json)%s"
                      % (path, first[:60], FORMAT_VERSION, hint))


def check_version(path, version, where):
    if version != FORMAT_VERSION:
        raise InputError("%s: unknown duo profile version %r (%s); this tool "
                         "reads version %d" % (path, version, where,
                                               FORMAT_VERSION))


def read_csv(path, text):
    lines = text.splitlines()
    first = lines[0] if lines else ""
    words = first.split()
    if len(words) < 2 or words[0] != "#" or words[1] != "duo-profile":
        raise not_a_profile(path, first)
    if len(words) != 3:
        raise InputError("%s:1: expected '# duo-profile <version>', got %r"
                         % (path, first))
    try:
        version = int(words[2])
    except ValueError:
        version = words[2]
    check_version(path, version, "line 1")

    prof = Profile(path)
    header_seen = False
    reader = csv.reader(io.StringIO("\n".join(lines[1:]) + "\n"))
    for row in reader:
        lineno = reader.line_num + 1
        where = "%s:%d" % (path, lineno)
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if not header_seen and row[0].startswith("#"):
            key = row[0][1:].strip()
            value = ",".join(row[1:]).strip()
            if key == "backend":
                prof.backend = value
            elif key == "device":
                prof.device = value
            elif key == "program":
                prof.program = value
            elif key == "lost":
                prof.lost = int(number(value, "lost", where))
            continue  # other keys: ignored (later version-1 writers)
        if not header_seen:
            if row != COLUMNS:
                raise InputError("%s: expected the column header %r, got %r"
                                 % (where, ",".join(COLUMNS), ",".join(row)))
            header_seen = True
            continue
        if len(row) != len(COLUMNS):
            raise InputError("%s: expected %d columns (%s), got %d"
                             % (where, len(COLUMNS), ",".join(COLUMNS),
                                len(row)))
        rec = dict(zip(COLUMNS, row))
        if not rec["region"]:
            raise InputError("%s: empty region name" % where)
        for col in NUMERIC:
            rec[col] = number(rec[col], col, where)
        prof.add(rec, "line %d" % lineno)
    if not header_seen:
        raise InputError("%s: no column header line (%s) found"
                         % (path, ",".join(COLUMNS)))
    return prof


def read_json(path, text):
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise InputError("%s: not a duo profile: invalid JSON (%s)"
                         % (path, e)) from None
    if not isinstance(doc, dict) or "duo_profile" not in doc:
        raise InputError("%s: not a duo profile: no \"duo_profile\" key "
                         "(a report written with DUO_PROFILE=json)" % path)
    check_version(path, doc["duo_profile"], "key duo_profile")
    prof = Profile(path)
    for key in ("backend", "device", "program"):
        if key in doc:
            if not isinstance(doc[key], str):
                raise InputError("%s: %r must be a string" % (path, key))
            setattr(prof, key, doc[key])
    if "lost" in doc:
        prof.lost = int(number(doc["lost"], "lost", path))
    regions = doc.get("regions")
    if not isinstance(regions, list):
        raise InputError("%s: \"regions\" must be a list" % path)
    for i, item in enumerate(regions):
        where = "%s: regions[%d]" % (path, i)
        if not isinstance(item, dict):
            raise InputError("%s: expected an object" % where)
        missing = [c for c in COLUMNS if c not in item]
        if missing:
            raise InputError("%s: missing %s" % (where, ", ".join(missing)))
        rec = {"region": item["region"], "kind": item["kind"]}
        if not isinstance(rec["region"], str) or not rec["region"]:
            raise InputError("%s: region must be a non-empty string" % where)
        if not isinstance(rec["kind"], str):
            raise InputError("%s: kind must be a string" % where)
        for col in NUMERIC:
            value = item[col]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InputError("%s: %s is %r, not a number"
                                 % (where, col, value))
            rec[col] = number(value, col, where)
        prof.add(rec, "regions[%d]" % i)
    return prof


# ----------------------------------------------------------------------------
# Comparing


def compare(a, b, force):
    """One app's comparison: a dict (also what --json prints)."""
    if a.app != b.app and not force:
        raise InputError(
            "%s and %s profile different programs (%r vs %r, the first word "
            "of their '# program' lines); pass --force to compare them "
            "anyway" % (a.path, b.path, a.app, b.app))

    def total(p):
        return sum(r["total_ms"] for r in p.regions.values()
                   if r["kind"] != USER_KIND)

    tot_a, tot_b = total(a), total(b)
    rows = []
    for name in set(a.regions) | set(b.regions):
        ra, rb = a.regions.get(name), b.regions.get(name)
        kind = (ra or rb)["kind"]
        if ra and rb and ra["kind"] != rb["kind"]:
            kind = "%s/%s" % (ra["kind"], rb["kind"])
        row = {
            "region": name,
            "kind": kind,
            "user_region": (ra or rb)["kind"] == USER_KIND,
            "calls_a": int(ra["calls"]) if ra else None,
            "calls_b": int(rb["calls"]) if rb else None,
            "ms_a": ra["total_ms"] if ra else None,
            "ms_b": rb["total_ms"] if rb else None,
            "share_a": (ra["total_ms"] / tot_a if ra and tot_a > 0 else None),
            "share_b": (rb["total_ms"] / tot_b if rb and tot_b > 0 else None),
            "speedup": None,
            "only": "A" if rb is None else ("B" if ra is None else None),
        }
        if ra and rb and rb["total_ms"] > 0:
            row["speedup"] = ra["total_ms"] / rb["total_ms"]
        rows.append(row)
    # By time on A, longest first; regions only in B after, by time on B.
    rows.sort(key=lambda r: (r["ms_a"] is None,
                             -(r["ms_a"] if r["ms_a"] is not None
                               else r["ms_b"]), r["region"]))
    side = lambda p: {"file": p.path, "backend": p.backend,
                      "device": p.device, "program": p.program,
                      "lost": p.lost}
    return {
        "app": a.app if a.app == b.app else "%s vs %s" % (a.app, b.app),
        "name": os.path.splitext(os.path.basename(a.path))[0],
        "a": side(a),
        "b": side(b),
        "total_ms_a": tot_a,
        "total_ms_b": tot_b,
        "speedup_total": tot_a / tot_b if tot_b > 0 else None,
        "rows": rows,
    }


# ----------------------------------------------------------------------------
# Text output


def fixed2(x):
    """x > 0 with two significant digits, no exponent: 0.00017."""
    decimals = min(12, 1 - int(math.floor(math.log10(x))))
    return "%.*f" % (decimals, x)


def fmt_ms(ms):
    if ms is None:
        return "-"
    if ms == 0:
        return "0"
    if ms >= 100:
        return "%.1f" % ms
    if ms >= 1:
        return "%.3f" % ms
    if ms >= 0.01:
        return "%.4f" % ms
    return fixed2(ms)


def fmt_share(share, user_region):
    if share is None:
        return "-"
    text = "%.1f%%" % (100.0 * share)
    return "(%s)" % text if user_region else text


def fmt_ratio(ratio):
    """2.00x; below 0.1 two significant digits (0.0045x) rather than 0.00x."""
    if ratio >= 0.1 or ratio == 0:
        return "%.2fx" % ratio
    return fixed2(ratio) + "x"


def fmt_speedup(row):
    if row["only"]:
        return "only in %s" % row["only"]
    if row["speedup"] is None:
        return "- (B 0 ms)" if row["ms_a"] else "-"
    return fmt_ratio(row["speedup"])


def md_cell(text):
    return str(text).replace("|", "\\|")


def render_table(cmp):
    a, b = cmp["a"], cmp["b"]
    out = []
    out.append("## %s" % cmp["app"])
    out.append("")
    out.append("- A: `%s` — %s on %s — `%s`"
               % (a["file"], a["backend"], a["device"], a["program"]))
    out.append("- B: `%s` — %s on %s — `%s`"
               % (b["file"], b["backend"], b["device"], b["program"]))
    out.append("- speedup = A/B (above 1: B is faster); share = the region's "
               "share of its side's total over the regions of kind other "
               "than \"region\" (user regions, in parentheses, may contain "
               "others and are not counted)")
    for key, label in (("a", "A"), ("b", "B")):
        if cmp[key]["lost"]:
            out.append("- warning: %s lost %d measurements (its times are "
                       "incomplete)" % (label, cmp[key]["lost"]))
    out.append("")
    head = ["region", "kind", "calls A", "calls B",
            "A %s ms" % a["backend"], "B %s ms" % b["backend"],
            "speedup A/B", "share A", "share B"]
    out.append("| " + " | ".join(md_cell(h) for h in head) + " |")
    out.append("|" + "|".join(["---", "---"] + ["---:"] * 7) + "|")
    for r in cmp["rows"]:
        cells = [r["region"], r["kind"],
                 "-" if r["calls_a"] is None else r["calls_a"],
                 "-" if r["calls_b"] is None else r["calls_b"],
                 fmt_ms(r["ms_a"]), fmt_ms(r["ms_b"]), fmt_speedup(r),
                 fmt_share(r["share_a"], r["user_region"]),
                 fmt_share(r["share_b"], r["user_region"])]
        out.append("| " + " | ".join(md_cell(c) for c in cells) + " |")
    sp = cmp["speedup_total"]
    out.append("| **total** (kinds other than \"region\") | | | | %s | %s | "
               "%s | 100%% | 100%% |"
               % (fmt_ms(cmp["total_ms_a"]), fmt_ms(cmp["total_ms_b"]),
                  "-" if sp is None else fmt_ratio(sp)))
    out.append("")
    return "\n".join(out)


# ----------------------------------------------------------------------------
# Charts


def load_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None


def write_chart(plt, cmp, path):
    rows = cmp["rows"]
    a, b = cmp["a"], cmp["b"]
    names = [r["region"] for r in rows]
    ms_a = [r["ms_a"] or 0.0 for r in rows]
    ms_b = [r["ms_b"] or 0.0 for r in rows]
    positive = [v for v in ms_a + ms_b if v > 0]
    log = bool(positive) and max(positive) / min(positive) > LOG_SPREAD
    height = 1.2 + 0.55 * max(len(rows), 1)
    fig, ax = plt.subplots(figsize=(9.5, height))
    y = list(range(len(rows)))
    bar = 0.38
    la = "A: %s" % a["backend"]
    lb = "B: %s" % b["backend"]
    ax.barh([i - bar / 2 for i in y], ms_a, bar, label=la, color="#4878a8")
    ax.barh([i + bar / 2 for i in y], ms_b, bar, label=lb, color="#e0823d")
    ax.set_yticks(y)
    ax.set_yticklabels(names)
    ax.invert_yaxis()  # longest on A at the top, as in the table
    if log:
        ax.set_xscale("log")
    ax.set_xlabel("total time per region, ms%s"
                  % (" (log scale)" if log else ""))
    right = max(positive) if positive else 1.0
    for i, r in enumerate(rows):
        label = fmt_speedup(r)
        if r["speedup"] is not None:
            label = "A/B %s" % label
        x = max(r["ms_a"] or 0.0, r["ms_b"] or 0.0)
        if x <= 0:
            x = min(positive) if positive else 0.0
        ax.text(x * (1.15 if log else 1.0) + (0 if log else right * 0.01),
                i, label, va="center", fontsize=8)
    if log:
        ax.set_xlim(right=right * 8)
    else:
        ax.set_xlim(right=right * 1.25)
    ax.set_title("%s: A %s (%s) vs B %s (%s)"
                 % (cmp["app"], a["backend"], a["device"], b["backend"],
                    b["device"]), fontsize=9)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ----------------------------------------------------------------------------
# Main


PROFILE_EXTS = (".csv", ".json")


def pair_dirs(dir_a, dir_b):
    def files(d):
        try:
            return {n for n in os.listdir(d)
                    if n.endswith(PROFILE_EXTS)
                    and os.path.isfile(os.path.join(d, n))}
        except OSError as e:
            raise InputError("%s: cannot list: %s" % (d, e)) from None

    fa, fb = files(dir_a), files(dir_b)
    both = sorted(fa & fb)
    if not both:
        raise InputError("%s and %s have no profile (.csv or .json) with the "
                         "same file name" % (dir_a, dir_b))
    return ([(os.path.join(dir_a, n), os.path.join(dir_b, n)) for n in both],
            sorted(fa - fb), sorted(fb - fa))


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="duo-profile-diff", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", metavar="A", help="profile file or directory (A)")
    ap.add_argument("b", metavar="B", help="profile file or directory (B)")
    ap.add_argument("--chart", metavar="PNG",
                    help="two files: write a bar chart of A's and B's time "
                    "per region (log scale when the times span more than "
                    "%gx; needs matplotlib)" % LOG_SPREAD)
    ap.add_argument("--chart-dir", metavar="DIR",
                    help="write one such chart per pair, DIR/<name of A's "
                    "file without extension>.png")
    ap.add_argument("--json", action="store_true",
                    help="print the comparison as JSON instead of tables")
    ap.add_argument("--force", action="store_true",
                    help="compare profiles of different programs")
    args = ap.parse_args(argv)

    try:
        dirs = [os.path.isdir(p) for p in (args.a, args.b)]
        only_a, only_b = [], []
        if all(dirs):
            if args.chart:
                raise InputError("--chart takes one PNG for two files; with "
                                 "two directories use --chart-dir DIR")
            pairs, only_a, only_b = pair_dirs(args.a, args.b)
        elif any(dirs):
            raise InputError("give two profile files or two directories, "
                             "not one of each (%s, %s)" % (args.a, args.b))
        else:
            pairs = [(args.a, args.b)]
        comparisons = [compare(read_profile(pa), read_profile(pb), args.force)
                       for pa, pb in pairs]
    except InputError as e:
        print("duo-profile-diff: %s" % e, file=sys.stderr)
        return 2

    if args.json:
        doc = {"format": "duo-profile-diff 1", "speedup": "A/B",
               "share_total": "regions of kind other than 'region'",
               "apps": comparisons, "only_in_a": only_a, "only_in_b": only_b}
        print(json.dumps(doc, indent=1))
    else:
        print("\n".join(render_table(c) for c in comparisons), end="")
        for label, names in (("A", only_a), ("B", only_b)):
            if names:
                print("\nProfiles only in %s (not compared): %s"
                      % (label, ", ".join(names)))

    charts = []
    if args.chart:
        charts.append((comparisons[0], args.chart))
    if args.chart_dir:
        for c in comparisons:
            charts.append((c, os.path.join(args.chart_dir,
                                           c["name"] + ".png")))
    if charts:
        plt = load_pyplot()
        if plt is None:
            print("chart skipped: matplotlib not installed "
                  "(python3 -m pip install matplotlib, or run "
                  "profiles/install_tools.sh)", file=sys.stderr)
        else:
            if args.chart_dir:
                os.makedirs(args.chart_dir, exist_ok=True)
            for c, path in charts:
                try:
                    write_chart(plt, c, path)
                except OSError as e:
                    print("duo-profile-diff: %s: cannot write the chart: %s"
                          % (path, e), file=sys.stderr)
                    return 2
                print("chart written: %s" % path, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
