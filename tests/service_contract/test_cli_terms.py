"""The plan's text and CSV views show every term of each total, and the shown terms add up to it.

The case has all three memory terms (a Mixtral 8x7B under FSDP full_shard with a training shape:
model states, a working set of gathered units and activations) and a layout (context 2), so
every section has more than one nonzero term. The context group all-gathers K and V (Llama 3's,
on the critical path): a ring of two ranks inside a node at 4K tokens hides each transfer behind
its step's attention core (TransformerEngine's p2p ring), which left no context term to show.
The sums are taken over what is printed, parsed back from the text, and compared with the printed
total: bytes exactly, milliseconds within the rounding of the three decimals printed (half a
microsecond per term).
"""

import csv
import io
import json
import re

from cli.main import run

CASE = {
    "model": {"preset": "mixtral-8x7b"},
    "training": {"micro_batch_size": 2, "sequence_length": 4096},
    "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "a100-80gb"},
    "arrangement": "full_shard",
    "parallelism": {"context": 2, "context_attention": "all_gather"},
}


def zeroplan(capsys, tmp_path, *flags: str) -> str:
    request = tmp_path / "plan.json"
    request.write_text(json.dumps(CASE))
    assert run(["plan", "-f", str(request), *flags]) == 0
    return capsys.readouterr().out


def section(text: str, header: str) -> dict[str, str]:
    """The rows of the table whose header line starts with `header`: first column -> the rest of the line."""
    block = next(b for b in text.split("\n\n") if b.startswith(header))
    rows = {}
    for line in block.splitlines()[2:]:
        cells = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        if len(cells) == 2:  # a table row; a sentence under the table is not
            rows[cells[0]] = cells[1]
    return rows


def number(cell: str) -> float:
    return float(cell.split()[0].replace(",", ""))


def test_memory_terms_add_up_to_the_per_gpu_total_and_the_usable_bytes(capsys, tmp_path):
    text = zeroplan(capsys, tmp_path)
    memory = {name: int(number(rest)) for name, rest in section(text, "memory per GPU").items()}
    terms = [memory["model states"], memory["working set"], memory["activations"]]
    assert all(t > 0 for t in terms), memory
    assert sum(terms) == memory["= per GPU"]
    assert memory["card"] - memory["- reserve"] - memory["- fragmentation"] == memory["= usable"]
    assert memory["= usable"] - memory["= per GPU"] == memory["headroom"]
    answer = json.loads(zeroplan(capsys, tmp_path, "--json"))
    assert memory["= per GPU"] == answer["memory"]["per_gpu_bytes"]
    # the state table lists the model states and the working set, row by row
    states = section(text, "model states and working set")
    assert sum(int(number(r.split()[-1])) for r in states.values()) == memory["model states"] + memory["working set"]


def test_activation_components_add_up_on_request(capsys, tmp_path):
    assert "activation component" not in zeroplan(capsys, tmp_path)
    rows = section(zeroplan(capsys, tmp_path, "--components"), "activation component")
    total = int(number(rows.pop("= activations")))
    assert len(rows) > 1 and sum(int(number(r)) for r in rows.values()) == total


def test_step_terms_add_up_to_the_step(capsys, tmp_path):
    text = zeroplan(capsys, tmp_path)
    step = {name: number(rest) for name, rest in section(text, "step term").items()}
    total = step.pop("= step")
    assert step["compute (the slowest stage)"] > 0 and step["exposed communication: context"] > 0
    assert {"overlap slowdown", "optimizer step", "pipeline bubble", "offload (PCIe and CPU optimizer)"} <= set(step)
    assert abs(sum(step.values()) - total) <= 0.0005 * (len(step) + 1)
    assert re.search(r"MFU \d+\.\d% .* tokens/s per GPU", text)


def test_traffic_is_split_by_group_and_every_collective_names_its_group_and_link(capsys, tmp_path):
    text = zeroplan(capsys, tmp_path)
    groups = {name: int(number(rest)) for name, rest in section(text, "traffic by group").items()}
    total = groups.pop("= per GPU per step")
    assert set(groups) == {"data", "context"} and sum(groups.values()) == total
    collectives = section(text, "collective")
    assert all(re.match(r"(data|context)\s+(intra_node|inter_node)", rest) for rest in collectives.values())


def test_the_arrangement_as_asked_and_the_layout_are_shown(capsys, tmp_path):
    text = zeroplan(capsys, tmp_path)
    assert "arrangement full_shard (the flags of zero3" in text
    assert "layout t 1 x p 1 x c 2 x d 8 = 16 GPUs" in text
    assert ", context K/V all-gathered" in text


def test_the_csv_holds_the_same_terms(capsys, tmp_path):
    rows = list(csv.DictReader(io.StringIO(zeroplan(capsys, tmp_path, "--csv"))))
    memory = {r["term"]: int(r["value"]) for r in rows if r["section"] == "memory"}
    assert memory["model states"] + memory["working set"] + memory["activations"] == memory["= per GPU"]
    step = {r["term"]: float(r["value"]) for r in rows if r["section"] == "step"}
    total = step.pop("= step")
    assert abs(sum(step.values()) - total) <= 1e-9 * total
    traffic = {r["term"]: int(r["value"]) for r in rows if r["section"] == "traffic"}
    assert traffic["data"] + traffic["context"] == traffic["= per GPU per step"]
    asked = {r["term"]: r["value"] for r in rows if r["section"] == "arrangement"}
    assert asked == {"asked": "full_shard", "resolved": "zero3"}
    layout = {r["term"]: int(r["value"]) for r in rows if r["section"] == "layout"}
    assert layout["context"] * layout["data"] * layout["tensor"] * layout["pipeline"] == CASE["cluster"]["world_size"]
    assert {r["section"] for r in rows} >= {"activation", "collective", "throughput", "model_state"}
