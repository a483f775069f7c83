"""Every path, dotted name and heading that the docstrings, comments, templates and docs mention
is in this repository, and none of them cites a document a clone does not hold (a numbered
section of a document outside it, an issue's number): as test_glossary.py does for words. A
failure lists the findings by file and line."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import io
import os
import re
import subprocess
import tokenize
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)

# What is read. Python: comments and docstrings only (a string in code is data); the shell
# scripts of scripts/ and the Makefile: their comment lines. Templates:
# their comments ({# #}, {% comment %}, <!-- -->), not their markup, whose paths are URLs or
# names under static/. CSS and JavaScript: comments. Markdown: the whole text; but the
# CHANGELOG's released entries say what was true then, so only their citations are checked.
PYTHON_FOLDERS = ("scoring", "rami_site", "bench", "scripts", "tests")
MARKDOWN = ("README.md", "CHANGELOG.md", "docs/*.md", "bench/*.md")

# Where a path is looked for, besides the root: a module path inside the app (views/poll.py),
# a template's name (scoring/game.html), a static file's name (scoring/rami.js), and, for a
# markdown file, its own folder.
BASES = ("", "scoring", "templates", "static")

# A file's name alone ("rami.js") is checked when it ends thus: it must be some file's name.
SOURCE_SUFFIXES = (".py", ".html", ".js", ".css", ".md")

# A path followed by "at <commit>" is history: it is looked for in that commit (when the clone
# has it: a shallow one may not).
#
# Deliberately ignored:
# - a path that starts with "/" (an address: /g/<token>/) or "../" outside a markdown link (a
#   shell command's), holds a placeholder (<lang>, {…}, "…", "*", NAME), is a URL's (https://…),
#   or is one git ignores (bench/node_modules: made by a run);
# - a path or file name of another project (granian/server/common.py): its first folder is an
#   installed package, not one of this repository's;
# - a dotted name whose first word is not one of the project's modules as the code names them,
#   nor one of its classes: `game.players` is a variable's attribute, `django.db.models` another
#   project's; and the module names below, which are as often a variable or a template's key;
# - a file name ending .json, .txt, .csv and the like (game.json in a command's example), and
#   the example names of EXAMPLES;
# - a number in brackets that is not a section's: "(1.5 s)", "0.73 (1.1)", a version.
AMBIGUOUS = {
    # A module's name that the code and the templates also give a variable or a context key.
    "board", "chart", "check", "files", "forms", "game", "history", "pages", "players",
    "recent", "rounds", "start", "statistics", "table", "tables",
}  # fmt: skip
PLACEHOLDERS = {"NAME", "N", "X", "TOKEN", "FILE", "LINK", "x", "_x", "y"}
EXAMPLES = {"page.html"}  # a name in a sentence about any template ("`page.html#part`")
# ASGI's message types, which read as dotted names ("http.response.start").
ASGI_TYPES = re.compile(
    r"^(http|websocket|lifespan)\.(request|response|disconnect|startup|shutdown)"
)


@dataclass(frozen=True)
class Text:
    """A piece of a file that mentions things: its first line and its words."""

    path: Path
    line: int
    text: str
    cites_only: bool = False  # history, or a name in code: only its citations are checked


@dataclass(frozen=True, order=True)
class Finding:
    file: str
    line: int
    kind: str
    text: str

    def __str__(self) -> str:
        return f"  {self.file}:{self.line}: {self.kind}: {self.text}"


def git(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603
        ["git", *arguments],  # noqa: S607
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@cache
def files() -> tuple[Path, ...]:
    """The repository's files, as git has them (a fresh clone's), and those not committed yet."""
    listed = git("ls-files", "--cached", "--others", "--exclude-standard").stdout.split("\n")
    return tuple(ROOT / name for name in listed if name and (ROOT / name).exists())


@cache
def names_of_files() -> frozenset[str]:
    return frozenset(path.name for path in files())


# Reading ---------------------------------------------------------------------------------------


def python_texts(path: Path) -> Iterator[Text]:
    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield Text(path, token.start[0], token.string)
    yield from docstrings(ast.parse(source), path, source)


def docstrings(node: ast.AST, path: Path, source: str) -> Iterator[Text]:
    """The docstrings of a module, its classes and functions (at any depth), and their names."""
    if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        # A name cites too: test_the_interface_of_spec_2_1.
        yield Text(path, node.lineno, node.name.replace("_", " "), cites_only=True)
    body = getattr(node, "body", [])
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        segment = ast.get_source_segment(source, body[0].value) or ""
        yield Text(path, body[0].lineno, segment)
    # Only statements hold definitions: the expressions are not walked.
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            yield from docstrings(child, path, source)


TEMPLATE_COMMENT = re.compile(
    r"\{#.*?#\}|\{%\s*comment\b.*?%\}.*?\{%\s*endcomment\s*%\}|<!--.*?-->", re.DOTALL
)
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def line_of(source: str, offset: int) -> int:
    return source.count("\n", 0, offset) + 1


SHELL_COMMENT = re.compile(r"^[ \t]*#(?![!#]).*$", re.MULTILINE)


def shell_texts(path: Path) -> Iterator[Text]:
    """The comment lines of a shell script or the Makefile."""
    source = path.read_text(encoding="utf-8")
    for match in SHELL_COMMENT.finditer(source):
        yield Text(path, line_of(source, match.start()), match.group())


def template_texts(path: Path) -> Iterator[Text]:
    source = path.read_text(encoding="utf-8")
    for match in TEMPLATE_COMMENT.finditer(source):
        yield Text(path, line_of(source, match.start()), match.group())


def css_texts(path: Path) -> Iterator[Text]:
    source = path.read_text(encoding="utf-8")
    for match in BLOCK_COMMENT.finditer(source):
        yield Text(path, line_of(source, match.start()), match.group())


def javascript_texts(path: Path) -> Iterator[Text]:
    """The comments of a script: /* */ and //, outside its strings and regular expressions."""
    source = path.read_text(encoding="utf-8")
    index, quote, previous = 0, "", ""
    while index < len(source):
        char = source[index]
        if quote:
            if char == "\\":
                index += 2
                continue
            if char == quote or (char == "\n" and quote == "/"):
                quote = ""
            index += 1
            continue
        if source.startswith("/*", index):
            end = source.find("*/", index) + 2
            yield Text(path, line_of(source, index), source[index:end])
            index = end
            continue
        if source.startswith("//", index):
            end = source.find("\n", index)
            end = len(source) if end < 0 else end
            yield Text(path, line_of(source, index), source[index:end])
            index = end
            continue
        if char in "'\"`":
            quote = char
        elif char == "/" and previous in "(,=:[!&|?{};+-*%<>~^\n":
            quote = "/"  # a regular expression's literal
        if not char.isspace():
            previous = char
        elif char == "\n":
            previous = previous or "\n"
        index += 1


