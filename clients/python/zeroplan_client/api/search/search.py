from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.search_request import SearchRequest
from ...models.search_response import SearchResponse
from ...types import Response


def _get_kwargs(
    *,
    body: SearchRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/search",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | SearchResponse | None:
    if response.status_code == 200:
        response_200 = SearchResponse.from_dict(response.json())

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
) -> Response[Problem | SearchResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SearchRequest,
) -> Response[Problem | SearchResponse]:
    """Every valid layout of a model on a cluster, the best by an objective and the Pareto front

     Considers every valid layout (data, tensor, pipeline, context and expert degrees, ZeRO stage or FSDP
    strategy, micro-batch size, recomputation, optimizer offload, pipeline schedule and virtual stages)
    of the model on each world size, through the same formulas as /v1/plan, and returns the top_k
    distinct layouts that fit by the objective (step_s, tokens_per_s_per_gpu, gpus, training_days,
    gpu_hours or cost) and the Pareto front of GPUs against step time. Branch and bound: what a memory
    lower bound shows cannot fit, and what a lower bound on the step shows cannot rank, is never
    evaluated (counted in `pruned`). Each row carries the /v1/plan request that reproduces it, that
    plan's memory and time, its equivalents and why it ranks there. Combinations that are not valid
    layouts are counted by reason in `skipped`. Bounded: at most ZEROPLAN_MAX_SEARCH_LAYOUTS
    combinations (a 422 before any work), a deadline, and a limit on heavy requests at once (429).

    Args:
        body (SearchRequest): A model, a cluster and a training shape: every valid layout, ranked
            by the objective. A /v1/plan body is
            a valid search: its layout, arrangement and levers are the job as it runs now (answered as
            `asked`), and
            the search looks for better ones.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SearchResponse]
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
    body: SearchRequest,
) -> Problem | SearchResponse | None:
    """Every valid layout of a model on a cluster, the best by an objective and the Pareto front

     Considers every valid layout (data, tensor, pipeline, context and expert degrees, ZeRO stage or FSDP
    strategy, micro-batch size, recomputation, optimizer offload, pipeline schedule and virtual stages)
    of the model on each world size, through the same formulas as /v1/plan, and returns the top_k
    distinct layouts that fit by the objective (step_s, tokens_per_s_per_gpu, gpus, training_days,
    gpu_hours or cost) and the Pareto front of GPUs against step time. Branch and bound: what a memory
    lower bound shows cannot fit, and what a lower bound on the step shows cannot rank, is never
    evaluated (counted in `pruned`). Each row carries the /v1/plan request that reproduces it, that
    plan's memory and time, its equivalents and why it ranks there. Combinations that are not valid
    layouts are counted by reason in `skipped`. Bounded: at most ZEROPLAN_MAX_SEARCH_LAYOUTS
    combinations (a 422 before any work), a deadline, and a limit on heavy requests at once (429).

    Args:
        body (SearchRequest): A model, a cluster and a training shape: every valid layout, ranked
            by the objective. A /v1/plan body is
            a valid search: its layout, arrangement and levers are the job as it runs now (answered as
            `asked`), and
            the search looks for better ones.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SearchResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SearchRequest,
) -> Response[Problem | SearchResponse]:
    """Every valid layout of a model on a cluster, the best by an objective and the Pareto front

     Considers every valid layout (data, tensor, pipeline, context and expert degrees, ZeRO stage or FSDP
    strategy, micro-batch size, recomputation, optimizer offload, pipeline schedule and virtual stages)
    of the model on each world size, through the same formulas as /v1/plan, and returns the top_k
    distinct layouts that fit by the objective (step_s, tokens_per_s_per_gpu, gpus, training_days,
    gpu_hours or cost) and the Pareto front of GPUs against step time. Branch and bound: what a memory
    lower bound shows cannot fit, and what a lower bound on the step shows cannot rank, is never
    evaluated (counted in `pruned`). Each row carries the /v1/plan request that reproduces it, that
    plan's memory and time, its equivalents and why it ranks there. Combinations that are not valid
    layouts are counted by reason in `skipped`. Bounded: at most ZEROPLAN_MAX_SEARCH_LAYOUTS
    combinations (a 422 before any work), a deadline, and a limit on heavy requests at once (429).

    Args:
        body (SearchRequest): A model, a cluster and a training shape: every valid layout, ranked
            by the objective. A /v1/plan body is
            a valid search: its layout, arrangement and levers are the job as it runs now (answered as
            `asked`), and
            the search looks for better ones.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SearchResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SearchRequest,
) -> Problem | SearchResponse | None:
    """Every valid layout of a model on a cluster, the best by an objective and the Pareto front

     Considers every valid layout (data, tensor, pipeline, context and expert degrees, ZeRO stage or FSDP
    strategy, micro-batch size, recomputation, optimizer offload, pipeline schedule and virtual stages)
    of the model on each world size, through the same formulas as /v1/plan, and returns the top_k
    distinct layouts that fit by the objective (step_s, tokens_per_s_per_gpu, gpus, training_days,
    gpu_hours or cost) and the Pareto front of GPUs against step time. Branch and bound: what a memory
    lower bound shows cannot fit, and what a lower bound on the step shows cannot rank, is never
    evaluated (counted in `pruned`). Each row carries the /v1/plan request that reproduces it, that
    plan's memory and time, its equivalents and why it ranks there. Combinations that are not valid
    layouts are counted by reason in `skipped`. Bounded: at most ZEROPLAN_MAX_SEARCH_LAYOUTS
    combinations (a 422 before any work), a deadline, and a limit on heavy requests at once (429).

    Args:
        body (SearchRequest): A model, a cluster and a training shape: every valid layout, ranked
            by the objective. A /v1/plan body is
            a valid search: its layout, arrangement and levers are the job as it runs now (answered as
            `asked`), and
            the search looks for better ones.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SearchResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
