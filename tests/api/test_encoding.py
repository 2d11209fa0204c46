"""Response bodies (api.encoding) are byte for byte what pydantic's model_dump_json writes."""

import orjson
import pytest
from pydantic import BaseModel, ConfigDict, Field, RootModel, computed_field, field_serializer

from api.encoding import fields_json, model_json, plain_model
from models.enums import StateClass
from models.fit import FIT_EXAMPLE, FIT_LAYOUT_EXAMPLE, FitRequest, FitResponse
from models.limits import LIMITS_EXAMPLE, LIMITS_MODEL_EXAMPLE, LimitsRequest, LimitsResponse
from models.plan import LAYOUT_EXAMPLE, LEVER_RICH_EXAMPLE, PLAN_EXAMPLE, PlanRequest, PlanResponse
from models.recommend import RECOMMEND_EXAMPLE, RecommendRequest, RecommendResponse
from models.search import SearchResponse
from service.answers import fit as fitting
from service.answers import limits, recommend
from service.answers import plan as planner
from service.errors import AnswerOutOfRange
from tests.conftest import plan_body


def pydantic_json(model: BaseModel) -> bytes:
    return model.model_dump_json().encode()


@pytest.mark.parametrize("response", [PlanResponse, FitResponse, LimitsResponse])
def test_the_planning_answers_take_the_fast_encoder(response):
    assert plain_model(response)


@pytest.mark.parametrize("response", [SearchResponse, RecommendResponse])
def test_an_answer_holding_requests_as_clients_write_them_is_written_by_pydantic(response):
    # each row or step's /v1/plan request is written by a serializer (nulls left out, spec objects in their own
    # fields); a search also echoes its restrictions, a dict of any JSON
    assert not plain_model(response)


