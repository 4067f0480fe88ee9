"""The page's dictionaries (dashboard/static/i18n/*.json) say the same things in every language,
and the page writes counts with the plural form each language needs.

A key missing in a language falls back to English on the page (js/i18n.js), which is
safe but shows English in the middle of, say, Polish; a placeholder missing or
misspelt shows as a raw ``{name}``. Both are caught here.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

I18N = Path(__file__).resolve().parents[2] / "dashboard" / "static" / "i18n"
LANGUAGES = ["pl", "de", "cs", "fr"]


def load(lang: str) -> dict[str, str]:
    data = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


PLACEHOLDER = re.compile(r"\{(\w+)(?::(\w+))?\}")
"""{name}, or {name:noun}: the number with the noun in its plural form."""

PLURAL_CATEGORIES = {
    "en": {"one", "other"},
    "de": {"one", "other"},
    "fr": {"one", "other"},  # CLDR's "many" (a million and up) falls back to "other"
    "pl": {"one", "few", "many", "other"},
    "cs": {"one", "few", "many", "other"},
}
"""The CLDR plural categories Intl.PluralRules gives for counts of seeds and moves."""


def placeholders(text: str) -> set[str]:
    return {name for name, _ in PLACEHOLDER.findall(text)}


def texts(data: dict[str, str]) -> dict[str, str]:
    """Everything but the nouns' plural forms (their number differs between languages)."""
    return {k: v for k, v in data.items() if not k.startswith("noun.")}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_text_is_translated_with_the_same_placeholders(lang: str) -> None:
    english, other = texts(load("en")), texts(load(lang))
    assert sorted(set(english) - set(other)) == [], f"{lang} lacks these texts"
    assert sorted(set(other) - set(english)) == [], f"{lang} has texts English lacks"
    for key, text in english.items():
        assert placeholders(other[key]) == placeholders(text), f"{lang} {key}: {other[key]!r}"
        assert other[key].strip(), f"{lang} {key} is empty"


@pytest.mark.parametrize("lang", ["en", *LANGUAGES])
def test_every_noun_has_each_plural_form_of_the_language(lang: str) -> None:
    data = load(lang)
    used = {noun for text in data.values() for _, noun in PLACEHOLDER.findall(text) if noun}
    assert used, "no text counts seeds with its noun"
    for noun in used:
        forms = {k.rsplit(".", 1)[1] for k in data if k.startswith(f"noun.{noun}.")}
        assert forms == PLURAL_CATEGORIES[lang], f"{lang} noun.{noun}: {sorted(forms)}"
        assert all(data[f"noun.{noun}.{form}"].strip() for form in forms)


@pytest.fixture(scope="module")
def static_site() -> Iterator[str]:
    """The page's static folder over HTTP (module imports need a server, not file://)."""
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(I18N.parent))
    handler.log_message = lambda *args: None  # type: ignore[assignment,method-assign]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join(5)


