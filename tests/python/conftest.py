"""The Python tier's setup. Tests run against the checkout's python/ and build/ (scripts/test.sh:
GEMMTUNE_LIBRARY and GEMMTUNE_TUNER name build/'s library and tuner), or against an installed
package when GEMMTUNE_TEST_INSTALLED=1 (the GPU machine, with the wheel). Tests that need a GPU are
marked `gpu` and skip without one; those that need torch or CuPy skip where they cannot be imported.
"""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

if os.environ.get("GEMMTUNE_TEST_INSTALLED") != "1":
    sys.path.insert(0, str(ROOT / "python"))
    os.environ.setdefault("GEMMTUNE_LIBRARY", str(ROOT / "build" / "runtime" / "libgemmtune.so"))
    os.environ.setdefault("GEMMTUNE_TUNER", str(ROOT / "build" / "tuner" / "gemm-tune"))

HAVE_TORCH = importlib.util.find_spec("torch") is not None


def gpu_available() -> bool:
    if not HAVE_TORCH:
        return False
    import torch
    return torch.cuda.is_available()


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU and torch (skipped without them)")


def pytest_collection_modifyitems(config, items):
    if gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU and torch")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