PRESET = {"model": {"preset": "llama-3-70b"}, "training": {"micro_batch_size": 1, "sequence_length": 4096}}
H100 = {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb", "links": "nvlink4-ib400"}
DATA_PARALLEL_PLANS = [
    PLAN_EXAMPLE,
    LEVER_RICH_EXAMPLE,
    PRESET | {"cluster": H100, "arrangement": "zero3", "activations": {"model": "transformer"}},
    PRESET | {"cluster": H100, "arrangement": "zero3", "activations": {"model": "fudge", "fudge": 17}},
    PRESET | {"cluster": H100 | {"world_size": 256}, "arrangement": "hybrid", "precision": "fsdp2"},
    PRESET | {"cluster": H100, "arrangement": "zero2", "precision": "deepspeed"},
    PRESET
    | {"cluster": H100, "arrangement": "zero3", "precision": "deepspeed", "levers": {"offload_parameters": True}},
    PRESET | {"cluster": H100, "arrangement": "zero3", "levers": {"zeropp": {"qwz": True, "hpz": True, "qgz": True}}},
    PRESET | {"cluster": H100, "arrangement": "zero1", "levers": {"mxfp8": True, "recompute": "full"}},
    PRESET
    | {
        "training": {"micro_batch_size": 2, "sequence_length": 8192, "total_tokens": 10**12, "utilisation": 0.41},
        "cluster": H100 | {"gpu_hour_price": 2.5, "host_memory_bytes": 2 * 10**12},
        "arrangement": "zero3",
        "levers": {"offload_optimizer": True, "overlap": False},
    },
    {"model": {"preset": "mixtral-8x7b"}, "cluster": H100, "arrangement": "full_shard", "precision": "fsdp2"},
    {
        "model": {"parameter_count": 1},
        "cluster": {"world_size": 1, "gpus_per_node": 1, "gpu": "seed-80gb"},
        "arrangement": "ddp",
    },
] + [plan_body(arrangement, world_size=n) for arrangement in ("ddp", "zero1", "zero2", "zero3") for n in (1, 8, 96)]


@pytest.mark.parametrize("body", DATA_PARALLEL_PLANS)
def test_a_data_parallel_plan_is_written_from_its_fields_as_pydantic_writes_the_model(body):
    request = PlanRequest.model_validate(body)
    fields = planner.plan_fields(request)
    assert isinstance(fields, dict)
    expected = pydantic_json(planner.plan(request))
    assert orjson.dumps(fields, default=lambda m: m.__dict__) == expected  # orjson wrote it, no fall-back
    assert fields_json(fields, PlanResponse) == expected


def test_a_layout_plan_is_written_from_its_fields_as_pydantic_writes_the_model():
    """A plan on a mesh is assembled as a data-parallel plan is (its memory, traffic and parallelism models among
    the fields) and written by the same direct path."""
    request = PlanRequest.model_validate(LAYOUT_EXAMPLE)
    fields = planner.plan_fields(request)
    assert isinstance(fields, dict)
    answer = planner.plan(request)
    assert fields_json(fields, PlanResponse) == pydantic_json(answer) == model_json(answer)


@pytest.mark.parametrize("value", [2**63, 2**64, -(2**63) - 1])
def test_an_integer_past_64_bits_is_refused_whichever_encoder_writes_it(value):
    # 2^63 orjson writes (as an unsigned 64-bit integer), 2^64 it leaves to pydantic: both past a signed 64-bit read.
    request = PlanRequest.model_validate(PLAN_EXAMPLE)
    fields = planner.plan_fields(request)
    assert isinstance(fields, dict)
    fields["memory"]["per_gpu_bytes"] = value
    with pytest.raises(AnswerOutOfRange, match="/memory/per_gpu_bytes"):
        fields_json(fields, PlanResponse)
    with pytest.raises(AnswerOutOfRange):
        model_json(PlanResponse.model_validate(fields))


def test_the_largest_64_bit_integer_is_written():
    request = PlanRequest.model_validate(PLAN_EXAMPLE)
    fields = planner.plan_fields(request)
    assert isinstance(fields, dict)
    fields["memory"]["per_gpu_bytes"] = 2**63 - 1
    assert fields_json(fields, PlanResponse) == pydantic_json(PlanResponse.model_validate(fields))


def test_fit_recommend_and_limits_are_written_as_pydantic_writes_them():
    answers = [fitting.fit(FitRequest.model_validate(body), 4096) for body in (FIT_EXAMPLE, FIT_LAYOUT_EXAMPLE)]
    answers.append(recommend.recommend(RecommendRequest.model_validate(RECOMMEND_EXAMPLE)))
    answers += [limits.limits(LimitsRequest.model_validate(body)) for body in (LIMITS_EXAMPLE, LIMITS_MODEL_EXAMPLE)]
    for answer in answers:
        assert model_json(answer) == pydantic_json(answer), type(answer).__name__


class Row(BaseModel):
    state: StateClass
    bytes: int
    share: float | None


class Table(BaseModel):
    rows: list[Row]
    note: str = "n"


class Renamed(BaseModel):
    value: int = Field(serialization_alias="v")


class Hidden(BaseModel):
    value: int
    secret: int = Field(default=0, exclude=True)


class Computed(BaseModel):
    value: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def double(self) -> int:
        return 2 * self.value


class Serialised(BaseModel):
    value: int

    @field_serializer("value")
    def as_text(self, value: int) -> str:
        return str(value)


class Extra(BaseModel):
    model_config = ConfigDict(extra="allow")
    value: int


class Whole(RootModel[list[int]]):
    pass


class HoldsRenamed(BaseModel):
    inner: list[Renamed] | None


SPECIAL = [
    Renamed(value=1),
    Hidden(value=1, secret=2),
    Computed(value=2),
    Serialised(value=3),
    Extra(value=1, other=2),  # type: ignore[call-arg]
    Whole([1, 2]),
    HoldsRenamed(inner=[Renamed(value=1)]),
]


def test_a_plain_model_is_written_as_pydantic_writes_it():
    table = Table(rows=[Row(state="momentum", bytes=2**63 - 1, share=0.1), Row(state="gradients", bytes=0, share=None)])
    assert plain_model(Table)
    assert model_json(table) == pydantic_json(table)
    assert model_json(table) == (
        b'{"rows":[{"state":"momentum","bytes":9223372036854775807,"share":0.1},'
        b'{"state":"gradients","bytes":0,"share":null}],"note":"n"}'
    )


@pytest.mark.parametrize("model", SPECIAL, ids=lambda m: type(m).__name__)
def test_a_model_with_its_own_serialisation_is_written_by_pydantic(model):
    assert not plain_model(type(model))
    assert model_json(model) == pydantic_json(model)


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 1e-320, 2.5e300])
def test_values_orjson_cannot_write_alike_fall_back_to_pydantic(value):
    row = Row(state="parameters", bytes=1, share=value)
    assert model_json(row) == pydantic_json(row)