RELEASED = re.compile(r"^## (?!.*unreleased)", re.MULTILINE | re.IGNORECASE)


def markdown_texts(path: Path) -> Iterator[Text]:
    source = path.read_text(encoding="utf-8")
    if path.name == "CHANGELOG.md":
        released = RELEASED.search(source)
        if released:
            yield Text(path, 1, source[: released.start()])
            yield Text(path, line_of(source, released.start()), source[released.start() :], True)
            return
    yield Text(path, 1, source)


def texts() -> Iterator[Text]:
    repository = set(files())
    for folder in PYTHON_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path in repository:
                yield from python_texts(path)
    for path in sorted((ROOT / "scripts").iterdir()):
        if path in repository and path.suffix != ".py" and path.read_bytes().startswith(b"#!"):
            yield from shell_texts(path)
    yield from shell_texts(ROOT / "Makefile")
    for path in sorted((ROOT / "templates").rglob("*.html")):
        yield from template_texts(path)
    for path in sorted((ROOT / "static" / "scoring").glob("*.css")):
        yield from css_texts(path)
    for path in sorted((ROOT / "static" / "scoring").glob("*.js")):
        yield from javascript_texts(path)
    for pattern in MARKDOWN:
        for path in sorted(ROOT.glob(pattern)):
            yield from markdown_texts(path)


