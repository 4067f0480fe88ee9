"""Make the README's picture, docs/images/referee.png: the referee's page at 1024 x 576.

The live service replays the browser tests' wrong-sowing session (one board, the engine
on) and headless Chromium photographs the referee's view once the alert and the engine's
suggestion are both on the page. Run it after a change to the page's looks:

    .venv/bin/python scripts/readme_picture.py [--out docs/images/referee.png]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.dashboard.conftest import CHROMIUM, LAUNCH_ARGS, TOKEN, run_service  # noqa: E402
from tests.dashboard.sessions import wrong_sowing_log  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "referee.png")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        session = wrong_sowing_log(folder / "wrong.jsonl")
        with run_service(folder, [f"replay://{session}?speed=4"]) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
            page = browser.new_page(viewport={"width": 1024, "height": 576})
            page.goto(f"{url}/board/1?view=referee&token={TOKEN}")
            page.wait_for_selector("article.alert[data-type=illegal_sowing]", timeout=60_000)
            page.wait_for_selector("#board .pit.best", timeout=60_000)
            page.wait_for_timeout(500)  # the last animation
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out))
            browser.close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
