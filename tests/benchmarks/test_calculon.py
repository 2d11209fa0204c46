"""bench.calculon without Calculon: nothing here installs or runs it."""

import argparse
import json
from pathlib import Path

import pytest

from bench import calculon

# One line as bench/calculon_driver.py prints it (a search of gpt3-175B on a100_80g at 4096 GPUs
# stopped at its 60 s deadline), cut to one layout.
RECORDED = {
    "calculon_version": "0.1.0",
    "cpus": 2,
    "complete": False,
    "items_total": 3132,
    "items_done": 3,
    "configurations_in_space": 7474752,
    "configurations_evaluated": 6606,
    "calculon_exe_count": 3440,
    "good": 1050,
    "bad": 2390,
    "seconds": 60.0,
    "best": [
        {
            "execution": {
                "num_procs": 4096,
                "tensor_par": 8,
                "pipeline_par": 4,
                "data_par": 128,
                "tensor_par_net": 0,
                "pipeline_par_net": 1,
                "data_par_net": 1,
                "batch_size": 1536,
                "microbatch_size": 1,
                "datatype": "float16",
                "fused_activation": True,
                "attention_type": "multihead",
                "activation_recompute": "none",
                "pipeline_interleaving": 24,
                "optimizer_sharding": True,
                "tensor_par_comm_type": "p2p_rs_ag",
                "tensor_par_overlap": "ring",
                "seq_par_ag_redo": False,
                "data_par_overlap": True,
                "weight_offload": False,
                "activations_offload": False,
                "optimizer_offload": True,
                "training": True,
            },
            "stats": {
                "total_time": 4.481062016106691,
                "sample_rate": 342.7758853769519,
                "proc_mem_tier1_cap_req": 64234006272.0,
                "proc_mem_tier2_cap_req": 594671616.0,
                "bubble_time": 0.04257668172997031,
                "tp_comm_exposed_time": 0.035434563405610874,
                "pp_comm_exposed_time": 0.1725812736,
                "dp_comm_exposed_time": 0.35064908548110907,
                "compute_efficiency": 0.6812406928681667,
                "system_efficiency": 0.8658260916596127,
                "total_efficiency": 0.5898359665855314,
            },
        }
    ],
}


def test_parses_the_drivers_line() -> None:
    result = calculon.parse_driver_output("pool started\n" + json.dumps(RECORDED) + "\n")
    assert result["installed"] is True
    assert result["reason"] is None
    assert result["complete"] is False
    assert result["layouts_evaluated"] == 6606
    assert result["layouts_per_s"] == pytest.approx(6606 / 60.0)  # 110.1
    assert result["layouts_in_space"] == 7474752
    (row,) = result["best"]
    assert (row["tensor"], row["pipeline"], row["data"]) == (8, 4, 128)
    assert 8 * 4 * 128 == 4096
    assert row["micro_batch_size"] == 1
    assert row["global_batch_size"] == 1536
    assert row["pipeline_interleaving"] == 24
    assert row["recompute"] == "none"
    assert row["optimizer_sharding"] is True
    assert row["optimizer_offload"] is True
    assert row["step_s"] == 4.481062016106691
    assert row["memory_bytes_per_gpu"] == 64234006272
    assert isinstance(row["memory_bytes_per_gpu"], int)
    # Calculon's samples per second is its batch over its step time: 1536 / 4.481 s
    assert row["samples_per_s"] == pytest.approx(1536 / 4.481062016106691)


def test_report_says_the_search_was_cut_short() -> None:
    result = calculon.parse_driver_output(json.dumps(RECORDED))
    text = calculon.format_report(result)
    assert "6,606 configurations evaluated in 60.0 s: 110.1 layouts/s" in text
    assert "3 of 3,132 items finished" in text
    assert "0.088% of the 7,474,752" in text  # 6606 / 7474752 = 0.000884


@pytest.mark.parametrize("broken", ["", "Traceback ...", json.dumps({"cpus": 2})])
def test_unreadable_output_is_a_setup_error(broken: str) -> None:
    with pytest.raises(calculon.SetupError, match="unreadable output"):
        calculon.parse_driver_output(broken)


def test_without_a_source_it_is_not_installed_and_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(calculon.SOURCE_ENV, raising=False)
    result = calculon.run_calculon_search(work_dir=tmp_path)
    assert result["installed"] is False
    assert "--calculon-source" in result["reason"]
    assert calculon.SOURCE_ENV in result["reason"]
    assert (result["layouts_evaluated"], result["layouts_per_s"], result["best"]) == (0, 0.0, [])
    assert list(tmp_path.iterdir()) == []  # nothing was installed


def test_a_folder_that_is_not_calculon_is_refused_before_any_install(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    result = calculon.run_calculon_search(source=str(tmp_path / "src"), work_dir=tmp_path / "work")
    assert result["installed"] is False
    assert "not a Calculon checkout" in result["reason"]
    assert not (tmp_path / "work").exists()


def test_a_missing_source_is_refused(tmp_path: Path) -> None:
    result = calculon.run_calculon_search(source=str(tmp_path / "nowhere"), work_dir=tmp_path / "work")
    assert result["installed"] is False
    assert "does not exist" in result["reason"]


def test_finds_the_tree_one_folder_down_as_in_a_github_archive(tmp_path: Path) -> None:
    tree = tmp_path / "calculon-main"
    (tree / "calculon" / "llm").mkdir(parents=True)
    (tree / "calculon" / "llm" / "optimal_execution.py").write_text("")
    assert calculon.find_tree(tmp_path) == tree


def test_names_a_model_it_does_not_have(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "gpt3-175B.json").write_text("{}")
    assert calculon.calculon_file(tmp_path, "models", "gpt3-175B") == tmp_path / "models" / "gpt3-175B.json"
    with pytest.raises(calculon.SetupError, match=r"no model 'gpt3-13B' in Calculon's models/ \(it has: gpt3-175B\)"):
        calculon.calculon_file(tmp_path, "models", "gpt3-13B")


def test_a_restriction_reads_as_knob_and_values() -> None:
    assert calculon.parse_restriction("tensor_par=4,8") == ("tensor_par", [4, 8])
    assert calculon.parse_restriction("optimizer_sharding=true") == ("optimizer_sharding", [True])
    assert calculon.parse_restriction("activation_recompute=none,full") == ("activation_recompute", ["none", "full"])
    for wrong in ("tensor=4", "tensor_par", "tensor_par="):
        with pytest.raises(argparse.ArgumentTypeError, match="KNOB=V1,V2"):
            calculon.parse_restriction(wrong)


def test_an_unknown_knob_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot restrict micro_batch_size"):
        calculon.run_calculon_search(restrict={"micro_batch_size": [1]}, source=str(tmp_path), work_dir=tmp_path)


def test_the_restriction_reaches_the_driver() -> None:
    command = calculon.driver_command(
        Path("python"),
        Path("m.json"),
        Path("s.json"),
        num_procs=4096,
        global_batch_size=1536,
        sequence_length=2048,
        max_seconds=60.0,
        cpus=None,
        top_n=5,
        mbs_break=True,
        restrict={"tensor_par": [8], "pipeline_par": [4]},
    )
    assert command[1] == "-I"  # bench/ off sys.path, or bench/calculon.py would shadow the package
    assert '--restrict={"tensor_par": [8], "pipeline_par": [4]}' in command
    assert "--max-batch-size=1536" in command and "--mbs-break" in command
