"""The package without a GPU or torch: it loads, reaches the C API through ctypes, validates results
files, records, runs the bundled tuner with its exit codes as exceptions, and installs in the layout
a wheel has (the library finds the shipped results from its own location)."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gemmtune
from gemmtune import _library as L
from conftest import gpu_available


def test_versions_agree(root):
    cmake = re.search(r"project\(gemmtune VERSION ([0-9.]+)", (root / "CMakeLists.txt").read_text()).group(1)
    assert gemmtune.__version__ == cmake
    assert gemmtune.library_version() == cmake


def test_status_names_match_the_library():
    lib = L.lib()
    for value, name in enumerate(L.STATUS_NAMES):
        assert lib.gemmtune_status_name(value).decode() == name
    for value, name in enumerate(L.CONFIG_SOURCE_NAMES):
        assert lib.gemmtune_config_source_name(value).decode() == name


def test_missing_library_is_an_import_error_naming_the_path(tmp_path):
    missing = tmp_path / "nowhere" / "libgemmtune.so"
    env = dict(os.environ, GEMMTUNE_LIBRARY=str(missing), PYTHONPATH=os.pathsep.join(sys.path))
    code = "import gemmtune"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                            cwd=tmp_path)
    assert result.returncode != 0
    assert "ImportError" in result.stderr and str(missing) in result.stderr


def test_check_results_accepts_the_shipped_results(root):
    gemmtune.check_results(root / "results" / "nvidia-h100-80gb-hbm3.json")
    gemmtune.check_results(root / "results")  # every file there, as a handle given the directory reads it


def test_check_results_reports_a_corrupt_file(tmp_path, root):
    bad = tmp_path / "nvidia-h100-80gb-hbm3.json"
    text = (root / "results" / "nvidia-h100-80gb-hbm3.json").read_text()
    bad.write_text(text.replace('"m"', '"m_typo"', 1))
    with pytest.raises(ValueError, match="invalid_results"):
        gemmtune.check_results(bad)
    with pytest.raises(ValueError, match="results_not_found"):
        gemmtune.check_results(tmp_path / "absent.json")


@pytest.mark.skipif(gpu_available(), reason="a GPU is present")
def test_no_device_is_an_exception():
    with pytest.raises(gemmtune.NoDeviceError):
        gemmtune._workflow.handle(0)


def test_record_start_and_stop(tmp_path):
    path = tmp_path / "calls.jsonl"
    with gemmtune.record(path) as recorded:
        assert recorded == path
        assert path.exists()  # started: the file is written (and proven writable) at once
    lines = path.read_text().splitlines()
    assert json.loads(lines[0]) == {"schema": "gemmtune.record/1"}
    message = L.text_buffer()
    assert L.lib().gemmtune_record_stop(message, len(message)) == L.INVALID_ARGUMENT
    assert "no recording" in L.decode(message)


def test_record_refuses_a_file_that_is_not_a_record(tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text("not a record\n")
    with pytest.raises(ValueError, match="gemmtune.record"):
        with gemmtune.record(other):
            pass
    assert other.read_text() == "not a record\n"
    with pytest.raises(ValueError, match="gemmtune.record"):
        with gemmtune.record(tmp_path):  # a directory
            pass


def test_tune_maps_bad_input_to_value_error(tmp_path):
    with pytest.raises(ValueError, match="gemmtune.tune: .*"):
        gemmtune.tune(sizes=["12x"], results_dir=tmp_path / "results", reload=False)


def test_tune_needs_one_source_of_sizes():
    with pytest.raises(ValueError, match="exactly one"):
        gemmtune.tune()


@pytest.mark.skipif(gpu_available(), reason="a GPU is present")
def test_tune_without_gpu_is_no_device(tmp_path):
    with pytest.raises(gemmtune.NoDeviceError):
        gemmtune.tune(sizes=["64"], results_dir=tmp_path / "results", reload=False)


def test_tune_reports_a_missing_tuner(tmp_path, monkeypatch):
    monkeypatch.setenv("GEMMTUNE_TUNER", str(tmp_path / "no-tuner"))
    with pytest.raises(FileNotFoundError, match="no-tuner"):
        gemmtune.tune(sizes=["64"], results_dir=tmp_path / "results")


def test_gemm_tune_command_runs(tmp_path):
    result = subprocess.run([sys.executable, "-c", "import sys; from gemmtune._cli import main; "
                             "sys.argv = ['gemm-tune', '--help']; main()"],
                            capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert result.returncode == 0, result.stderr
    assert "tune" in result.stdout


def _install(root: Path, prefix: Path) -> bool:
    """The wheel's layout without building a wheel: `cmake --install` into gemmtune/ beside the
    Python sources (what scikit-build-core does with wheel.install-dir = gemmtune)."""
    build = root / "build"
    if os.environ.get("GEMMTUNE_TEST_INSTALLED") == "1" or not (build / "cmake_install.cmake").exists():
        return False
    package = prefix / "gemmtune"
    shutil.copytree(root / "python" / "gemmtune", package)
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(package)], check=True,
                   capture_output=True)
    return True


def test_installed_layout_finds_its_library_results_and_tuner(tmp_path, root):
    if not _install(root, tmp_path):
        pytest.skip("no build tree to install from")
    env = {k: v for k, v in os.environ.items() if k not in ("GEMMTUNE_LIBRARY", "GEMMTUNE_TUNER", "GEMMTUNE_RESULTS")}
    env["PYTHONPATH"] = str(tmp_path)
    code = ("import gemmtune, json; print(json.dumps([str(gemmtune.library_path()), str(gemmtune.tuner_path()), "
            "str(gemmtune.installed_results()), gemmtune.library_version()])); "
            "gemmtune.check_results(gemmtune.installed_results())")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    library, tuner, results, version = json.loads(result.stdout.splitlines()[-1])
    package = tmp_path / "gemmtune"
    assert Path(library) == package / "lib" / "libgemmtune.so"
    assert Path(tuner) == package / "bin" / "gemm-tune" and Path(tuner).is_file()
    assert (Path(results) / "nvidia-h100-80gb-hbm3.json").is_file()
    assert not list(Path(results).glob("plan-*"))  # predictions are not shipped
    assert version == gemmtune.__version__


def test_run_sgemm_problem_refuses_no_handle():
    problem = L.sgemm_problem(gemmtune.plan_mm("mm", (4, 6), (1, 4), (6, 8), (8, 1)), 1.0, 0.0)
    assert (problem.op_a, problem.lda, problem.ldc, problem.stride_c) == (L.OP_T, 4, 8, 32)
    assert L.lib().gemmtune_run_sgemm_problem(None, problem, 16, 16, 16, None) == L.INVALID_ARGUMENT


def test_run_gemm_problem_and_choose_gemm_refuse_bad_arguments():
    problem = L.sgemm_problem(gemmtune.plan_mm("mm", (4, 6), (6, 1), (6, 8), (8, 1)), 1.0, 0.0)
    bf16 = gemmtune._precision.PRECISIONS["bf16"]
    assert L.lib().gemmtune_run_gemm_problem(None, bf16, problem, 16, 16, 16, None) == L.INVALID_ARGUMENT
    assert L.lib().gemmtune_run_gemm_problem(None, bf16, None, 16, 16, 16, None) == L.INVALID_ARGUMENT
    assert L.lib().gemmtune_choose_gemm(None, bf16, 0, 0, 4, 8, 6, None, 6, 0, None, 8, 0, 8, 0, 1, None, None, 0,
                                        None, 0) == L.INVALID_ARGUMENT


def test_prototypes_match_the_header(root):
    """Every C function the binding declares takes as many arguments as gemmtune.h says (ctypes would
    pass a wrong count silently to the C side)."""
    header = (root / "runtime" / "include" / "gemmtune" / "gemmtune.h").read_text()
    for name, (_, argtypes) in L._PROTOTYPES.items():
        match = re.search(r"\b" + name + r"\(([^)]*)\);", header)
        assert match, name
        parameters = " ".join(match.group(1).split())
        count = 0 if parameters in ("", "void") else parameters.count(",") + 1
        assert len(argtypes) == count, (name, parameters)


def test_ex_calls_refuse_bad_arguments():
    problem = L.sgemm_problem(gemmtune.plan_mm("mm", (4, 6), (6, 1), (6, 8), (8, 1)), 1.0, 0.0)
    bf16, fp32 = gemmtune._precision.PRECISIONS["bf16"], gemmtune._precision.PRECISIONS["fp32"]
    c16 = gemmtune._precision.C_OPERAND_TYPE
    lib = L.lib()
    assert lib.gemmtune_run_gemm_problem_ex(None, bf16, c16, problem, 16, 16, 16, None) == L.INVALID_ARGUMENT
    assert lib.gemmtune_run_gemm_problem_ex(None, fp32, c16, problem, 16, 16, 16, None) == L.INVALID_ARGUMENT
    assert lib.gemmtune_run_gemm_problem_ex(None, bf16, c16, None, 16, 16, 16, None) == L.INVALID_ARGUMENT
    assert lib.gemmtune_run_gemm_problem_bias(None, bf16, c16, problem, 16, 16, 16, 16, None) == L.INVALID_ARGUMENT
    assert lib.gemmtune_choose_gemm_ex(None, bf16, c16, 0, 0, 4, 8, 6, None, 6, 0, None, 8, 0, 8, 0, 1, None, None,
                                       0, None, 0) == L.INVALID_ARGUMENT


def test_tune_passes_c16_problems_to_the_tuner(tmp_path):
    """Sizes with :c16 and a record file's "c" reach gemm-tune as given: it accepts them (and would
    tune them, given a GPU) and refuses a c16 it cannot have, with its message."""
    with pytest.raises(ValueError, match="c16"):
        gemmtune.tune(sizes=["64:c16"], results_dir=tmp_path / "r1", reload=False)
    record = tmp_path / "calls.jsonl"
    record.write_text('{"schema":"gemmtune.record/1"}\n'
                      '{"m":8,"n":4096,"k":4096,"layout":"nt","batch":1,"precision":"bf16","calls":3,"c":"bf16"}\n')
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema":"gemmtune.record/1"}\n{"m":8,"n":64,"k":64,"calls":1,"c":"bf16"}\n')
    with pytest.raises(ValueError, match="'c' must be"):  # read before any GPU is looked for
        gemmtune.tune(sizes_from=bad, results_dir=tmp_path / "r2", reload=False)
    if gpu_available():
        return
    with pytest.raises(gemmtune.NoDeviceError):
        gemmtune.tune(sizes=["8x4096x4096:bf16:c16", "1024:fp16:c16"], results_dir=tmp_path / "r3", reload=False)
    with pytest.raises(gemmtune.NoDeviceError):
        gemmtune.tune(sizes_from=record, results_dir=tmp_path / "r4", reload=False)
