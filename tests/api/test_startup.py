"""Start-up builds what the first request would otherwise build on the event loop (api.app)."""

from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings
from tests.conftest import plan_body


def test_the_spec_and_route_tables_are_built_before_the_first_request():
    app = create_app(Settings(access_log=False))
    assert app.openapi_schema is None  # built lazily without a start-up
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert app.openapi_schema is not None
        assert "_static" in vars(app.state.route_templates)  # the route templates' table, compiled
        assert client.post("/v1/plan", json=plan_body("zero3")).status_code == 200