#: (language, key, parameters, text the page must write), through the page's own t().
SAID = [
    ("en", "ui.pit", {"name": "A", "count": 1}, "Pit A: 1 seed"),
    ("en", "ui.pit", {"name": "A", "count": 0}, "Pit A: 0 seeds"),
    ("en", "sugg.value", {"value": "+1"}, "+1 seed"),
    ("en", "sugg.value", {"value": "-1.5"}, "-1.5 seeds"),
    ("en", "sugg.value", {"value": "1.0"}, "1.0 seeds"),
    (
        "en",
        "hist.game",
        {"id": 3, "board": 2, "result": "1-0", "moves": 1, "rules": "abapa"},
        "Game 3, board 2: 1-0, 1 move (abapa)",
    ),
    ("pl", "ui.pit", {"name": "b", "count": 1}, "Dołek b: 1 ziarno"),
    ("pl", "ui.pit", {"name": "b", "count": 3}, "Dołek b: 3 ziarna"),
    ("pl", "ui.pit", {"name": "b", "count": 5}, "Dołek b: 5 ziaren"),
    ("pl", "ui.pit", {"name": "b", "count": 12}, "Dołek b: 12 ziaren"),
    ("pl", "ui.pit", {"name": "b", "count": 22}, "Dołek b: 22 ziarna"),
    ("pl", "sugg.value", {"value": "+1.5"}, "+1.5 ziarna"),
    ("pl", "sugg.value", {"value": "+1,5"}, "+1,5 ziarna"),  # as formatValue writes it
    ("cs", "sugg.value", {"value": "-1,0"}, "-1,0 semínka"),
    (
        "pl",
        "hist.game",
        {"id": 1, "board": 1, "result": "*", "moves": 24, "rules": "abapa"},
        "Partia 1, plansza 1: *, 24 ruchy (abapa)",
    ),
    ("cs", "ui.pit", {"name": "C", "count": 1}, "Jamka C: 1 semínko"),
    ("cs", "ui.pit", {"name": "C", "count": 4}, "Jamka C: 4 semínka"),
    ("cs", "ui.pit", {"name": "C", "count": 7}, "Jamka C: 7 semínek"),
    (
        "cs",
        "hist.game",
        {"id": 2, "board": 3, "result": "*", "moves": 5, "rules": "abapa"},
        "Partie 2, deska 3: *, 5 tahů (abapa)",
    ),
    (
        "de",
        "hist.game",
        {"id": 2, "board": 1, "result": "*", "moves": 1, "rules": "abapa"},
        "Partie 2, Brett 1: *, 1 Zug (abapa)",
    ),
    (
        "de",
        "teach.preview",
        {"name": "D", "seeds": 2, "last": "a"},
        "D: 2 Samen, der letzte landet in a.",
    ),
    ("fr", "ui.pit", {"name": "E", "count": 1}, "Case E : 1 graine"),
    ("fr", "ui.pit", {"name": "E", "count": 2}, "Case E : 2 graines"),
]


def test_the_page_writes_counts_with_the_right_plural(browser: Any, static_site: str) -> None:
    page = browser.new_page()
    try:
        page.goto(f"{static_site}/index.html")
        said = page.evaluate(
            """async (cases) => {
                const i18n = await import("/js/i18n.js");
                const view = await import("/js/view.js");
                const out = [];
                for (const [lang, key, params] of cases) {
                    await i18n.setLanguage(lang);
                    out.push(i18n.t(key, params));
                }
                await i18n.setLanguage("pl");
                out.push(view.formatValue(95), view.formatValue(-95), view.formatValue(1.25));
                await i18n.setLanguage("en");
                out.push(view.formatValue(1.25), view.formatValue(-0.44));
                return out;
            }""",
            [[lang, key, params] for lang, key, params, _ in SAID],
        )
    finally:
        page.close()
    assert said[: len(SAID)] == [text for *_, text in SAID]
    # a forced win or loss is said in the page's language, not "win seeds"
    assert said[len(SAID) :] == ["wygrana", "przegrana", "+1,3", "+1.3", "-0.4"]


class _Texts(HTMLParser):
    """The page's texts: each element's own words, its attributes, and the keys it names."""

    VOID = frozenset({"meta", "link", "input", "br", "img"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.untranslated: list[tuple[str, str]] = []
        self.keys: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        for attr in ("data-i18n", "data-i18n-aria"):
            if named.get(attr):
                self.keys.add(str(named[attr]))
        if tag not in self.VOID:
            self.stack.append((tag, named))

    def handle_endtag(self, tag: str) -> None:
        if self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not data.strip() or not self.stack:
            return
        tag, attrs = self.stack[-1]
        in_language_list = any(a.get("id") == "lang-select" for _, a in self.stack)
        if tag in ("script", "style") or "data-i18n" in attrs or in_language_list:
            return  # a language's own name is written in that language, in every language
        if "data-i18n-aria" in attrs and not any(c.isalpha() for c in data):
            return  # a symbol (a replay arrow) whose name for screen readers is translated
        self.untranslated.append((tag, data.strip()))


@pytest.mark.parametrize("name", ["index.html", "home.html", "hall.html"])
def test_every_word_of_the_page_has_a_translation(name: str) -> None:
    """Words written into a page without a key stay English in every language (the
    rule sets' names did, in the referee's New game list)."""
    page = _Texts()
    page.feed((I18N.parent / name).read_text(encoding="utf-8"))
    assert page.untranslated == []
    assert sorted(page.keys - set(load("en"))) == [], "keys the dictionaries lack"
