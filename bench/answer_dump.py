"""The answers of a few hundred varied planning requests, written to a file: a speed change must leave them
byte-identical.

    python -m bench.answer_dump before.jsonl     # on the tree before the change
    python -m bench.answer_dump after.jsonl      # after it
    cmp before.jsonl after.jsonl                  # identical bytes, not approximately equal

The requests are drawn from a seeded generator (the same on every run): /v1/plan over presets, parameter counts,
Hugging Face configs (tests/data/hf_configs), architecture fields, every precision and arrangement, GPUs and links,
training shapes, activations, levers (offload, recomputation, buckets, MXFP8, ZeRO++) and layouts (tensor, pipeline,
context and expert degrees, schedules, global batches), with the examples of models.plan and bench.plan_core's
bodies first; then /v1/fit, /v1/limits and /v1/recommend. Each line holds the path, the body, the status and the
answer as served (through the app, so a plan comes by the direct path); a 200 plan also holds
``model_json(plan(request))``, the validated model's JSON, which must equal it. A problem's ``instance`` and
``request_id`` differ from run to run and are left out.
"""

import json
import logging
import random
import sys
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from api.app import create_app
from api.encoding import model_json
from api.settings import Settings
from bench.plan_core import HYBRID_BODY, LOAD_BODY, PRESET_BODY
from models.plan import LAYOUT_EXAMPLE, LEVER_RICH_EXAMPLE, PLAN_EXAMPLE, PlanRequest
from service.answers.plan import plan

ROOT = Path(__file__).resolve().parent.parent
# A fixed list, not the folder's contents: a config added to the test data must not move the seeded draws (and so
# every request after it) between two runs of the dump that are to be compared.
HF_CONFIGS = [
    ROOT / "tests" / "data" / "hf_configs" / f"{name}.json"
    for name in (
        *("deepseek-v2", "deepseek-v3", "gemma-2-9b", "gemma-3-27b-it", "gemma-7b", "llama-3.1-8b"),
        *("llama-4-scout-17b-16e", "mistral-7b-v0.1", "mixtral-8x7b-v0.1", "qwen2.5-7b", "qwen3-30b-a3b", "qwen3-8b"),
    )
]
SEED = 20261201
GPUS = ["seed-80gb", "h100-80gb", "a100-40gb", "a100-80gb", "b200", "mi300x", "h20", "v100-32gb", "gh200", "l40s"]
LINKS = [None, "seed", "nvlink3-ib200", "nvlink4-ib400", "nvlink5-ib800"]
PRESETS = [
    *("seed-30b", "gpt-3-175b", "megatron-7.5b", "llama-2-7b", "llama-3-70b", "llama-3.1-405b", "llama-4-scout"),
    *("mixtral-8x7b", "mixtral-8x22b", "qwen2.5-7b", "qwen3-30b-a3b", "qwen3-235b-a22b", "gemma-2-9b"),
    *("gemma-3-27b", "deepseek-v3", "qwen2.5-0.5b", "llama-4-maverick", "megatron-1t"),
]
MIXTURES = {"mixtral-8x7b", "mixtral-8x22b", "qwen3-30b-a3b", "deepseek-v3", "llama-4-scout", "qwen3-235b-a22b"}
MIXTURES |= {"llama-4-maverick"}
PRECISIONS = ["mixed_bf16_adam", "mixed_fp16_adam", "fp32_adam", "megatron", "deepspeed", "fsdp2", "seed_sketch"]
ARRANGEMENTS = ["ddp", "zero1", "zero2", "zero3", "no_shard", "shard_grad_op", "full_shard", "hybrid"]
SCHEDULES = ["1f1b", "gpipe", "interleaved", "zero_bubble"]


def hf_config(rng: random.Random) -> dict[str, Any]:
    config: dict[str, Any] = json.loads(rng.choice(HF_CONFIGS).read_text())
    return config


def model_spec(rng: random.Random) -> dict[str, Any]:
    draw = rng.random()
    if draw < 0.3:
        counts = [1_300_000_000, 7_000_000_000, 30_000_000_000, 175_000_000_000, 123_456_789]
        return {"parameter_count": rng.choice(counts)}
    if draw < 0.45:
        return {"hf_config": hf_config(rng)}
    if draw < 0.5:
        return {"layers": 32, "hidden_size": 4096, "attention_heads": 32, "vocab_size": 32000, "ffn_hidden_size": 11008}
    return {"preset": rng.choice(PRESETS)}


def levers(rng: random.Random, arrangement: str) -> dict[str, Any]:
    chosen: dict[str, Any] = {"recompute": rng.choice(["none", "selective", "full"]), "overlap": rng.random() < 0.5}
    shards_parameters = arrangement in ("zero3", "full_shard", "hybrid")
    if rng.random() < 0.3:
        chosen["offload_optimizer"] = True
    if rng.random() < 0.2 and shards_parameters:
        chosen["offload_parameters"] = True
    if rng.random() < 0.2:
        chosen["bucket_bytes"] = rng.choice([26214400, 500_000_000])
    if rng.random() < 0.1:
        chosen["mxfp8"] = True
    if rng.random() < 0.15 and arrangement in ("zero3", "full_shard"):
        chosen["zeropp"] = {"qwz": True, "hpz": rng.random() < 0.5, "qgz": rng.random() < 0.5}
    for name in ("fsdp_prefetch", "tp_comm_overlap", "overlap_param_gather"):
        if rng.random() < 0.1:
            chosen[name] = True
    return chosen