# Citations of what a clone does not hold ------------------------------------------------------

SPECIFICATION = "the specification, not in the repository: cite docs/rules.md"
CITATIONS = [
    (re.compile(r"\bSPEC\b"), SPECIFICATION),
    (re.compile(r"^test .*\bspec\b"), SPECIFICATION),  # a test's name, its _ read as spaces
    (re.compile(r"\bspecification\b", re.IGNORECASE), SPECIFICATION),
    (re.compile(r"\bsections?\s+\d+(\.\d+)*", re.IGNORECASE), "a numbered section"),
    (re.compile(r"§\s*\d"), "a numbered section"),
    # A section's number in brackets, alone or before a colon or "'s".
    (re.compile(r"\(\s*[1-3]\.\d\d?(?=\)|:\s|'s\b)"), "a section's number"),
    (re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE), "an issue's number"),
    (re.compile(r"(?<![\w&#/])#[1-9]\d{0,3}\b(?![\w-])"), "an issue's number"),
]
NUMBER_BEFORE = re.compile(r"\d\s*$")


def citations(text: Text) -> Iterator[tuple[int, str, str]]:
    for pattern, why in CITATIONS:
        for match in pattern.finditer(text.text):
            if match.group().startswith("(") and NUMBER_BEFORE.search(text.text, 0, match.start()):
                continue  # a figure's ratio, "0.73 (1.1)"
            yield match.start(), "cites", f"{match.group()!r}: {why}"


# Paths ---------------------------------------------------------------------------------------

PATH = re.compile(
    r"(?<![\w/.:@~<>{}$-])"  # not inside a URL, an address or a longer word
    r"((?:\.\./)*(?:[\w.-]+/)+(?:[\w.-]*\w)?/?|[\w-]+(?:\.[\w-]+)*\.(?:py|html|js|css|md)\b)"
    r"(#[\w-]*)?"
    r"(?![\w<{*…/]|\.\w)"  # not followed by a placeholder or more of a name
)
AT_COMMIT = re.compile(r"\s+at\s+([0-9a-f]{7,40})\b")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s#]*)(#[^)\s]*)?\)")
# A heading named in words after its file: docs/rules.md, "Players who come and go".
NAMED_HEADING = re.compile(r"([\w./-]+\.md),\s*[\"'“‘]([^\"'”’]{1,80})[\"'”’]")
# A line break inside the words, with the comment's marks that begin the next line.
BREAK = re.compile(r"\s*\n\s*(?:#|//|\*)?\s*")


def installed(first: str) -> bool:
    """Whether a path's first folder is an installed package (another project's file)."""
    name = first.removesuffix(".py")
    if not name.isidentifier() or (ROOT / first).exists():
        return False
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


@cache
def ignored(path: Path) -> bool:
    """Whether git ignores a path (what a run makes: bench/node_modules, .venv)."""
    # (A name inside it, so that a folder not made yet matches a folder's pattern.)
    return git("check-ignore", "-q", str(path / "x")).returncode == 0


@cache
def has_commit(name: str) -> bool:
    """Whether git has a commit (or a file in one: "6d70ace:scoring/live/unchanged.py"); a
    shallow clone lacks the old ones, and a path as it was there is not checked then."""
    return git("cat-file", "-e", name).returncode == 0


