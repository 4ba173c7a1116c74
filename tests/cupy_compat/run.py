#!/usr/bin/env python3
"""Runs CuPy's own test suite (CuPy 14.0.1) against arrayd and reports.

CuPy's tests are not part of this repository: the CuPy sdist is downloaded
with pip on first use and cached (ARRAYD_CUPY_SDIST_DIR, default
<repo>/.cupy-sdist/, git-ignored). Each run unpacks the selected test
files, CuPy's ``cupy/testing`` package and CuPy's pytest settings
(pyproject.toml) into a temporary directory, puts the forwarding ``cupy``
module of shim/ in front of arrayd and runs pytest there with
cupy_compat_plugin (one arrayd server per worker, deselect.txt, time
limits). It prints per-file counts, the most frequent failure causes and
``P passed, F failed``, and writes summary.json and table.md to --out.

    tests/cupy_compat/run.py                      # the whole selection, -n 2
    tests/cupy_compat/run.py --files math_tests/test_sumprod.py -n 1
    tests/cupy_compat/run.py --subset ci --time-limit 600
    tests/cupy_compat/run.py -- -x -k TestSum     # extra pytest arguments

The server is ARRAYD_SERVER_BIN (default <repo>/build/bin/arrayd) with
--backend $ARRAYD_BACKEND (default cpu). The exit status is 0 when pytest
ran, whatever the pass rate (the rate is a target, not a gate), and non-zero
when the run itself could not happen (no sdist, no server, pytest crashed).
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CUPY_VERSION = "14.0.1"
SDIST = f"cupy-{CUPY_VERSION}.tar.gz"

# The NumPy-facing part of tests/cupy_tests (issue 12, deliverable 5).
SELECTION = [
    "creation_tests/test_*.py",
    "manipulation_tests/test_*.py",
    "indexing_tests/test_*.py",
    "core_tests/test_ndarray*.py",
    "core_tests/test_nep50_examples.py",
    "core_tests/test_array_function.py",
    "math_tests/test_*.py",
    "logic_tests/test_*.py",
    "sorting_tests/test_*.py",
    "statistics_tests/test_*.py",
    "linalg_tests/test_*.py",
    "fft_tests/test_*.py",
    "padding_tests/test_*.py",
]


def sdist_path(cache: Path) -> Path:
    """The cached sdist, downloaded with pip when it is not there yet."""
    path = cache / SDIST
    if path.is_file():
        return path
    cache.mkdir(parents=True, exist_ok=True)
    print(f"downloading the CuPy {CUPY_VERSION} sdist into {cache} "
          "(about a minute, once)", flush=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                    "--no-binary", "cupy", f"cupy=={CUPY_VERSION}", "-d",
                    str(cache)], check=True)
    if not path.is_file():
        sys.exit(f"pip did not leave {path}")
    return path


def unpack(sdist: Path, dest: Path) -> None:
    """CuPy's tests/cupy_tests and tests/cupyx_tests, cupy/testing and
    pyproject.toml into dest."""
    prefix = f"cupy-{CUPY_VERSION}/"
    wanted = ("tests/cupy_tests/", "tests/cupyx_tests/", "cupy/testing/",
              "pyproject.toml")
    with tarfile.open(sdist) as tar:
        members = []
        for m in tar.getmembers():
            name = m.name[len(prefix):] if m.name.startswith(prefix) else ""
            if name.startswith(wanted) and (m.isfile() or m.isdir()):
                m.name = name
                members.append(m)
        tar.extractall(dest, members=members, filter="data")
    # Our forwarding cupy package around CuPy's testing package.
    for pkg in ("cupy", "cupyx"):
        shutil.copytree(HERE / "shim" / pkg, dest / pkg, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))


# The two test trees of the sdist; a path in neither is cupy_tests-relative.
TREES = ("cupy_tests/", "cupyx_tests/")


def select_files(root: Path, patterns: list[str]) -> list[str]:
    """The files under root (CuPy's tests/) that the globs name, relative to
    root. A glob starting with cupyx_tests/ (or cupy_tests/) is relative to
    tests/; any other is relative to tests/cupy_tests/. A folder stands for
    its test_*.py files."""
    files: list[str] = []
    for pat in patterns:
        full = pat if pat.startswith(TREES) else "cupy_tests/" + pat
        hits = sorted(str(f.relative_to(root)) for p in root.glob(full)
                      for f in (sorted(p.glob("test_*.py")) if p.is_dir()
                                else [p]))
        if not hits:
            sys.exit(f"--files: nothing matches {pat!r} in CuPy's tests/")
        files += [h for h in hits if h not in files]
    return files


def short_name(path: str) -> str:
    """A test path as the report names it: cupy_tests-relative for
    tests/cupy_tests (math_tests/test_sumprod.py), from cupyx_tests/ for
    tests/cupyx_tests (cupyx_tests/scipy_tests/fft_tests/test_fft.py)."""
    for tree in TREES:
        i = path.find(tree)
        if i >= 0 and (i == 0 or path[i - 1] in "/."):
            rest = path[i:]
            return rest[len("cupy_tests/"):] if tree == "cupy_tests/" else rest
    return path


def module_of(file: str) -> str:
    """The folder a reported file is in: fft_tests,
    cupyx_tests/scipy_tests/fft_tests, or the file itself at the top."""
    return file.rpartition("/")[0] or file


def read_subset(name: str) -> list[str]:
    path = HERE / f"subset_{name}.txt"
    if not path.is_file():
        sys.exit(f"no subset {name!r} ({path})")
    return [line.split("#")[0].strip() for line in path.read_text().splitlines()
            if line.split("#")[0].strip()]


_ADDR = re.compile(r"0x[0-9a-f]+")
_NUM = re.compile(r"(?<![A-Za-z_])-?\d+(\.\d+)?(e[-+]?\d+)?")


_EXC = re.compile(r"^E\s+((?:\w+\.)*\w*(?:Error|Exception|Warning|Exit|"
                  r"Interrupt|Timeout)\b:?.*)$")


def cause_of(element: ET.Element) -> str:
    """One line that groups failures: the exception and its message, with
    numbers and addresses blanked. When cupy.testing reports "Only cupy
    raises error" or "Different types of errors", the cause is arrayd's own
    exception, the last one in the report."""
    text = element.text or ""
    lines = [ln for ln in text.splitlines() if re.match(r"^E\s+\S", ln)]
    if lines:
        line = lines[0][1:].strip()
        if line.startswith(("AssertionError: Only cupy raises error",
                            "AssertionError: Different types of errors")):
            exc = [m.group(1) for ln in lines[1:] if (m := _EXC.match(ln))]
            tag = "only arrayd raises" if "Only" in line else "other error"
            if exc:
                line = f"{tag}: {exc[-1]}"
    else:
        line = (element.get("message") or "").strip().split("\n")[0]
    line = re.sub(r"<[^<>]* at 0x[0-9a-f]+>", "<obj>", line)
    line = _ADDR.sub("0x.", line)
    line = _NUM.sub("N", line)
    return line[:150]


def file_of(classname: str) -> str:
    """tests.cupy_tests.math_tests.test_sumprod.TestSum -> math_tests/...py,
    tests.cupyx_tests.scipy_tests.fft_tests.test_fft.TestFft ->
    cupyx_tests/scipy_tests/fft_tests/test_fft.py"""
    parts = classname.split(".")
    if "cupy_tests" in parts:
        parts = parts[parts.index("cupy_tests") + 1:]
    elif "cupyx_tests" in parts:
        parts = parts[parts.index("cupyx_tests"):]
    for i, part in enumerate(parts):
        if part.startswith("test_"):
            return "/".join(parts[:i + 1]) + ".py"
    return "/".join(parts) or "(unknown)"


def parse_junit(path: Path) -> tuple[dict, list]:
    """Per-file counts (and seconds) and the failure causes from pytest's
    junit xml."""
    counts: dict[str, collections.Counter] = collections.defaultdict(
        collections.Counter)
    seconds: dict[str, float] = collections.defaultdict(float)
    failures = []
    tree = ET.parse(path)
    for case in tree.iter("testcase"):
        file = file_of(case.get("classname", "") or case.get("name", ""))
        seconds[file] += float(case.get("time") or 0)
        c = counts[file]
        fail = case.find("failure")
        err = case.find("error")
        skip = case.find("skipped")
        if fail is not None or err is not None:
            el = fail if fail is not None else err
            c["failed"] += 1
            failures.append((file, case.get("name"), cause_of(el)))
        elif skip is not None:
            if "compat run time limit" in (skip.get("message") or ""):
                c["not_run"] += 1
            else:
                c["skipped"] += 1
        else:
            c["passed"] += 1
    for f, t in seconds.items():
        counts[f]["seconds"] = round(t)
    return counts, failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", nargs="+", metavar="GLOB",
                    help="test files relative to tests/cupy_tests (globs), "
                         "or tests/-relative ones under cupyx_tests/; "
                         "default: the whole NumPy-facing selection")
    ap.add_argument("--subset", help="a fixed file list: subset_NAME.txt")
    ap.add_argument("--time-limit", type=float, default=0,
                    help="seconds for the whole run; tests not started by "
                         "then are reported as not run (default: none)")
    ap.add_argument("--test-timeout", type=float, default=120,
                    help="seconds one test may take (default 120)")
    ap.add_argument("-n", "--workers", default="2",
                    help="pytest-xdist workers, one server each (default 2; "
                         "1 runs without xdist)")
    ap.add_argument("--out", default=str(REPO / ".cupy-compat-out"),
                    help="summary.json, table.md, junit.xml (git-ignored)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary run directory")
    ap.add_argument("--top", type=int, default=15,
                    help="failure causes to print (default 15)")
    ap.add_argument("pytest_args", nargs="*",
                    help="after --: passed to pytest")
    ap.add_argument("--report-only", action="store_true",
                    help="report the last run in --out again, run nothing")
    args = ap.parse_args()
    if args.report_only:
        return report(Path(args.out), args.workers, args.top)

    cache = Path(os.environ.get("ARRAYD_CUPY_SDIST_DIR",
                                REPO / ".cupy-sdist"))
    sdist = sdist_path(cache)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("deselected-*.txt"):
        old.unlink()
    for old in out.glob("restarts-*.txt"):
        old.unlink()

    os.environ.setdefault("ARRAYD_SERVER_BIN",
                          str(REPO / "build" / "bin" / "arrayd"))
    os.environ.setdefault("ARRAYD_BACKEND", "cpu")
    tmp = Path(tempfile.mkdtemp(prefix="cupy-compat-"))
    try:
        unpack(sdist, tmp)
        tests_root = tmp / "tests"
        patterns = (args.files or (read_subset(args.subset) if args.subset
                                   else SELECTION))
        files = select_files(tests_root, patterns)
        junit = out / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-p", "cupy_compat_plugin",
               "-q", "-p", "no:cacheprovider", "--tb=short", "-rN",
               "--continue-on-collection-errors",
               # CuPy's class-scoped fixtures written as methods: a newer
               # pytest deprecates them (an error under CuPy's own
               # filterwarnings = error), which says nothing about arrayd.
               "-W", "ignore::pytest.PytestRemovedIn10Warning",
               f"--junitxml={junit}", "-o", "junit_logging=no",
               f"--compat-deselect={HERE / 'deselect.txt'}",
               f"--compat-test-timeout={args.test_timeout}",
               f"--compat-report-dir={out}"]
        if args.workers not in ("0", "1") and not importlib.util.find_spec(
                "xdist"):
            print("pytest-xdist is not installed: one worker "
                  "(pip install pytest-xdist)")
            args.workers = "1"
        if args.workers not in ("0", "1"):
            cmd += ["-n", args.workers]
        start = time.time()
        if args.time_limit:
            cmd.append(f"--compat-deadline={start + args.time_limit}")
        cmd += [f"tests/{f}" for f in files] + args.pytest_args
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(tmp), str(REPO / "client-python"), str(HERE)] +
            ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        # Each worker sets its own server's address; this one answers no
        # one, so no process falls back to starting a shared private server.
        env["ARRAYD_ADDRESS"] = f"unix:{tmp}/no-server.sock"
        print(f"pytest on {len(files)} CuPy test files in {tmp}", flush=True)
        proc = subprocess.run(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, check=False)
        wall = time.time() - start
        (out / "pytest.log").write_text(proc.stdout)
        # pytest's own last lines (collection errors, the summary).
        print("\n".join(proc.stdout.splitlines()[-15:]))
        if proc.returncode not in (0, 1) or not junit.is_file():
            print(f"pytest exited with {proc.returncode}; see "
                  f"{out / 'pytest.log'}", file=sys.stderr)
            return 2
        (out / "wall_s.txt").write_text(f"{wall:.1f}\n")
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    return report(out, args.workers, args.top)


COLUMNS = ["passed", "failed", "skipped", "not_run", "deselected", "seconds"]


def count_table(label: str, counts: dict, total: collections.Counter) -> str:
    """A markdown table: one row a key of counts (a file or a module), its
    pass rate, and the totals."""
    lines = [f"| {label} | " + " | ".join(COLUMNS) + " | pass % |",
             "|" + "---|" * (len(COLUMNS) + 2)]
    for key in sorted(counts):
        c = counts[key]
        ran = c["passed"] + c["failed"]
        pct = f"{100 * c['passed'] / ran:.0f}" if ran else "-"
        lines.append(f"| {key} | " + " | ".join(str(c[k]) for k in COLUMNS)
                     + f" | {pct} |")
    ran = total["passed"] + total["failed"]
    pct = f"{100 * total['passed'] / ran:.1f}" if ran else "-"
    lines.append("| **total** | " + " | ".join(
        f"**{total[k]}**" for k in COLUMNS) + f" | **{pct}** |")
    return "\n".join(lines)


def report(out: Path, workers: str, top: int) -> int:
    """Prints and writes (summary.json, table.md) the results in out/."""
    counts, failures = parse_junit(out / "junit.xml")
    wall = float((out / "wall_s.txt").read_text())
    deselected_ids = set()
    for f in out.glob("deselected-*.txt"):
        deselected_ids |= set(f.read_text().splitlines())
    for nodeid in deselected_ids:
        rel = short_name(nodeid.split("::")[0])
        counts.setdefault(rel, collections.Counter())["deselected"] += 1
    restarts = sum(int(f.read_text() or 0) for f in out.glob("restarts-*.txt"))

    total = collections.Counter()
    modules: dict[str, collections.Counter] = collections.defaultdict(
        collections.Counter)
    for f, c in counts.items():
        total.update(c)
        modules[module_of(f)].update(c)
    table = count_table("file", counts, total)
    module_table = count_table("module", modules, total)
    causes = collections.Counter(c for _, _, c in failures)
    cause_lines = [f"| {n} | `{c.replace('|', '/')}` |"
                   for c, n in causes.most_common(top)]
    print()
    print(table)
    if len(modules) > 1:
        print()
        print(module_table)
    print(f"\nTop {top} failure causes (of {len(causes)} distinct):")
    for c, n in causes.most_common(top):
        print(f"{n:7d}  {c}")
    print(f"\nwall {wall:.0f} s, {workers} workers, server restarts "
          f"{restarts}, deselected {total['deselected']}")
    print(f"{total['passed']} passed, {total['failed']} failed")

    import numpy
    summary = {
        "cupy": CUPY_VERSION, "numpy": numpy.__version__,
        "backend": os.environ.get("ARRAYD_BACKEND", "cpu"), "workers": workers,
        "wall_s": round(wall, 1), "restarts": restarts,
        "totals": dict(total),
        "modules": {m: dict(modules[m]) for m in sorted(modules)},
        "files": {f: dict(counts[f]) for f in sorted(counts)},
        "causes": causes.most_common(100),
        # Each module's own most frequent causes (who works on what).
        "module_causes": {
            m: collections.Counter(
                c for f, _, c in failures if module_of(f) == m).most_common(20)
            for m in sorted(modules)},
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    (out / "table.md").write_text(
        table + "\n\n" + module_table + "\n\n| count | cause |\n|---|---|\n" + "\n".join(cause_lines)
        + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
