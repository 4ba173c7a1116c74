"""deploy/grafana/arrayd-dashboard.json: valid JSON that Grafana can import
(a ${DS_PROMETHEUS} input, an `instance` variable, panels that do not
overlap), and every PromQL expression in it names only metrics that
server/rpc/metrics.cc exports, grouped by labels it sets. Needs no server.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DASHBOARD = REPO / "deploy" / "grafana" / "arrayd-dashboard.json"
METRICS_CC = REPO / "server" / "rpc" / "metrics.cc"

# Labels Prometheus adds to every scraped series, and a histogram's bucket label.
SCRAPE_LABELS = {"instance", "job"}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")

PROMQL_KEYWORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "bool",
    "and", "or", "unless", "offset", "inf", "nan",
}
_IDENT = re.compile(r"(?<![\w.$:])[a-zA-Z_:][a-zA-Z0-9_:]*")
_GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)")


@pytest.fixture(autouse=True)
def session():
    """Overrides conftest's server session: these tests only read files."""
    yield None


def exported() -> tuple[set[str], set[str], set[str]]:
    """(plain metric names, histogram names, label names) from metrics.cc."""
    text = METRICS_CC.read_text()
    plain = set(re.findall(r'\bFamily\(\s*"(arrayd_\w+)"', text))
    histograms = set(re.findall(r'\bHistogram\(\s*"(arrayd_\w+)"', text))
    labels = set(re.findall(r'\{\s*"([a-z_]+)"\s*,', text))
    return plain, histograms, labels


def allowed_names() -> set[str]:
    plain, histograms, _ = exported()
    return plain | {h + s for h in histograms for s in HISTOGRAM_SUFFIXES}


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects.

    Drops strings, label matchers ({...}), ranges ([...]), grouping clauses
    (by/without/on/ignoring (...)), function calls and keywords; what is left
    is metric names.
    """
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    expr = re.sub(r"\{[^}]*\}", " ", expr)
    expr = re.sub(r"\[[^\]]*\]", " ", expr)
    expr = _GROUPING.sub(" ", expr)
    names = set()
    for m in _IDENT.finditer(expr):
        if re.match(r"\s*\(", expr[m.end():]):  # a function
            continue
        if m.group(0).lower() in PROMQL_KEYWORDS:
            continue
        names.add(m.group(0))
    return names


def grouping_labels(expr: str) -> set[str]:
    labels = set()
    for m in _GROUPING.finditer(expr):
        labels.update(x.strip() for x in m.group(2).split(",") if x.strip())
    return labels


def all_panels(dashboard: dict) -> list[dict]:
    out = []
    for p in dashboard["panels"]:
        out.append(p)
        out.extend(p.get("panels", []))  # a collapsed row holds its panels
    return out


def expressions(dashboard: dict) -> list[tuple[str, str]]:
    """(where, PromQL) for every panel target and query variable."""
    out = []
    for p in all_panels(dashboard):
        for t in p.get("targets", []):
            out.append((f"panel {p['title']!r} target {t['refId']}", t["expr"]))
    for v in dashboard["templating"]["list"]:
        if v["type"] != "query":
            continue
        q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
        m = re.fullmatch(r"\s*label_values\((?:(.*),)?\s*(\w+)\s*\)\s*", q)
        out.append((f"variable {v['name']!r}", m.group(1) if m and m.group(1) else q))
    return out


@pytest.fixture(scope="module")
def dashboard() -> dict:
    return json.loads(DASHBOARD.read_text())


def test_metric_name_parser():
    """The checks below can fail: the parser finds names and skips the rest."""
    assert metric_names(
        'histogram_quantile(0.99, sum by (le) (rate(arrayd_sync_seconds_bucket'
        '{instance=~"$instance"}[$__rate_interval])))') == {"arrayd_sync_seconds_bucket"}
    assert metric_names("a_total / ignoring(x) group_left b * 1e-3") == {"a_total", "b"}
    assert "arrayd_bogus_total" not in allowed_names()
    plain, histograms, labels = exported()
    assert {"arrayd_sessions_open", "arrayd_ops_total", "arrayd_gpu_memory_bytes"} <= plain
    assert histograms == {"arrayd_batch_seconds", "arrayd_sync_seconds"}
    assert {"op", "state", "client", "direction", "transport", "cache", "gpu"} <= labels


def test_dashboard_is_importable(dashboard):
    assert 36 <= dashboard["schemaVersion"] <= 40
    assert [i["name"] for i in dashboard["__inputs"]] == ["DS_PROMETHEUS"]
    assert dashboard["__inputs"][0]["pluginId"] == "prometheus"
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert "instance" in variables
    panels = all_panels(dashboard)
    ids = [p["id"] for p in panels]
    assert len(ids) == len(set(ids)), "panel ids repeat"
    for p in panels:
        if p["type"] != "row":
            assert p["datasource"]["uid"] == "${DS_PROMETHEUS}", p["title"]
            assert p["targets"], p["title"]
        for t in p.get("targets", []):
            assert t["datasource"]["uid"] == "${DS_PROMETHEUS}", p["title"]
    for v in variables.values():
        if v["type"] == "query":
            assert v["datasource"]["uid"] == "${DS_PROMETHEUS}", v["name"]


def test_panels_do_not_overlap(dashboard):
    cells = {}
    for p in dashboard["panels"]:
        g = p["gridPos"]
        assert g["x"] >= 0 and g["x"] + g["w"] <= 24, p["title"]
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                assert (x, y) not in cells, f"{p['title']!r} overlaps {cells[(x, y)]!r}"
                cells[(x, y)] = p["title"]


def test_expressions_use_only_exported_metrics(dashboard):
    allowed = allowed_names()
    _, histograms, labels = exported()
    exprs = expressions(dashboard)
    assert len(exprs) > 10
    for where, expr in exprs:
        names = metric_names(expr)
        assert names, f"{where}: no metric in {expr!r}"
        assert names <= allowed, f"{where}: not in metrics.cc: {sorted(names - allowed)}"
        grouped = grouping_labels(expr)
        assert grouped <= labels | SCRAPE_LABELS | {"le"}, f"{where}: labels {grouped}"
        if "histogram_quantile" in expr:
            assert all(n[: -len("_bucket")] in histograms for n in names), where
            assert "le" in grouped, f"{where}: histogram_quantile needs by (le)"