def find(path: str, text: Text, *, link: bool = False) -> Path | None:
    """The file or folder a path names, or None."""
    name = path.rstrip("/")
    bases = [text.path.parent] if link else []
    if "/" not in name and not link:
        if name in names_of_files() or (text.path.parent / name).exists():
            return text.path.parent / name
        return None
    bases += [ROOT / base for base in BASES]
    if text.path.suffix == ".md":
        bases.insert(0, text.path.parent)
    # ".." folded, links not followed: .venv may be a link to another checkout's.
    inside = [
        candidate
        for candidate in (Path(os.path.normpath(base / path)) for base in bases)
        if candidate == ROOT or ROOT in candidate.parents
    ]
    for candidate in inside:
        if candidate.exists():
            return candidate
    made = Path(os.path.normpath(ROOT / path))  # by a run, as bench/node_modules is: git ignores it
    return made if made in inside and ignored(made) else None


def module_and_name(path: str) -> tuple[str, list[str]] | None:
    """A module's path with a name after it, scripts/throwaway_site.free_port, as a module's
    dotted name and the names in it; None for anything else."""
    folder, _, last = path.rpartition("/")
    stem, dot, names = last.partition(".")
    if dot and not names.endswith(SOURCE_SUFFIXES) and (ROOT / folder / f"{stem}.py").exists():
        return f"{folder}/{stem}".replace("/", "."), names.split(".")
    return None


@cache
def titles(path: Path) -> tuple[str, ...]:
    """A markdown file's headings, outside its code."""
    in_code, found = False, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and re.match(r"#{1,6} ", line):
            found.append(line.lstrip("#").strip())
    return tuple(found)


def anchor(title: str) -> str:
    """A heading's anchor, as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def named(title: str, path: Path) -> bool:
    """Whether a file has a heading that is, or starts with, these words."""
    words = title.strip().casefold()
    return any(
        heading.casefold() == words or re.match(rf"{re.escape(words)}\b", heading.casefold())
        for heading in titles(path)
    )


def is_placeholder(path: str) -> bool:
    words = re.split(r"[/._-]", path)
    return bool(PLACEHOLDERS.intersection(words)) or path.rstrip("/") in EXAMPLES


def is_checked(path: str) -> bool:
    """Whether a path is this repository's to answer for."""
    if is_placeholder(path) or path.startswith("../"):
        return False
    if "/" not in path.rstrip("/"):
        return path.endswith(SOURCE_SUFFIXES) and not installed(path)
    first = path.split("/")[0]
    if (ROOT / first).exists() or first in app_folders():
        return True
    return path.endswith(SOURCE_SUFFIXES) and not installed(first) and "." not in first


@cache
def app_folders() -> frozenset[str]:
    return frozenset(p.name for p in (ROOT / "scoring").iterdir() if p.is_dir())


def check_anchor(path: str, found: Path, fragment: str | None) -> Iterator[str]:
    if (
        fragment
        and fragment != "#"
        and found.suffix == ".md"
        and found.is_file()
        and fragment[1:] not in {anchor(title) for title in titles(found)}
    ):
        yield f"{path}{fragment}: no such heading"


def paths(text: Text) -> Iterator[tuple[int, str, str]]:
    links = set()
    if text.path.suffix == ".md":
        for match in MARKDOWN_LINK.finditer(text.text):
            target, fragment = match.group(1), match.group(2)
            links.add(match.start(1))
            if not target or re.match(r"\w+:", target):
                found = text.path if not target else None  # #anchor, or a URL
            else:
                found = find(target, text, link=True)
                if found is None:
                    yield match.start(), "path", f"{target}: no such file or folder"
            if found is not None:
                for what in check_anchor(target, found, fragment):
                    yield match.start(), "anchor", what
    for match in PATH.finditer(text.text):
        path, fragment = match.group(1), match.group(2)
        if match.start() in links or not is_checked(path):
            continue
        commit = AT_COMMIT.match(text.text, match.end())
        if commit:  # a file as it was: "scoring/live/unchanged.py at 6d70ace"
            if has_commit(commit.group(1)) and not has_commit(f"{commit.group(1)}:{path}"):
                yield match.start(), "path", f"{path} at {commit.group(1)}: not in that commit"
            continue
        found = find(path, text)
        if found is None:
            in_module = module_and_name(path)
            if in_module is None or not resolves(*in_module):
                yield match.start(), "path", f"{path}: no such file or folder"
        else:
            for what in check_anchor(path, found, fragment):
                yield match.start(), "anchor", what
    for match in NAMED_HEADING.finditer(text.text):
        found, title = find(match.group(1), text), BREAK.sub(" ", match.group(2))
        if found is not None and found.is_file() and not named(title, found):
            yield match.start(), "anchor", f"{match.group(1)}, {title!r}: no such heading"


