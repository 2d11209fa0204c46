from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.simulation_job import SimulationJob
from ...models.simulation_request import SimulationRequest
from ...types import Response


def _get_kwargs(
    *,
    body: SimulationRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/simulations",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | SimulationJob | None:
    if response.status_code == 202:
        response_202 = SimulationJob.from_dict(response.json())

        return response_202

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
) -> Response[Problem | SimulationJob]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SimulationRequest,
) -> Response[Problem | SimulationJob]:
    """Start a gloo simulation that measures the bytes the formulas predict

     Runs DP and ZeRO-1/2/3 for real with torch.distributed (gloo, CPU) out of process and compares, per
    rank, measured payload and wire bytes and resident bytes with the core's formulas. With `engine:
    torch`, PyTorch's own DDP, ZeroRedundancyOptimizer, FSDP2 and HSDP train a small transformer and
    torch.distributed._tools' trackers measure each class against the plan. Answers 202 with the job
    (queued until a runner takes it), a Location to poll and a Retry-After saying when to first poll it.

    Args:
        body (SimulationRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SimulationJob]
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
    body: SimulationRequest,
) -> Problem | SimulationJob | None:
    """Start a gloo simulation that measures the bytes the formulas predict

     Runs DP and ZeRO-1/2/3 for real with torch.distributed (gloo, CPU) out of process and compares, per
    rank, measured payload and wire bytes and resident bytes with the core's formulas. With `engine:
    torch`, PyTorch's own DDP, ZeroRedundancyOptimizer, FSDP2 and HSDP train a small transformer and
    torch.distributed._tools' trackers measure each class against the plan. Answers 202 with the job
    (queued until a runner takes it), a Location to poll and a Retry-After saying when to first poll it.

    Args:
        body (SimulationRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SimulationJob
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SimulationRequest,
) -> Response[Problem | SimulationJob]:
    """Start a gloo simulation that measures the bytes the formulas predict

     Runs DP and ZeRO-1/2/3 for real with torch.distributed (gloo, CPU) out of process and compares, per
    rank, measured payload and wire bytes and resident bytes with the core's formulas. With `engine:
    torch`, PyTorch's own DDP, ZeroRedundancyOptimizer, FSDP2 and HSDP train a small transformer and
    torch.distributed._tools' trackers measure each class against the plan. Answers 202 with the job
    (queued until a runner takes it), a Location to poll and a Retry-After saying when to first poll it.

    Args:
        body (SimulationRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SimulationJob]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SimulationRequest,
) -> Problem | SimulationJob | None:
    """Start a gloo simulation that measures the bytes the formulas predict

     Runs DP and ZeRO-1/2/3 for real with torch.distributed (gloo, CPU) out of process and compares, per
    rank, measured payload and wire bytes and resident bytes with the core's formulas. With `engine:
    torch`, PyTorch's own DDP, ZeroRedundancyOptimizer, FSDP2 and HSDP train a small transformer and
    torch.distributed._tools' trackers measure each class against the plan. Answers 202 with the job
    (queued until a runner takes it), a Location to poll and a Retry-After saying when to first poll it.

    Args:
        body (SimulationRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SimulationJob
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