@pytest.mark.parametrize("value", [2**63, 2**64, -(2**63) - 1])
def test_integers_past_64_bits_are_refused_not_written(value):
    with pytest.raises(AnswerOutOfRange, match="/bytes"):
        model_json(Row(state="parameters", bytes=value, share=0.5))


def test_long_fractions_are_not_taken_for_large_integers(monkeypatch):
    # orjson writes small floats in full (0.000031145864864864865: 21 digits after the point); only a number's
    # leading digits can make an integer past 64 bits, so such a body is not parsed again.
    import api.encoding

    parsed = []
    monkeypatch.setattr(api.encoding, "outside_int64", lambda value, pointer="": parsed.append(value))
    body = orjson.dumps({"seconds": 0.000031145864864864865, "bytes": 10**17})  # 18 digits: within int64
    assert b"0.000031145864864864865" in body
    assert api.encoding.within_int64(body) == body and parsed == []


def test_only_a_run_of_nineteen_digits_that_does_not_follow_a_point_is_parsed_again():
    from api.encoding import DIGITS_AS_ONES, may_hold_a_long_integer

    def long(body: bytes) -> bool:
        return may_hold_a_long_integer(body.translate(DIGITS_AS_ONES))

    assert not long(b'{"a": 0.000031145864864864865, "b": 123456789012345678}')  # 21 fraction digits, 18 digits
    assert long(b'{"a": 0.000031145864864864865, "b": 1234567890123456789}')  # 19 digits after a fraction
    assert long(b"[9223372036854775808]")
    assert not long(b"[1.2345678901234567e+25, -922337203685477580]")


@pytest.mark.parametrize("value", [2**53 - 1, 2**53, -(2**53), 2**62, -(2**63)])
def test_integers_on_either_side_of_2_to_the_53_are_written_as_pydantic_writes_them(value):
    # Within 2^53 - 1 orjson's own check passes the body unscanned; past it the body is written again and scanned.
    row = Row(state="parameters", bytes=value, share=0.5)
    assert model_json(row) == pydantic_json(row)
    assert model_json(row) == b'{"state":"parameters","bytes":%d,"share":0.5}' % value


def test_a_body_of_integers_within_2_to_the_53_is_not_scanned(monkeypatch):
    import api.encoding

    scanned: list[bytes] = []
    monkeypatch.setattr(api.encoding, "within_int64", lambda body: scanned.append(body) or body)
    request = PlanRequest.model_validate(PLAN_EXAMPLE)
    fields = planner.plan_fields(request)
    assert isinstance(fields, dict)
    assert fields_json(fields, PlanResponse) == pydantic_json(PlanResponse.model_validate(fields))
    assert scanned == []
    fields["memory"]["per_gpu_bytes"] = 2**53  # one integer past orjson's strict check: the body is scanned
    assert fields_json(fields, PlanResponse) == pydantic_json(PlanResponse.model_validate(fields))
    assert len(scanned) == 1