# Dotted names --------------------------------------------------------------------------------

DOTTED = re.compile(r"(?<![\w./$-])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?![\w/-]|\.\w)")
ROOTS = ("scoring", "rami_site", "tests", "bench", "scripts")
FILE_SUFFIXES = {
    "py", "html", "js", "css", "md", "json", "txt", "csv", "po", "mo", "png", "svg", "conf",
    "toml", "lua", "service", "timer", "sqlite3", "webmanifest", "gz", "br", "log", "sh",
}  # fmt: skip


def python_modules() -> Iterator[tuple[Path, list[str]]]:
    for path in files():
        if path.suffix == ".py" and path.relative_to(ROOT).parts[0] in ROOTS:
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            yield path, parts


@cache
def modules() -> dict[str, tuple[str, ...]]:
    """The project's modules by the prefixes the code and docs name them with: their full name
    (scoring.live.stream), their name inside the app (live.stream), the name the code imports
    them under (`from scoring.web import http`: http), and the module of each of the app's
    classes by the class's name (Game: scoring.models.game)."""
    found: dict[str, set[str]] = defaultdict(set)
    for _, parts in python_modules():
        full = ".".join(parts)
        found[full].add(full)
        if parts[0] == "scoring" and len(parts) > 1:
            found[".".join(parts[1:])].add(full)
    classes: dict[str, set[str]] = defaultdict(set)
    for path, parts in python_modules():
        if parts[0] not in ("scoring", "rami_site") or "migrations" in parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module.split(".")[0] not in ROOTS:
                    continue
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if full in found:
                        found[alias.asname or alias.name].add(full)
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                classes[node.name].add(".".join(parts))
    prefixes = {
        prefix: tuple(sorted(full))
        for prefix, full in found.items()
        if prefix.split(".")[0] not in AMBIGUOUS or prefix.split(".")[0] in ROOTS
    }
    for name, where in classes.items():
        if len(where) == 1 and name not in prefixes:
            prefixes[name] = (f"{next(iter(where))}:{name}",)
    return prefixes


