"""The `gemm-tune` command of the Python package: runs the tuner installed with it."""

from __future__ import annotations

import os
import sys

from ._library import tuner_path


def main() -> None:
    tuner = tuner_path()
    if not tuner.is_file():
        sys.stderr.write(f"error: gemm-tune was not found at {tuner}\n")
        sys.exit(2)
    os.execv(str(tuner), [str(tuner)] + sys.argv[1:])
