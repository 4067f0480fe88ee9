"""The counting registry: one place names every counter kind and the default."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from vision.counting import DEFAULT, KINDS, counter_from_json, counter_kind

CAMERA_DOC = Path(__file__).resolve().parents[2] / "docs" / "CAMERA.md"


def test_the_default_is_the_counter_the_camera_page_names() -> None:
    # the README links the camera page; its list of counters says which is the default
    named = re.search(r"^\* `(\w+)` \(the default", CAMERA_DOC.read_text(), re.MULTILINE)
    assert named is not None, "docs/CAMERA.md's list of counters should name the default"
    assert named.group(1) == DEFAULT


def test_every_kind_lives_in_its_own_module_of_the_counting_package() -> None:
    import importlib

    for name, kind in KINDS.items():
        assert kind.module == f"vision.counting.{name}", kind
        importlib.import_module(kind.module)
    # and the package holds no counter the registry does not name
    modules = {
        p.stem for p in Path(importlib.import_module("vision.counting").__path__[0]).glob("*.py")
    }
    helpers = {"__init__", "beliefs", "features", "model", "ensemble", "deep_net", "cnn_net"}
    assert modules - helpers == set(KINDS), sorted(modules - helpers)


def test_an_unknown_kind_is_one_clear_line() -> None:
    with pytest.raises(ValueError, match="no counter kind 'abacus': use one of area"):
        counter_kind("abacus")


def test_a_calibration_file_reads_back_through_the_registry() -> None:
    from vision.render.synth import random_pit

    rng = np.random.default_rng(0)
    crops = [random_pit(n % 3, rng) for n in range(12)]
    counter = counter_kind("head").calibrate(crops, [n % 3 for n in range(12)])
    again = counter_from_json(counter.to_json())
    np.testing.assert_allclose(again.beliefs(crops[:3]), counter.beliefs(crops[:3]), atol=1e-5)