def attribute(owner: object, name: str) -> object:
    """owner.name, a module's submodule, or a class's field or instance attribute (a name
    annotated in the class, or set on `self` in its methods); AttributeError if none."""
    try:
        return getattr(owner, name)
    except AttributeError:
        pass
    if inspect.ismodule(owner):
        try:
            return importlib.import_module(f"{owner.__name__}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{owner.__name__}.{name}":
                raise
    if inspect.isclass(owner):
        for klass in owner.__mro__:
            if name in getattr(klass, "__annotations__", {}):
                return None
            try:
                source = inspect.getsource(klass)
            except (OSError, TypeError):
                continue
            if re.search(rf"\bself\.{re.escape(name)}\s*(:[^=\n]+)?=[^=]", source):
                return None
    raise AttributeError(name)


def resolves(full: str, rest: list[str]) -> bool:
    """Whether a module (or "module:Class") has the names `rest`, one inside the other."""
    module, _, klass = full.partition(":")
    try:
        owner = importlib.import_module(module)
        for name in ([klass] if klass else []) + rest:
            if owner is None:
                return True  # an instance attribute: what it holds is not known here
            owner = attribute(owner, name)
    except (AttributeError, ImportError):
        return False
    return True


def candidates(prefix: str) -> tuple[str, ...]:
    """The modules a prefix may name: the project's, and a library's of that name (http)."""
    known = modules().get(prefix, ())
    if known and "." not in prefix and ":" not in known[0] and installed(prefix):
        known += (prefix,)
    return known


def dotted_names(text: Text) -> Iterator[tuple[int, str, str]]:
    for match in DOTTED.finditer(text.text):
        name = match.group(1)
        words = name.split(".")
        if words[-1] in FILE_SUFFIXES or ASGI_TYPES.match(name) or is_placeholder(name):
            continue
        for length in range(len(words), 0, -1):
            known = candidates(".".join(words[:length]))
            if known:
                if not any(resolves(full, words[length:]) for full in known):
                    yield match.start(), "name", f"{name}: not found"
                break


# The test ------------------------------------------------------------------------------------


def findings() -> list[Finding]:
    found = set()
    for text in texts():
        checks = [citations] if text.cites_only else [citations, paths, dotted_names]
        for check in checks:
            for offset, kind, what in check(text):
                line = text.line + text.text.count("\n", 0, offset)
                found.add(Finding(str(text.path.relative_to(ROOT)), line, kind, what))
    return sorted(found)


def report(found: list[Finding]) -> str:
    """The findings by file, and how many of each kind."""
    by_file: dict[str, list[Finding]] = defaultdict(list)
    counts: dict[str, int] = defaultdict(int)
    for finding in found:
        by_file[finding.file].append(finding)
        counts[finding.kind] += 1
    kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items()))
    lines = [f"{len(found)} references to what the repository does not hold ({kinds}):"]
    for file, each in by_file.items():
        lines.append(file)
        lines.extend(str(finding) for finding in each)
    return "\n".join(lines)


def test_every_reference_is_to_what_the_repository_holds():
    found = findings()
    assert found == [], report(found)


def test_the_checks_find_what_is_gone_and_pass_what_is_not():
    def found(words: str, where: str = "scoring/admin.py") -> list[str]:
        text = Text(ROOT / where, 1, words)
        return [what for check in (citations, paths, dotted_names) for _, _, what in check(text)]

    gone = [
        "scoring/live.py",
        "tests/test_restore_speed.py",
        f"scoring/live/unchanged.py at {git('rev-parse', 'HEAD').stdout[:12]}",
        "views/nowhere.py",
        "views._poll",
        "scoring.views.rules_page",
        "Game.nowhere",
        "docs/at-the-table.md#nowhere",
        'docs/at-the-table.md, "Nowhere"',
        '# docs/at-the-table.md, "Counting\n# nowhere"',
        "SPEC 1.5",
        "(1.5)",
        "issue 42",
        "#42",
    ]
    for words in gone:
        assert found(words), words
    assert list(citations(Text(ROOT / "tests/test_x.py", 1, "test the example of spec 2")))
    assert found("[the guide](nowhere.md)", "docs/deploy.md")
    assert found("[the guide](at-the-table.md#nowhere)", "docs/deploy.md")
    there = [
        "scoring/live/stream.py",
        "views/poll.py",
        "scoring/game.html",
        "scoring/rami.js",
        "rami.js",
        "live.stream",
        "scoring.models.Game.edit_token",
        "live.stream.key_for",
        "Game.edit_token",
        "docs/at-the-table.md#counting-points",
        'docs/deploy.md, "Upgrading"',
        '# docs/at-the-table.md, "Counting\n# points"',
        "/g/<token>/poll",
        "locale/<lang>/LC_MESSAGES/django.po",
        "granian/server/common.py",
        "https://example.org/scoring/live.py",
        "game.players",
        "django.db.models",
        "bench/node_modules",
        "scoring/live/unchanged.py at 6d70ace",
        "0.73 (1.1, 1.0)",
        "color #000",
    ]
    for words in there:
        assert found(words) == [], words
    assert found("[the guide](at-the-table.md#counting-points)", "docs/deploy.md") == []
