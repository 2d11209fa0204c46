from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.admission_review import AdmissionReview
from ...models.admission_review_response import AdmissionReviewResponse
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    *,
    body: AdmissionReview,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/admission/kubernetes",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AdmissionReviewResponse | Problem | None:
    if response.status_code == 200:
        response_200 = AdmissionReviewResponse.from_dict(response.json())

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
) -> Response[AdmissionReviewResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: AdmissionReview,
) -> Response[AdmissionReviewResponse | Problem]:
    """Admit or deny a PyTorchJob or JobSet by its plan (Kubernetes AdmissionReview v1)

     A validating or mutating admission webhook: the object's zeroplan.dev/plan annotation holds a
    /v1/plan request; the GPUs come from the object's pods. Fits: allowed, the prediction in the
    warnings and a JSONPatch adding the zeroplan.dev/prediction annotation. Does not fit, or the plan is
    not valid: denied with the reason (status.message). Objects without the annotation are allowed
    unchanged.

    Args:
        body (AdmissionReview):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AdmissionReviewResponse | Problem]
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
    body: AdmissionReview,
) -> AdmissionReviewResponse | Problem | None:
    """Admit or deny a PyTorchJob or JobSet by its plan (Kubernetes AdmissionReview v1)

     A validating or mutating admission webhook: the object's zeroplan.dev/plan annotation holds a
    /v1/plan request; the GPUs come from the object's pods. Fits: allowed, the prediction in the
    warnings and a JSONPatch adding the zeroplan.dev/prediction annotation. Does not fit, or the plan is
    not valid: denied with the reason (status.message). Objects without the annotation are allowed
    unchanged.

    Args:
        body (AdmissionReview):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AdmissionReviewResponse | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: AdmissionReview,
) -> Response[AdmissionReviewResponse | Problem]:
    """Admit or deny a PyTorchJob or JobSet by its plan (Kubernetes AdmissionReview v1)

     A validating or mutating admission webhook: the object's zeroplan.dev/plan annotation holds a
    /v1/plan request; the GPUs come from the object's pods. Fits: allowed, the prediction in the
    warnings and a JSONPatch adding the zeroplan.dev/prediction annotation. Does not fit, or the plan is
    not valid: denied with the reason (status.message). Objects without the annotation are allowed
    unchanged.

    Args:
        body (AdmissionReview):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AdmissionReviewResponse | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: AdmissionReview,
) -> AdmissionReviewResponse | Problem | None:
    """Admit or deny a PyTorchJob or JobSet by its plan (Kubernetes AdmissionReview v1)

     A validating or mutating admission webhook: the object's zeroplan.dev/plan annotation holds a
    /v1/plan request; the GPUs come from the object's pods. Fits: allowed, the prediction in the
    warnings and a JSONPatch adding the zeroplan.dev/prediction annotation. Does not fit, or the plan is
    not valid: denied with the reason (status.message). Objects without the annotation are allowed
    unchanged.

    Args:
        body (AdmissionReview):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AdmissionReviewResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