def layout(rng: random.Random, body: dict[str, Any], gpus_per_node: int) -> None:
    """A mesh on the body (in place): degrees, schedule, and a batch the pipeline can take."""
    t, p, c, e = rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 4, 8]), rng.choice([1, 1, 2]), rng.choice([1, 1, 2, 8])
    body["cluster"]["world_size"] = max(body["cluster"]["world_size"], t * p * c * gpus_per_node)
    parallelism = {"tensor": t, "pipeline": p, "context": c, "expert": e, "sequence_parallel": rng.random() < 0.5}
    parallelism["pipeline_schedule"] = rng.choice(SCHEDULES)
    if rng.random() < 0.8:
        body["model"] = {"preset": rng.choice(PRESETS)} if rng.random() < 0.5 else {"hf_config": hf_config(rng)}
    if body["model"].get("preset") not in MIXTURES:
        parallelism["expert"] = 1
    elif t > 1:
        parallelism["sequence_parallel"] = True
    body["parallelism"] = parallelism
    training = body.setdefault("training", {})
    if "gradient_accumulation_steps" not in training and rng.random() < 0.5:
        training["global_batch_size"] = rng.choice([256, 1024]) * training.get("micro_batch_size", 1)
    elif rng.random() < 0.6:
        training["gradient_accumulation_steps"] = rng.choice([8, 16])


def plan_body(rng: random.Random, with_layout: bool) -> dict[str, Any]:
    g = rng.choice([8, 8, 8, 4])
    cluster: dict[str, Any] = {"world_size": g * rng.choice([1, 2, 4, 8, 16, 64, 128]), "gpus_per_node": g}
    cluster["gpu"] = rng.choice(GPUS)
    link = rng.choice(LINKS)
    if link:
        cluster["links"] = link
    arrangement = rng.choice(ARRANGEMENTS)
    body: dict[str, Any] = {"model": model_spec(rng), "precision": rng.choice(PRECISIONS), "cluster": cluster}
    body["arrangement"] = arrangement
    if rng.random() < 0.7:
        training: dict[str, Any] = {"micro_batch_size": rng.choice([1, 2, 4])}
        training["sequence_length"] = rng.choice([1024, 2048, 4096, 8192])
        if rng.random() < 0.4:
            training["gradient_accumulation_steps"] = rng.choice([1, 4, 16])
        if rng.random() < 0.3:
            training["utilisation"] = rng.choice([0.3, 0.45])
        if rng.random() < 0.3:
            training["total_tokens"] = 10**12
        body["training"] = training
    if rng.random() < 0.5:
        model = rng.choice(["none", "fudge", "transformer"])
        body["activations"] = {"model": model, "flash_attention": rng.random() < 0.7}
    if rng.random() < 0.6:
        body["levers"] = levers(rng, arrangement)
    if with_layout:
        layout(rng, body, g)
    if rng.random() < 0.1:
        body["estimator"] = {"largest_layer_parameters": 1_000_000}
    return body


def fit_body(rng: random.Random) -> dict[str, Any]:
    body = plan_body(rng, rng.random() < 0.2)
    body["cluster"].pop("world_size")
    body["max_gpus"] = rng.choice([64, 256, 1024])
    if rng.random() < 0.5:
        body["gpu_count_grid"] = rng.choice(["powers_of_two", "whole_nodes"])
    return body


def requests() -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(SEED)
    examples = (PLAN_EXAMPLE, LEVER_RICH_EXAMPLE, LAYOUT_EXAMPLE, LOAD_BODY, PRESET_BODY, HYBRID_BODY)
    found: list[tuple[str, dict[str, Any]]] = [("/v1/plan", dict(body)) for body in examples]
    found += [("/v1/plan", LOAD_BODY | {"model": {"parameter_count": i + 1}}) for i in range(5)]
    found += [("/v1/plan", plan_body(rng, False)) for _ in range(360)]
    found += [("/v1/plan", plan_body(rng, True)) for _ in range(140)]
    found += [("/v1/fit", fit_body(rng)) for _ in range(60)]
    found += [("/v1/limits", plan_body(rng, rng.random() < 0.3)) for _ in range(20)]
    found += [
        ("/v1/recommend", {k: v for k, v in plan_body(rng, False).items() if k != "arrangement"}) for _ in range(15)
    ]
    return found


def main() -> None:
    out = Path(sys.argv[1])
    logging.disable(logging.CRITICAL)  # the access log of every request
    answered = 0
    asked = requests()
    app = create_app(Settings(answer_cache_bytes=0))
    with TestClient(app, base_url="http://127.0.0.1") as client, out.open("w") as lines:
        for path, body in asked:
            response = client.post(path, json=body)
            answered += response.status_code == 200
            text = response.content.decode()
            if response.status_code != 200:
                problem = json.loads(text)
                problem.pop("instance", None)
                problem.pop("request_id", None)
                text = json.dumps(problem, sort_keys=True)
            line = {"path": path, "body": body, "status": response.status_code, "answer": text}
            if path == "/v1/plan" and response.status_code == 200:
                line["plan_model"] = model_json(plan(PlanRequest.model_validate(body))).decode()
            lines.write(json.dumps(line) + "\n")
    print(f"{len(asked)} requests, {answered} answered 200, written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
