"""A small renderer of Helm chart templates, for checking deploy/helm/arrayd
where no `helm` binary is installed (none is in Debian's archive or PyPI).

It implements the part of Go's text/template and of Helm's functions that
the chart uses, strictly: a field missing from the values, an unknown
function or a malformed action is an error (Helm would print an empty
value), so a typo in a template fails the test.

    objects = render_chart(Path("deploy/helm/arrayd"), {"kind": "Deployment"})

Actions: {{ pipeline }}, {{- / -}} trimming, {{/* comments */}}, if / else
if / else / end, with, range (over lists), define / include, and pipelines
of fields (.Values.a.b, $.Values.a, .), string and number literals,
parenthesized pipelines and the functions in FUNCS.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

import yaml


class TemplateError(Exception):
    pass


class RenderFailure(TemplateError):
    """The chart's own `fail` or `required` stopped the rendering."""


# -- lexing -------------------------------------------------------------------

_ACTION = re.compile(r"\{\{(-\s)?(.*?)(\s-)?\}\}", re.S)


def _lex(text: str) -> list[tuple[str, str]]:
    """[(kind, value)]: kind "text" or "action", trims applied."""
    out: list[tuple[str, str]] = []
    pos = 0
    trim_next = False
    for m in _ACTION.finditer(text):
        chunk = text[pos:m.start()]
        if trim_next:
            chunk = chunk.lstrip()
        if m.group(1):
            chunk = chunk.rstrip()
        out.append(("text", chunk))
        body = m.group(2).strip()
        if not (body.startswith("/*") and body.endswith("*/")):
            out.append(("action", body))
        trim_next = bool(m.group(3))
        pos = m.end()
    chunk = text[pos:]
    out.append(("text", chunk.lstrip() if trim_next else chunk))
    return out


# -- parsing --------------------------------------------------------------------

class _Node:
    pass


class _Text(_Node):
    def __init__(self, text: str):
        self.text = text


class _Action(_Node):
    def __init__(self, pipe: str):
        self.pipe = pipe


class _Block(_Node):
    """if (branches of (pipeline, body)), with, range; else_body."""

    def __init__(self, kind: str):
        self.kind = kind
        self.branches: list[tuple[str, list[_Node]]] = []
        self.else_body: list[_Node] = []


def _parse(tokens: list[tuple[str, str]], defines: dict[str, list[_Node]]) -> list[_Node]:
    root: list[_Node] = []
    stack: list[tuple[Any, list[_Node]]] = [(None, root)]
    for kind, value in tokens:
        body = stack[-1][1]
        if kind == "text":
            if value:
                body.append(_Text(value))
            continue
        word, _, rest = value.partition(" ")
        rest = rest.strip()
        if word in ("if", "with", "range"):
            block = _Block(word)
            block.branches.append((rest, []))
            body.append(block)
            stack.append((block, block.branches[-1][1]))
        elif word == "define":
            name = _string_literal(rest)
            defines[name] = []
            stack.append(("define", defines[name]))
        elif word == "else":
            block = stack[-1][0]
            if not isinstance(block, _Block):
                raise TemplateError("else outside if/with/range")
            stack.pop()
            if rest.startswith("if "):
                block.branches.append((rest[3:].strip(), []))
                stack.append((block, block.branches[-1][1]))
            else:
                stack.append((block, block.else_body))
        elif word == "end":
            if len(stack) == 1:
                raise TemplateError("end without a block")
            stack.pop()
        else:
            body.append(_Action(value))
    if len(stack) != 1:
        raise TemplateError("a block is not closed with end")
    return root


def _string_literal(text: str) -> str:
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise TemplateError(f"expected a string literal: {text}")
    return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")


# -- evaluation -----------------------------------------------------------------

def _truthy(v: Any) -> bool:
    """Go's template truth: false, 0, nil and empty strings, lists and maps
    are false."""
    if v is None or isinstance(v, bool):
        return bool(v)
    if isinstance(v, (int, float, str, list, dict)):
        return bool(v)
    return True


def _print(v: Any) -> str:
    if v is None:
        raise TemplateError("printed a missing value")
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        raise TemplateError(f"printed a map or list without toYaml: {v!r}")
    return str(v)


def _to_yaml(v: Any) -> str:
    if v is None or v == {} or v == []:
        return ""  # Helm's toYaml of an empty value, as `with` skips it
    return yaml.safe_dump(v, default_flow_style=False, sort_keys=True).rstrip("\n")


def _indent(n: int, s: str) -> str:
    pad = " " * int(n)
    return "\n".join(pad + line if line else line for line in s.split("\n"))


def _printf(fmt: str, *args: Any) -> str:
    parts = iter(args)
    return re.sub(r"%[svd]", lambda m: _print(next(parts)), fmt)


def _required(msg: str, v: Any) -> Any:
    if not _truthy(v):
        raise RenderFailure(msg)
    return v


def _fail(msg: str) -> str:
    raise RenderFailure(msg)


def _quote(v: Any) -> str:
    s = _print(v)
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


FUNCS: dict[str, Callable[..., Any]] = {
    "quote": _quote,
    "toYaml": _to_yaml,
    "nindent": lambda n, s: "\n" + _indent(n, s),
    "indent": _indent,
    "printf": _printf,
    "trunc": lambda n, s: s[:int(n)],
    "trimSuffix": lambda suf, s: s[:-len(suf)] if suf and s.endswith(suf) else s,
    "replace": lambda old, new, s: s.replace(old, new),
    "contains": lambda sub, s: sub in s,
    "default": lambda d, v=None: v if _truthy(v) else d,
    "required": _required,
    "fail": _fail,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "not": lambda a: not _truthy(a),
    "and": lambda *a: next((x for x in a if not _truthy(x)), a[-1]),
    "or": lambda *a: next((x for x in a if _truthy(x)), a[-1]),
}

_TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\(|\)|\||[^\s()|]+)')


def _tokens(expr: str) -> list[str]:
    out, pos = [], 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m:
            raise TemplateError(f"cannot read {expr[pos:]!r}")
        out.append(m.group(1))
        pos = m.end()
        while pos < len(expr) and expr[pos].isspace():
            pos += 1
    return out


class _Renderer:
    def __init__(self, root: dict[str, Any], defines: dict[str, list[_Node]]):
        self.root = root
        self.defines = defines

    def render(self, nodes: list[_Node], dot: Any) -> str:
        out = []
        for node in nodes:
            if isinstance(node, _Text):
                out.append(node.text)
            elif isinstance(node, _Action):
                out.append(_print(self.pipeline(node.pipe, dot)))
            elif isinstance(node, _Block):
                out.append(self.block(node, dot))
        return "".join(out)

    def block(self, node: _Block, dot: Any) -> str:
        if node.kind == "if":
            for cond, body in node.branches:
                if _truthy(self.pipeline(cond, dot)):
                    return self.render(body, dot)
            return self.render(node.else_body, dot)
        value = self.pipeline(node.branches[0][0], dot)
        body = node.branches[0][1]
        if not _truthy(value):
            return self.render(node.else_body, dot)
        if node.kind == "with":
            return self.render(body, value)
        if not isinstance(value, list):
            raise TemplateError("range over a non-list is not supported here")
        return "".join(self.render(body, item) for item in value)

    def pipeline(self, expr: str, dot: Any) -> Any:
        toks = _tokens(expr)
        value, pos = self._pipe(toks, 0, dot)
        if pos != len(toks):
            raise TemplateError(f"unexpected {toks[pos]!r} in {expr!r}")
        return value

    def _pipe(self, toks: list[str], pos: int, dot: Any) -> tuple[Any, int]:
        value, pos, have = None, pos, False
        while True:
            args: list[Any] = []
            name = None
            start = pos
            while pos < len(toks) and toks[pos] not in ("|", ")"):
                if toks[pos] == "(":
                    v, pos = self._pipe(toks, pos + 1, dot)
                    if pos >= len(toks) or toks[pos] != ")":
                        raise TemplateError("unclosed (")
                    pos += 1
                    args.append(v)
                elif pos == start and (toks[pos] in FUNCS or toks[pos] == "include"):
                    name = toks[pos]
                    pos += 1
                else:
                    args.append(self.operand(toks[pos], dot))
                    pos += 1
            if have:
                args.append(value)
            if name == "include":
                value = self.include(*args)
            elif name is not None:
                value = FUNCS[name](*args)
            elif len(args) == 1:
                value = args[0]
            else:
                raise TemplateError(f"not a function: {toks[start:pos]}")
            have = True
            if pos < len(toks) and toks[pos] == "|":
                pos += 1
                continue
            return value, pos

    def include(self, name: str, dot: Any) -> str:
        if name not in self.defines:
            raise TemplateError(f"no template {name!r}")
        return self.render(self.defines[name], dot)

    def operand(self, tok: str, dot: Any) -> Any:
        if tok.startswith('"'):
            return _string_literal(tok)
        if re.fullmatch(r"-?\d+", tok):
            return int(tok)
        if tok in ("true", "false"):
            return tok == "true"
        if tok == ".":
            return dot
        if tok.startswith("$"):
            base, path = self.root, tok[1:]
        elif tok.startswith("."):
            base, path = dot, tok
        else:
            raise TemplateError(f"unknown function or operand {tok!r}")
        for key in [p for p in path.split(".") if p]:
            if not isinstance(base, dict) or key not in base:
                raise TemplateError(f"no field {key!r} in {tok}")
            base = base[key]
        return base


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Values `over` laid onto `base`, maps merged key by key (helm --set)."""
    out = dict(base)
    for k, v in over.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def render_chart(chart: Path, values: dict[str, Any] | None = None,
                 release: str = "arrayd", namespace: str = "gpu") -> dict[str, str]:
    """{template file name: rendered text} of every template (not _*.tpl)."""
    meta = yaml.safe_load((chart / "Chart.yaml").read_text())
    defaults = yaml.safe_load((chart / "values.yaml").read_text())
    root = {
        "Values": merge(defaults, values or {}),
        "Release": {"Name": release, "Namespace": namespace, "Service": "Helm"},
        "Chart": {"Name": meta["name"], "Version": meta["version"],
                  "AppVersion": meta["appVersion"]},
    }
    defines: dict[str, list[_Node]] = {}
    files = sorted((chart / "templates").iterdir())
    parsed = {}
    for f in files:
        nodes = _parse(_lex(f.read_text()), defines)
        if not f.name.startswith("_"):
            parsed[f.name] = nodes
    r = _Renderer(root, defines)
    return {name: r.render(nodes, root) for name, nodes in parsed.items()}


def render_objects(chart: Path, values: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The Kubernetes objects the chart's YAML templates render to."""
    out = []
    for name, text in render_chart(chart, values).items():
        if not name.endswith(".yaml"):
            continue
        out += [doc for doc in yaml.safe_load_all(text) if doc]
    return out
