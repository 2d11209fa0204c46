from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.sweep_request import SweepRequest
from ...models.sweep_response import SweepResponse
from ...types import Response


def _get_kwargs(
    *,
    body: SweepRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/sweep",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | SweepResponse | None:
    if response.status_code == 200:
        response_200 = SweepResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 406:
        response_406 = Problem.from_dict(response.json())

        return response_406

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | SweepResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SweepRequest,
) -> Response[Problem | SweepResponse]:
    """Evaluate a plan over a grid of GPU counts, arrangements, shapes and levers

     The cartesian product of `axes` over the `base` plan request, evaluated vectorised through the same
    formulas as /v1/plan. Columnar JSON by default; CSV with `Accept: text/csv`. Cells that are not
    valid jobs are skipped and counted. Axes: model (presets, counts or architectures) or
    parameter_count, world_size, gpus_per_node, arrangement, micro_batch_size, sequence_length,
    gradient_accumulation_steps, recompute, offload_optimizer, mxfp8. Columns name the model and its
    parameter count and give tokens/s; with base.training.total_tokens, the run's steps, days, GPU-hours
    (and cost with a GPU-hour price). Bounded: at most ZEROPLAN_MAX_SWEEP_CELLS cells and
    ZEROPLAN_MAX_SWEEP_EVALUATIONS evaluations (one per combination of model, arrangement, recompute,
    offload_optimizer and mxfp8, plus overflow checks), an answer of at most ZEROPLAN_MAX_RESPONSE_BYTES
    (page with `limit` and `offset`), a deadline, and a limit on heavy requests at once (429).

    Args:
        body (SweepRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SweepResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: SweepRequest,
) -> Problem | SweepResponse | None:
    """Evaluate a plan over a grid of GPU counts, arrangements, shapes and levers

     The cartesian product of `axes` over the `base` plan request, evaluated vectorised through the same
    formulas as /v1/plan. Columnar JSON by default; CSV with `Accept: text/csv`. Cells that are not
    valid jobs are skipped and counted. Axes: model (presets, counts or architectures) or
    parameter_count, world_size, gpus_per_node, arrangement, micro_batch_size, sequence_length,
    gradient_accumulation_steps, recompute, offload_optimizer, mxfp8. Columns name the model and its
    parameter count and give tokens/s; with base.training.total_tokens, the run's steps, days, GPU-hours
    (and cost with a GPU-hour price). Bounded: at most ZEROPLAN_MAX_SWEEP_CELLS cells and
    ZEROPLAN_MAX_SWEEP_EVALUATIONS evaluations (one per combination of model, arrangement, recompute,
    offload_optimizer and mxfp8, plus overflow checks), an answer of at most ZEROPLAN_MAX_RESPONSE_BYTES
    (page with `limit` and `offset`), a deadline, and a limit on heavy requests at once (429).

    Args:
        body (SweepRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SweepResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SweepRequest,
) -> Response[Problem | SweepResponse]:
    """Evaluate a plan over a grid of GPU counts, arrangements, shapes and levers

     The cartesian product of `axes` over the `base` plan request, evaluated vectorised through the same
    formulas as /v1/plan. Columnar JSON by default; CSV with `Accept: text/csv`. Cells that are not
    valid jobs are skipped and counted. Axes: model (presets, counts or architectures) or
    parameter_count, world_size, gpus_per_node, arrangement, micro_batch_size, sequence_length,
    gradient_accumulation_steps, recompute, offload_optimizer, mxfp8. Columns name the model and its
    parameter count and give tokens/s; with base.training.total_tokens, the run's steps, days, GPU-hours
    (and cost with a GPU-hour price). Bounded: at most ZEROPLAN_MAX_SWEEP_CELLS cells and
    ZEROPLAN_MAX_SWEEP_EVALUATIONS evaluations (one per combination of model, arrangement, recompute,
    offload_optimizer and mxfp8, plus overflow checks), an answer of at most ZEROPLAN_MAX_RESPONSE_BYTES
    (page with `limit` and `offset`), a deadline, and a limit on heavy requests at once (429).

    Args:
        body (SweepRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SweepResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SweepRequest,
) -> Problem | SweepResponse | None:
    """Evaluate a plan over a grid of GPU counts, arrangements, shapes and levers

     The cartesian product of `axes` over the `base` plan request, evaluated vectorised through the same
    formulas as /v1/plan. Columnar JSON by default; CSV with `Accept: text/csv`. Cells that are not
    valid jobs are skipped and counted. Axes: model (presets, counts or architectures) or
    parameter_count, world_size, gpus_per_node, arrangement, micro_batch_size, sequence_length,
    gradient_accumulation_steps, recompute, offload_optimizer, mxfp8. Columns name the model and its
    parameter count and give tokens/s; with base.training.total_tokens, the run's steps, days, GPU-hours
    (and cost with a GPU-hour price). Bounded: at most ZEROPLAN_MAX_SWEEP_CELLS cells and
    ZEROPLAN_MAX_SWEEP_EVALUATIONS evaluations (one per combination of model, arrangement, recompute,
    offload_optimizer and mxfp8, plus overflow checks), an answer of at most ZEROPLAN_MAX_RESPONSE_BYTES
    (page with `limit` and `offset`), a deadline, and a limit on heavy requests at once (429).

    Args:
        body (SweepRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SweepResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
