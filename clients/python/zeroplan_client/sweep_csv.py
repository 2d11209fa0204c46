"""The CSV form of POST /v1/sweep (`Accept: text/csv`), through a generated client."""

from typing import Any

from .client import AuthenticatedClient, Client
from .errors import UnexpectedStatus
from .models.sweep_request import SweepRequest


def sweep_csv(client: AuthenticatedClient | Client, body: SweepRequest | dict[str, Any]) -> str:
    """The sweep's rows as CSV text; a refused request raises UnexpectedStatus with its problem body."""
    json_body = body.to_dict() if isinstance(body, SweepRequest) else body
    response = client.get_httpx_client().post("/v1/sweep", json=json_body, headers={"Accept": "text/csv"})
    if response.status_code != 200:
        raise UnexpectedStatus(response.status_code, response.content)
    return response.text
