"""GET and POST /v1/figures/{name} over HTTP: media types, negotiation, agreement, problem+json."""

import pytest

from api.routes.figures import negotiate
from models.figures import FigureFormat, FigureName
from tests.figures.conftest import SEED_30B_BODY, SEED_30B_QUERY
from tests.figures.test_render import PNG_SIGNATURE, png_size

PROBLEM = "application/problem+json"
SVG, PNG = "image/svg+xml", "image/png"


def assert_problem(response, status, pointer=None):
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert {"type", "title", "status", "detail", "code"} <= body.keys()
    if pointer is not None:
        assert pointer in [e["pointer"] for e in body["errors"]], body


@pytest.mark.parametrize("name", list(FigureName))
def test_get_and_post_draw_the_same_bytes(client, name):
    posted = client.post(f"/v1/figures/{name}", params={"format": "svg"}, json=SEED_30B_BODY)
    got = client.get(f"/v1/figures/{name}", params=SEED_30B_QUERY | {"format": "svg"})
    assert posted.status_code == got.status_code == 200, (posted.text, got.text)
    assert posted.headers["content-type"] == got.headers["content-type"] == SVG
    assert posted.content == got.content


def test_png_by_default_with_its_size_and_headers(client):
    response = client.post("/v1/figures/memory-vs-gpus", json=SEED_30B_BODY | {"width_px": 640, "height_px": 400})
    assert response.status_code == 200 and response.headers["content-type"] == PNG
    assert response.content.startswith(PNG_SIGNATURE) and png_size(response.content) == (640, 400)
    assert response.headers["vary"] == "Accept"
    assert response.headers["content-disposition"] == 'inline; filename="memory-vs-gpus.png"'


@pytest.mark.parametrize(
    ("params", "accept", "media_type"),
    [
        ({}, SVG, SVG),
        ({}, PNG, PNG),
        ({"format": "png"}, SVG, PNG),
        ({"format": "svg"}, PNG, SVG),
        ({}, "text/html, image/*;q=0.8", PNG),
    ],
)
def test_format_wins_over_accept(client, params, accept, media_type):
    response = client.get("/v1/figures/step-time", params=SEED_30B_QUERY | params, headers={"accept": accept})
    assert response.status_code == 200 and response.headers["content-type"] == media_type


@pytest.mark.parametrize(
    ("accept", "chosen"),
    [
        (None, FigureFormat.png),
        ("*/*", FigureFormat.png),
        ("application/json", FigureFormat.png),
        ("image/png;q=0.5, image/svg+xml;q=0.9", FigureFormat.svg),
        ("image/svg+xml;q=0.4, image/png", FigureFormat.png),
        ("image/svg+xml;q=0", FigureFormat.png),
        ("IMAGE/SVG+XML", FigureFormat.svg),
        ("image/svg+xml;q=bad", FigureFormat.png),
        ("image/svg+xml, image/png", FigureFormat.svg),
    ],
)
def test_accept_negotiation(accept, chosen):
    assert negotiate(None, accept) is chosen


def test_measured_bytes_change_the_traffic_figure(client):
    measured = [{"arrangement": "zero2", "collective": "reduce_scatter", "bytes_per_gpu": 52_500_000_000}]
    plain = client.post("/v1/figures/traffic?format=svg", json=SEED_30B_BODY)
    beside = client.post("/v1/figures/traffic?format=svg", json=SEED_30B_BODY | {"measured": measured})
    assert plain.status_code == beside.status_code == 200
    assert b"measured" in beside.content and plain.content != beside.content


@pytest.mark.parametrize("method", ["get", "post"])
def test_an_unknown_figure_is_a_problem(client, method):
    kwargs = {"json": SEED_30B_BODY} if method == "post" else {"params": SEED_30B_QUERY}
    assert_problem(getattr(client, method)("/v1/figures/pie-chart", **kwargs), 422, "/path/name")


@pytest.mark.parametrize(
    ("extra", "pointer"),
    [
        ({"max_gpus": 0}, "/max_gpus"),
        ({"max_gpus": 1_000_001}, "/max_gpus"),
        ({"max_gpus": "many"}, "/max_gpus"),
        ({"width_px": 10}, "/width_px"),
        ({"height_px": 100_000}, "/height_px"),
        ({"arrangement": "zero4"}, "/arrangement"),  # a plan body's arrangement is taken; an unknown one is not
        (
            {"measured": [{"arrangement": "hybrid", "collective": "all_gather", "bytes_per_gpu": 1}]},
            "/measured/0/arrangement",
        ),
        (
            {"measured": [{"arrangement": "zero3", "collective": "broadcast", "bytes_per_gpu": 1}]},
            "/measured/0/collective",
        ),
        (
            {"measured": [{"arrangement": "zero3", "collective": "all_gather", "bytes_per_gpu": -1}]},
            "/measured/0/bytes_per_gpu",
        ),
        ({"measured": [{"arrangement": "zero3", "collective": "all_gather", "bytes_per_gpu": 1}] * 2}, "/measured"),
        ({"cluster": {"world_size": 12, "gpus_per_node": 8, "gpu": "seed-80gb"}}, "/cluster/world_size"),
    ],
)
def test_bad_post_input_is_a_422_problem(client, extra, pointer):
    assert_problem(client.post("/v1/figures/traffic", json=SEED_30B_BODY | extra), 422, pointer)


def test_a_bad_format_is_a_422_problem(client):
    assert_problem(client.post("/v1/figures/traffic?format=gif", json=SEED_30B_BODY), 422, "/query/format")
    assert_problem(client.get("/v1/figures/traffic", params=SEED_30B_QUERY | {"format": "gif"}), 422, "/query/format")


@pytest.mark.parametrize(
    ("params", "pointer"),
    [
        ({"max_gpus": 0}, "/query/max_gpus"),
        ({"max_gpus": 2_000_000}, "/query/max_gpus"),
        ({"world_size": 12}, "/query/world_size"),
        ({"gpu": "tpu-v9"}, "/query/gpu"),
        ({"gpu_memory_bytes": 80_000_000_000}, "/query/gpu"),
        ({"parameter_count": 0}, "/query/parameter_count"),
        ({"colour": "blue"}, "/query/colour"),
    ],
)
def test_bad_get_input_is_a_422_problem_naming_the_parameter(client, params, pointer):
    assert_problem(client.get("/v1/figures/memory-vs-gpus", params=SEED_30B_QUERY | params), 422, pointer)


def test_a_get_without_a_model_points_at_parameter_count(client):
    query = {k: v for k, v in SEED_30B_QUERY.items() if k != "parameter_count"}
    assert_problem(client.get("/v1/figures/traffic", params=query), 422, "/query/parameter_count")


def test_a_post_body_must_be_json(client):
    response = client.post("/v1/figures/traffic", content=b"x=1", headers={"content-type": "text/plain"})
    assert_problem(response, 415)


def test_the_spec_declares_image_media_types_and_problems(client):
    operations = client.app.openapi()["paths"]["/v1/figures/{name}"]
    assert {operations["post"]["operationId"], operations["get"]["operationId"]} == {"drawFigure", "getFigure"}
    for operation in operations.values():
        assert set(operation["responses"]["200"]["content"]) == {PNG, SVG}
        assert {"422", "500"} <= operation["responses"].keys() and operation["summary"]
        assert all(p["name"].lower() != "accept" for p in operation.get("parameters", []))
    assert {"400", "415"} <= operations["post"]["responses"].keys()
