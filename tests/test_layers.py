"""Every import between our packages goes the way docs/ARCHITECTURE.md's layer table allows.

The "Top-level layout" table (``| folder | what lives there | imports |``) names, in
backticks in its "imports" column, the packages a folder's code may import besides its
own modules. Every ``import`` and ``from … import`` of every ``.py`` file of a checked
package is read with :mod:`ast`, wherever it stands (inside a function, under
``if TYPE_CHECKING:``), a relative one resolved to the package it names; an import of
another package of ours that the row does not name is reported as
``file:line: the import: the rule``. Third-party imports are the libraries' business
(``tests/core/test_purity.py`` holds ``core`` to stdlib and numpy); an import by a computed
name (``importlib.import_module(name)``) is not seen.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
HEADER = re.compile(r"^\|\s*folder\s*\|\s*what lives there\s*\|\s*imports\s*\|\s*$")

#: The packages the issue that introduced the check named: none may drop out of the table.
PACKAGES = {"core", "vision", "firmware_bridge", "dashboard", "companion", "bench"}

#: Folders with Python code that the table does not hold to a rule (tests import anything).
UNCHECKED = {"tests"}


@dataclass(frozen=True)
class Rule:
    """One row of the table: the folder's package and the packages it may import."""

    package: str
    allowed: frozenset[str]
    text: str
    """The "imports" column as written (for the failure message)."""


def layer_table(markdown: str) -> dict[str, Rule]:
    """The rows of the layer table, by package name (``core/`` → ``core``).

    >>> table = layer_table('''
    ... | folder | what lives there | imports |
    ... |---|---|---|
    ... | `low/` | the bottom | stdlib only |
    ... | `high/` | the top | `low`; `other.py` is no package, and neither is prose |
    ... ''')
    >>> sorted(table["high"].allowed), sorted(table["low"].allowed)
    (['low'], [])
    """
    lines = markdown.splitlines()
    start = next((i for i, line in enumerate(lines) if HEADER.match(line.strip())), None)
    if start is None:
        raise ValueError("no '| folder | what lives there | imports |' table")
    rows: list[tuple[str, str]] = []
    for line in lines[start + 2 :]:  # after the header and its |---| line
        if not line.strip().startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3:
            raise ValueError(f"a table row without three cells: {line!r}")
        rows.append((cells[0].strip("`").rstrip("/"), cells[2]))
    folders = {folder for folder, _ in rows}
    return {
        folder: Rule(
            folder,
            frozenset(n.rstrip("/") for n in re.findall(r"`([^`]+)`", text))
            & folders,  # a backticked file or module name is no package
            text,
        )
        for folder, text in rows
    }


@dataclass(frozen=True)
class Import:
    line: int
    module: str
    """The module imported, absolute (a relative import resolved)."""
    source: str
    """The statement as written (one line)."""


def imports_of(path: Path, root: Path) -> Iterator[Import]:
    """Every import statement of the file at ``path`` (a module of the tree at ``root``).

    ``from X import a, b`` counts as an import of ``X``; ``from . import a`` as one of
    the file's package (the modules it names are that package's too).
    """
    package = path.relative_to(root).with_suffix("").parts[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(node.lineno, alias.name, ast.unparse(node))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            yield Import(node.lineno, module, ast.unparse(node))


def first_party(root: Path) -> set[str]:
    """The packages of the repository (folders with an ``__init__.py`` at the top)."""
    return {p.parent.name for p in root.glob("*/__init__.py")}


def violations(root: Path, rules: dict[str, Rule], packages: Iterable[str]) -> list[str]:
    """One line per import of ``packages``' files that the table does not allow."""
    ours = first_party(root)
    found = []
    for package in sorted(packages):
        rule = rules[package]
        for path in sorted((root / package).rglob("*.py")):
            for imp in imports_of(path, root):
                target = imp.module.split(".")[0]
                if target not in ours or target == package or target in rule.allowed:
                    continue
                may = ", ".join(sorted(rule.allowed)) or "no other package of ours"
                found.append(
                    f"{path.relative_to(root)}:{imp.line}: {imp.source}: {package} may import "
                    f"{may} (docs/ARCHITECTURE.md, layer table: {rule.text!r}), not {target}"
                )
    return found


def checked_packages(root: Path, rules: dict[str, Rule]) -> set[str]:
    """The table's folders that are packages of ours, but the unchecked ones."""
    return (set(rules) & first_party(root)) - UNCHECKED


def test_the_table_holds_every_package() -> None:
    rules = layer_table(DOC.read_text(encoding="utf-8"))
    assert checked_packages(ROOT, rules) >= PACKAGES, (
        f"docs/ARCHITECTURE.md's layer table lacks {sorted(PACKAGES - set(rules))}"
    )
    assert rules["core"].allowed == frozenset()
    assert rules["dashboard"].allowed == {"core"}  # the app it serves is behind Protocols


def test_every_import_follows_the_layer_table() -> None:
    rules = layer_table(DOC.read_text(encoding="utf-8"))
    packages = checked_packages(ROOT, rules)
    assert sum(1 for p in packages for _ in (ROOT / p).rglob("*.py")) > 100, "walked no code?"
    found = violations(ROOT, rules, packages)
    assert not found, "imports against the layer table:\n" + "\n".join(found)


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_check_reports_a_forbidden_import(tmp_path: Path) -> None:
    """Hidden ones too: in a function, under TYPE_CHECKING, relative (resolved), aliased."""
    table = layer_table(
        "| folder | what lives there | imports |\n|---|---|---|\n"
        "| `low/` | the bottom | stdlib |\n"
        "| `high/` | the top | `low` |\n"
    )
    _tree(
        tmp_path,
        {
            "low/__init__.py": "",
            "low/fine.py": "import json\nfrom . import fine\nfrom .sub.deep import x\n",
            "low/sub/__init__.py": "from ..fine import y\n",
            "low/typed.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from high.app import App\n"
            ),
            "low/late.py": "def f():\n    import high.app as h\n    return h\n",
            "high/__init__.py": "",
            "high/app.py": "from low.fine import x\nfrom .app import App\n",
        },
    )
    assert [i.module for i in imports_of(tmp_path / "low/fine.py", tmp_path)] == [
        "json",
        "low",
        "low.sub.deep",
    ]
    assert [i.module for i in imports_of(tmp_path / "low/sub/__init__.py", tmp_path)] == [
        "low.fine"
    ]
    found = violations(tmp_path, table, {"low", "high"})
    assert found == [
        "low/late.py:2: import high.app as h: low may import no other package of ours "
        "(docs/ARCHITECTURE.md, layer table: 'stdlib'), not high",
        "low/typed.py:3: from high.app import App: low may import no other package of ours "
        "(docs/ARCHITECTURE.md, layer table: 'stdlib'), not high",
    ]
    # the same import in the other direction is what the table allows
    assert violations(tmp_path, table, {"high"}) == []


def test_prose_grants_nothing() -> None:
    """'everything' in words is no rule: only the backticked package names count."""
    table = layer_table(
        "| folder | what lives there | imports |\n|---|---|---|\n"
        "| `a/` | | everything, core and b |\n| `b/` | | |\n| `core/` | | |\n"
    )
    assert table["a"].allowed == frozenset()
