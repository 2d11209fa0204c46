from http import HTTPStatus
from io import BytesIO
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.figure_format import FigureFormat
from ...models.figure_name import FigureName
from ...models.figure_request import FigureRequest
from ...models.problem import Problem
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    name: FigureName,
    *,
    body: FigureRequest,
    format_: FigureFormat | None | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    json_format_: None | str | Unset
    if isinstance(format_, Unset):
        json_format_ = UNSET
    elif isinstance(format_, FigureFormat):
        json_format_ = format_.value
    else:
        json_format_ = format_
    params["format"] = json_format_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/figures/{name}".format(
            name=quote(str(name), safe=""),
        ),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> File | Problem | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[File | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    name: FigureName,
    *,
    client: AuthenticatedClient,
    body: FigureRequest,
    format_: FigureFormat | None | Unset = UNSET,
) -> Response[File | Problem]:
    """Draw one of the figures (four of arrangements, two of a layout) for a plan request, as PNG or SVG

     memory-vs-gpus: per-GPU bytes against GPU count (log2 axis) for DP, ZeRO-1, ZeRO-2 and ZeRO-3, with
    the card and each arrangement's replicated floor. bytes-per-weight: bytes per weight by state class
    at the chosen N. traffic: bytes sent per GPU per step by collective, measured bars beside when
    given. step-time: compute, exposed communication and offload seconds. PNG or SVG: the `format` query
    parameter wins over `Accept`; PNG when neither names one. Same request, same bytes.

    Args:
        name (FigureName): The four figures (issue 4, 'The four figures'), and the two of a layout
            (its stages' memory, the bytes
            each of its groups sends).
        format_ (FigureFormat | None | Unset): png or svg; wins over the Accept header.
        body (FigureRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[File | Problem]
    """

    kwargs = _get_kwargs(
        name=name,
        body=body,
        format_=format_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    name: FigureName,
    *,
    client: AuthenticatedClient,
    body: FigureRequest,
    format_: FigureFormat | None | Unset = UNSET,
) -> File | Problem | None:
    """Draw one of the figures (four of arrangements, two of a layout) for a plan request, as PNG or SVG

     memory-vs-gpus: per-GPU bytes against GPU count (log2 axis) for DP, ZeRO-1, ZeRO-2 and ZeRO-3, with
    the card and each arrangement's replicated floor. bytes-per-weight: bytes per weight by state class
    at the chosen N. traffic: bytes sent per GPU per step by collective, measured bars beside when
    given. step-time: compute, exposed communication and offload seconds. PNG or SVG: the `format` query
    parameter wins over `Accept`; PNG when neither names one. Same request, same bytes.

    Args:
        name (FigureName): The four figures (issue 4, 'The four figures'), and the two of a layout
            (its stages' memory, the bytes
            each of its groups sends).
        format_ (FigureFormat | None | Unset): png or svg; wins over the Accept header.
        body (FigureRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        File | Problem
    """

    return sync_detailed(
        name=name,
        client=client,
        body=body,
        format_=format_,
    ).parsed


async def asyncio_detailed(
    name: FigureName,
    *,
    client: AuthenticatedClient,
    body: FigureRequest,
    format_: FigureFormat | None | Unset = UNSET,
) -> Response[File | Problem]:
    """Draw one of the figures (four of arrangements, two of a layout) for a plan request, as PNG or SVG

     memory-vs-gpus: per-GPU bytes against GPU count (log2 axis) for DP, ZeRO-1, ZeRO-2 and ZeRO-3, with
    the card and each arrangement's replicated floor. bytes-per-weight: bytes per weight by state class
    at the chosen N. traffic: bytes sent per GPU per step by collective, measured bars beside when
    given. step-time: compute, exposed communication and offload seconds. PNG or SVG: the `format` query
    parameter wins over `Accept`; PNG when neither names one. Same request, same bytes.

    Args:
        name (FigureName): The four figures (issue 4, 'The four figures'), and the two of a layout
            (its stages' memory, the bytes
            each of its groups sends).
        format_ (FigureFormat | None | Unset): png or svg; wins over the Accept header.
        body (FigureRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[File | Problem]
    """

    kwargs = _get_kwargs(
        name=name,
        body=body,
        format_=format_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    name: FigureName,
    *,
    client: AuthenticatedClient,
    body: FigureRequest,
    format_: FigureFormat | None | Unset = UNSET,
) -> File | Problem | None:
    """Draw one of the figures (four of arrangements, two of a layout) for a plan request, as PNG or SVG

     memory-vs-gpus: per-GPU bytes against GPU count (log2 axis) for DP, ZeRO-1, ZeRO-2 and ZeRO-3, with
    the card and each arrangement's replicated floor. bytes-per-weight: bytes per weight by state class
    at the chosen N. traffic: bytes sent per GPU per step by collective, measured bars beside when
    given. step-time: compute, exposed communication and offload seconds. PNG or SVG: the `format` query
    parameter wins over `Accept`; PNG when neither names one. Same request, same bytes.

    Args:
        name (FigureName): The four figures (issue 4, 'The four figures'), and the two of a layout
            (its stages' memory, the bytes
            each of its groups sends).
        format_ (FigureFormat | None | Unset): png or svg; wins over the Accept header.
        body (FigureRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        File | Problem
    """

    return (
        await asyncio_detailed(
            name=name,
            client=client,
            body=body,
            format_=format_,
        )
    ).parsed
