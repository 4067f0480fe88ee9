"""The page's dictionaries (dashboard/static/i18n/*.json) say the same things in every language.

A key missing in a language falls back to English on the page (js/i18n.js), which is
safe but shows English in the middle of, say, Polish; a placeholder missing or
misspelt shows as a raw ``{name}``. Both are caught here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

I18N = Path(__file__).resolve().parents[2] / "dashboard" / "static" / "i18n"
LANGUAGES = ["pl", "de", "cs", "fr"]


def load(lang: str) -> dict[str, str]:
    data = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_text_is_translated_with_the_same_placeholders(lang: str) -> None:
    english, other = load("en"), load(lang)
    assert sorted(set(english) - set(other)) == [], f"{lang} lacks these texts"
    assert sorted(set(other) - set(english)) == [], f"{lang} has texts English lacks"
    for key, text in english.items():
        assert placeholders(other[key]) == placeholders(text), f"{lang} {key}: {other[key]!r}"
        assert other[key].strip(), f"{lang} {key} is empty"
