from http import HTTPStatus
from io import BytesIO
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.figure_format import FigureFormat
from ...models.figure_name import FigureName
from ...models.gpu_preset_name import GpuPresetName
from ...models.model_preset_name import ModelPresetName
from ...models.precision_preset_name import PrecisionPresetName
from ...models.problem import Problem
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    name: FigureName,
    *,
    parameter_count: int | None | Unset = UNSET,
    preset: ModelPresetName | None | Unset = UNSET,
    precision: PrecisionPresetName | Unset = UNSET,
    world_size: int | Unset = 8,
    gpus_per_node: int | Unset = 8,
    gpu: GpuPresetName | None | Unset = UNSET,
    gpu_memory_bytes: int | None | Unset = UNSET,
    max_gpus: int | Unset = 64,
    width_px: int | Unset = 960,
    height_px: int | Unset = 600,
    format_: FigureFormat | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_parameter_count: int | None | Unset
    if isinstance(parameter_count, Unset):
        json_parameter_count = UNSET
    else:
        json_parameter_count = parameter_count
    params["parameter_count"] = json_parameter_count

    json_preset: None | str | Unset
    if isinstance(preset, Unset):
        json_preset = UNSET
    elif isinstance(preset, ModelPresetName):
        json_preset = preset.value
    else:
        json_preset = preset
    params["preset"] = json_preset

    json_precision: str | Unset = UNSET
    if not isinstance(precision, Unset):
        json_precision = precision.value

    params["precision"] = json_precision

    params["world_size"] = world_size

    params["gpus_per_node"] = gpus_per_node

    json_gpu: None | str | Unset
    if isinstance(gpu, Unset):
        json_gpu = UNSET
    elif isinstance(gpu, GpuPresetName):
        json_gpu = gpu.value
    else:
        json_gpu = gpu
    params["gpu"] = json_gpu

    json_gpu_memory_bytes: int | None | Unset
    if isinstance(gpu_memory_bytes, Unset):
        json_gpu_memory_bytes = UNSET
    else:
        json_gpu_memory_bytes = gpu_memory_bytes
    params["gpu_memory_bytes"] = json_gpu_memory_bytes

    params["max_gpus"] = max_gpus

    params["width_px"] = width_px

    params["height_px"] = height_px

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
        "method": "get",
        "url": "/v1/figures/{name}".format(
            name=quote(str(name), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> File | Problem | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 406:
        response_406 = Problem.from_dict(response.json())

        return response_406

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
    parameter_count: int | None | Unset = UNSET,
    preset: ModelPresetName | None | Unset = UNSET,
    precision: PrecisionPresetName | Unset = UNSET,
    world_size: int | Unset = 8,
    gpus_per_node: int | Unset = 8,
    gpu: GpuPresetName | None | Unset = UNSET,
    gpu_memory_bytes: int | None | Unset = UNSET,
    max_gpus: int | Unset = 64,
    width_px: int | Unset = 960,
    height_px: int | Unset = 600,
    format_: FigureFormat | None | Unset = UNSET,
) -> Response[File | Problem]:
    """Draw one of the figures (four of arrangements, two of a layout) from query parameters, as PNG or SVG

     memory-vs-gpus: per-GPU bytes against GPU count (log2 axis) for DP, ZeRO-1, ZeRO-2 and ZeRO-3, with
    the card and each arrangement's replicated floor. bytes-per-weight: bytes per weight by state class
    at the chosen N. traffic: bytes sent per GPU per step by collective, measured bars beside when
    given. step-time: compute, exposed communication and offload seconds. PNG or SVG: the `format` query
    parameter wins over `Accept`; PNG when neither names one. Same request, same bytes. The common case
    only: a model, a card, N and GPUs per node; POST for the rest.

    Args:
        name (FigureName): The four figures (issue 4, 'The four figures'), and the two of a layout
            (its stages' memory, the bytes
            each of its groups sends).
        parameter_count (int | None | Unset): Parameter count (model.parameter_count).
        preset (ModelPresetName | None | Unset): A model preset (model.preset).
        precision (PrecisionPresetName | Unset):
        world_size (int | Unset): Chosen GPU count N (cluster.world_size). Default: 8.
        gpus_per_node (int | Unset): GPUs per node (cluster.gpus_per_node). Default: 8.
        gpu (GpuPresetName | None | Unset): A GPU preset (cluster.gpu).
        gpu_memory_bytes (int | None | Unset): Usable memory of one GPU
            (cluster.gpu_memory_bytes).
        max_gpus (int | Unset): Largest GPU count of the memory-vs-gpus curve (powers of two up to
            it, each a valid job). Default: 64.
        width_px (int | Unset): Image width, pixels. Default: 960.
        height_px (int | Unset): Image height, pixels. Default: 600.
        format_ (FigureFormat | None | Unset): png or svg; wins over the Accept header.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[File | Problem]
    """

    kwargs = _get_kwargs(
        name=name,
        parameter_count=parameter_count,
        preset=preset,
        precision=precision,
        world_size=world_size,
        gpus_per_node=gpus_per_node,
        gpu=gpu,
        gpu_memory_bytes=gpu_memory_bytes,
        max_gpus=max_gpus,
        width_px=width_px,
        height_px=height_px,
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
    parameter_count: int | None | Unset = UNSET,
    preset: ModelPresetName | None | Unset = UNSET,
    precision: PrecisionPresetName | Unset = UNSET,
    world_size: int | Unset = 8,
    gpus_per_node: int | Unset = 8,
    gpu: GpuPresetName | None | Unset = UNSET,
    gpu_memory_bytes: int | None | Unset = UNSET,
    max_gpus: int | Unset = 64,
    width_px: int | Unset = 960,
    height_px: int | Unset = 600,
    format_: FigureFormat | None | Unset = UNSET,
) -> File | Problem | None:
    """Draw one of the figures (four of arrangements, two of a layout) from query parameters, as PNG or SVG

     memory-vs-gpus: per-GPU bytes against GPU count (log2 axis) for DP, ZeRO-1, ZeRO-2 and ZeRO-3, with
    the card and each arrangement's replicated floor. bytes-per-weight: bytes per weight by state class
    at the chosen N. traffic: bytes sent per GPU per step by collective, measured bars beside when
    given. step-time: compute, exposed communication and offload seconds. PNG or SVG: the `format` query
    parameter wins over `Accept`; PNG when neither names one. Same request, same bytes. The common case
    only: a model, a card, N and GPUs per node; POST for the rest.

    Args:
        name (FigureName): The four figures (issue 4, 'The four figures'), and the two of a layout
            (its stages' memory, the bytes
            each of its groups sends).
        parameter_count (int | None | Unset): Parameter count (model.parameter_count).
        preset (ModelPresetName | None | Unset): A model preset (model.preset).
        precision (PrecisionPresetName | Unset):
        world_size (int | Unset): Chosen GPU count N (cluster.world_size). Default: 8.
        gpus_per_node (int | Unset): GPUs per node (cluster.gpus_per_node). Default: 8.
        gpu (GpuPresetName | None | Unset): A GPU preset (cluster.gpu).
        gpu_memory_bytes (int | None | Unset): Usable memory of one GPU
            (cluster.gpu_memory_bytes).
        max_gpus (int | Unset): Largest GPU count of the memory-vs-gpus curve (powers of two up to
            it, each a valid job). Default: 64.
        width_px (int | Unset): Image width, pixels. Default: 960.
        height_px (int | Unset): Image height, pixels. Default: 600.
        format_ (FigureFormat | None | Unset): png or svg; wins over the Accept header.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        File | Problem
    """

    return sync_detailed(
        name=name,
        client=client,
        parameter_count=parameter_count,
        preset=preset,
        precision=precision,
        world_size=world_size,
        gpus_per_node=gpus_per_node,
        gpu=gpu,
        gpu_memory_bytes=gpu_memory_bytes,
        max_gpus=max_gpus,
        width_px=width_px,
        height_px=height_px,
        format_=format_,
    ).parsed


async def asyncio_detailed(
    name: FigureName,
    *,
    client: AuthenticatedClient,
    parameter_count: int | None | Unset = UNSET,
    preset: ModelPresetName | None | Unset = UNSET,
    precision: PrecisionPresetName | Unset = UNSET,
    world_size: int | Unset = 8,
    gpus_per_node: int | Unset = 8,
    gpu: GpuPresetName | None | Unset = UNSET,
    gpu_memory_bytes: int | None | Unset = UNSET,
    max_gpus: int | Unset = 64,
    width_px: int | Unset = 960,
    height_px: int | Unset = 600,
    format_: FigureFormat | None | Unset = UNSET,
) -> Response[File | Problem]:
    """Draw one of the figures (four of arrangements, two of a layout) from query parameters, as PNG or SVG

     memory-vs-gpus: per-GPU bytes against GPU count (log2 axis) for DP, ZeRO-1, ZeRO-2 and ZeRO-3, with
    the card and each arrangement's replicated floor. bytes-per-weight: bytes per weight by state class
    at the chosen N. traffic: bytes sent per GPU per step by collective, measured bars beside when
    given. step-time: compute, exposed communication and offload seconds. PNG or SVG: the `format` query
    parameter wins over `Accept`; PNG when neither names one. Same request, same bytes. The common case
    only: a model, a card, N and GPUs per node; POST for the rest.

    Args:
        name (FigureName): The four figures (issue 4, 'The four figures'), and the two of a layout
            (its stages' memory, the bytes
            each of its groups sends).
        parameter_count (int | None | Unset): Parameter count (model.parameter_count).
        preset (ModelPresetName | None | Unset): A model preset (model.preset).
        precision (PrecisionPresetName | Unset):
        world_size (int | Unset): Chosen GPU count N (cluster.world_size). Default: 8.
        gpus_per_node (int | Unset): GPUs per node (cluster.gpus_per_node). Default: 8.
        gpu (GpuPresetName | None | Unset): A GPU preset (cluster.gpu).
        gpu_memory_bytes (int | None | Unset): Usable memory of one GPU
            (cluster.gpu_memory_bytes).
        max_gpus (int | Unset): Largest GPU count of the memory-vs-gpus curve (powers of two up to
            it, each a valid job). Default: 64.
        width_px (int | Unset): Image width, pixels. Default: 960.
        height_px (int | Unset): Image height, pixels. Default: 600.
        format_ (FigureFormat | None | Unset): png or svg; wins over the Accept header.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[File | Problem]
    """

    kwargs = _get_kwargs(
        name=name,
        parameter_count=parameter_count,
        preset=preset,
        precision=precision,
        world_size=world_size,
        gpus_per_node=gpus_per_node,
        gpu=gpu,
        gpu_memory_bytes=gpu_memory_bytes,
        max_gpus=max_gpus,
        width_px=width_px,
        height_px=height_px,
        format_=format_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    name: FigureName,
    *,
    client: AuthenticatedClient,
    parameter_count: int | None | Unset = UNSET,
    preset: ModelPresetName | None | Unset = UNSET,
    precision: PrecisionPresetName | Unset = UNSET,
    world_size: int | Unset = 8,
    gpus_per_node: int | Unset = 8,
    gpu: GpuPresetName | None | Unset = UNSET,
    gpu_memory_bytes: int | None | Unset = UNSET,
    max_gpus: int | Unset = 64,
    width_px: int | Unset = 960,
    height_px: int | Unset = 600,
    format_: FigureFormat | None | Unset = UNSET,
) -> File | Problem | None:
    """Draw one of the figures (four of arrangements, two of a layout) from query parameters, as PNG or SVG

     memory-vs-gpus: per-GPU bytes against GPU count (log2 axis) for DP, ZeRO-1, ZeRO-2 and ZeRO-3, with
    the card and each arrangement's replicated floor. bytes-per-weight: bytes per weight by state class
    at the chosen N. traffic: bytes sent per GPU per step by collective, measured bars beside when
    given. step-time: compute, exposed communication and offload seconds. PNG or SVG: the `format` query
    parameter wins over `Accept`; PNG when neither names one. Same request, same bytes. The common case
    only: a model, a card, N and GPUs per node; POST for the rest.

    Args:
        name (FigureName): The four figures (issue 4, 'The four figures'), and the two of a layout
            (its stages' memory, the bytes
            each of its groups sends).
        parameter_count (int | None | Unset): Parameter count (model.parameter_count).
        preset (ModelPresetName | None | Unset): A model preset (model.preset).
        precision (PrecisionPresetName | Unset):
        world_size (int | Unset): Chosen GPU count N (cluster.world_size). Default: 8.
        gpus_per_node (int | Unset): GPUs per node (cluster.gpus_per_node). Default: 8.
        gpu (GpuPresetName | None | Unset): A GPU preset (cluster.gpu).
        gpu_memory_bytes (int | None | Unset): Usable memory of one GPU
            (cluster.gpu_memory_bytes).
        max_gpus (int | Unset): Largest GPU count of the memory-vs-gpus curve (powers of two up to
            it, each a valid job). Default: 64.
        width_px (int | Unset): Image width, pixels. Default: 960.
        height_px (int | Unset): Image height, pixels. Default: 600.
        format_ (FigureFormat | None | Unset): png or svg; wins over the Accept header.

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
            parameter_count=parameter_count,
            preset=preset,
            precision=precision,
            world_size=world_size,
            gpus_per_node=gpus_per_node,
            gpu=gpu,
            gpu_memory_bytes=gpu_memory_bytes,
            max_gpus=max_gpus,
            width_px=width_px,
            height_px=height_px,
            format_=format_,
        )
    ).parsed
