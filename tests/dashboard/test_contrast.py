"""Text contrast of the dashboard's colours, computed from dashboard/static/css/dashboard.css.

WCAG 2.x asks for a contrast ratio of at least 4.5:1 between text and its
background (1.4.3), and 3:1 for the parts of a graphic one must see (1.4.11),
such as the coloured rings that mark pits. The ratios are computed here from
the colours as the stylesheet states them (custom properties resolved), for
every pair of text and background the page actually draws, so a colour change
that makes some text hard to read fails this test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS = Path(__file__).resolve().parents[2] / "dashboard" / "static" / "css" / "dashboard.css"


def parse_rules(text: str) -> dict[str, dict[str, str]]:
    """Selector -> declarations, for the plain rules of the sheet (inner rules of @media
    blocks are read too; later declarations win, as in the cascade for equal selectors)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    rules: dict[str, dict[str, str]] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
        decls = {}
        for decl in body.split(";"):
            if ":" in decl:
                name, value = decl.split(":", 1)
                decls[name.strip()] = value.strip()
        for sel in selectors.split(","):
            rules.setdefault(" ".join(sel.split()), {}).update(decls)
    return rules


RULES = parse_rules(CSS.read_text())


def colour(selector: str, prop: str) -> str:
    """The colour ``prop`` of ``selector`` as #rrggbb, custom properties resolved."""
    value = RULES[selector][prop]
    value = value.replace("!important", "").strip()
    while (m := re.fullmatch(r"var\((--[\w-]+)\)", value)) is not None:
        value = RULES[":root"][m.group(1)]
    if re.fullmatch(r"#[0-9a-fA-F]{3}", value):
        value = "#" + "".join(c * 2 for c in value[1:])
    assert re.fullmatch(r"#[0-9a-fA-F]{6}", value), f"{selector} {prop}: {value!r} is not a colour"
    return value.lower()


def var(name: str) -> str:
    return colour(":root", name)


def luminance(hex_colour: str) -> float:
    """Relative luminance (WCAG 2.x definition)."""
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_formula_on_known_pairs() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#123456", "#123456") == pytest.approx(1.0)


ALERT_BACKGROUNDS = [".alert", ".alert-ambiguous", ".alert-capture_pending", ".alert-link"]


def text_pairs() -> list[tuple[str, str, str]]:
    """(what, text colour, background colour) for every text the page draws."""
    text, muted, panel, bg = var("--text"), var("--muted"), var("--panel"), var("--bg")
    pairs = [
        ("body text on the page", text, bg),
        ("body text on a panel", text, panel),
        ("muted text on the page", muted, bg),
        ("muted text (status, labels) on a panel", muted, panel),
        ("button text", colour("button", "color"), colour("button", "background")),
        ("text in a field", colour("select", "color"), colour("select", "background")),
        ("links on the page", colour("a", "color"), bg),
        ("links on a panel", colour("a", "color"), panel),
        ("whose turn it is", colour(".turn-flag", "color"), panel),
        ("best move", colour("#sugg-best", "color"), panel),
        ("best value in the list", colour(".values .best", "color"), panel),
        ("capture in the move list", colour(".move-list .capture", "color"), panel),
        (
            "current move in a replay",
            colour(".move-list .current", "color"),
            colour(".move-list .current", "background"),
        ),
        ("refused command", colour('.command-result[data-ok="false"]', "color"), panel),
        ("done command", colour('.command-result[data-ok="true"]', "color"), panel),
        ("result detail", colour(".result .detail", "color"), colour(".result", "background")),
        ("teaching hint", colour(".teach-hint", "color"), panel),
        (
            "pressed answer",
            colour('.answers .answer[aria-pressed="true"]', "color"),
            colour('.answers .answer[aria-pressed="true"]', "background"),
        ),
        ("evaluation on South's colour", colour(".eval-text", "color"), var("--south")),
        ("evaluation on North's colour", colour(".eval-text", "color"), var("--north")),
        ("pit letters on the wood", colour(".pit-name", "fill"), colour(".board-wood", "fill")),
        ("seed counts in a pit", colour(".count", "fill"), colour(".pit-hole", "fill")),
        (
            "seed counts in an alert pit",
            colour(".count", "fill"),
            colour(".pit.alert .pit-hole", "fill"),
        ),
        ("engine values on the wood", colour(".pit-value", "fill"), colour(".board-wood", "fill")),
        (
            "whose turn (3-4 players) on the wood",
            colour(".centre-text", "fill"),
            colour(".board-wood", "fill"),
        ),
    ]
    for sel in ALERT_BACKGROUNDS:
        back = colour(sel, "background")
        pairs += [
            (f"alert headline on {sel}", text, back),
            (f"alert sentence on {sel}", colour(".alert .detail", "color"), back),
            (f"expected/seen labels on {sel}", colour(".alert dt", "color"), back),
        ]
    return pairs


@pytest.mark.parametrize(("what", "fg", "bg"), text_pairs(), ids=[p[0] for p in text_pairs()])
def test_text_contrast_is_at_least_4_5(what: str, fg: str, bg: str) -> None:
    ratio = contrast(fg, bg)
    assert ratio >= 4.5, f"{what}: {fg} on {bg} is {ratio:.2f}:1"


def test_pit_marks_stand_out_from_the_hole_they_surround() -> None:
    """Rings that mark pits (sown, captured, alert, suggested, legal, focus): 3:1 against the
    hole's fill next to them (WCAG 1.4.11)."""
    hole = colour(".pit-hole", "fill")
    marks = {
        "sown": colour(".pit.sown .pit-hole", "stroke"),
        "captured": colour(".pit.captured .pit-hole", "stroke"),
        "legal": colour(".pit.legal .pit-hole", "stroke"),
        "suggested": colour(".pit.best .pit-hole", "stroke"),
        "focus": colour(".pit:focus-visible .pit-hole", "stroke"),
    }
    for what, ring in marks.items():
        assert contrast(ring, hole) >= 3, f"{what} ring {ring} on {hole}"
    alert_fill = colour(".pit.alert .pit-hole", "fill")
    assert contrast(colour(".pit.alert .pit-hole", "stroke"), alert_fill) >= 3
    # The suggestion's outer ring sits on the wood.
    wood = colour(".board-wood", "fill")
    assert contrast(colour(".pit.best .pit-ring", "stroke"), wood) >= 3
