"""schemathesis against the app's own spec: no 5xx, and every response as documented.

Positive and negative cases for every operation, >= MIN_REQUESTS in all, through the ASGI app in
process. Each response must have a documented status, content type and body schema; negative
cases must be rejected with a 4xx (a 413 included: a body past the size limit is refused unread).
Every default check runs but one: positive_data_acceptance, because some rules span fields and
cannot be written in JSON Schema (world_size a whole number of nodes when it exceeds gpus_per_node,
a grid of whole nodes); schema-valid bodies that break them get a documented 422, which the
response checks still validate.
"""

from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from api.app import create_app
from api.settings import Settings

MIN_REQUESTS = 1_000
# The suite's guard; the full fuzz, every check and phase over about 11,000 cases, is `python -m bench.chaos --only
# schema`. At 150 a run takes about a minute of the suite's time on two cores (300 took two).
EXAMPLES_PER_OPERATION_AND_MODE = 150
# A call may wait past schemathesis' 10 s default on a loaded machine: the first heavy request starts the
# worker processes (api.pool), each importing the core. Past the service's own deadline (work_deadline_s, 30 s)
# the service answers a 503 itself, which the checks see.
CALL_TIMEOUT_S = 60
SEED = 6


# The fuzzed app runs no simulations (ZEROPLAN_SIM_MAX_CONCURRENT_JOBS 0): a valid start is the documented 503
# simulation_unavailable, never a gloo job.
REFUSED_BY_SETTINGS = {"POST /v1/simulations": 503}


@pytest.fixture(scope="module")
def schema(tmp_path_factory):
    db = tmp_path_factory.mktemp("fuzz") / "simulations.sqlite3"
    settings = Settings(access_log=False, sim_max_concurrent_jobs=0, sim_db_path=str(db))
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(settings))


def operations(schema):
    return [result.ok() for result in schema.get_all_operations()]


def fuzz(operation, mode: GenerationMode, statuses: Counter) -> int:
    sent = 0

    @settings(
        max_examples=EXAMPLES_PER_OPERATION_AND_MODE,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def check(case):
        nonlocal sent
        sent += 1
        response = case.call(timeout=CALL_TIMEOUT_S)
        excluded = [positive_data_acceptance]
        if REFUSED_BY_SETTINGS.get(operation.label) == response.status_code == 503:
            assert response.json()["code"] == "simulation_unavailable", response.text
            excluded.append(not_a_server_error)  # the service is set to run none: documented, not a fault
        if mode is GenerationMode.NEGATIVE and response.status_code == 413:
            # negative_data_rejection's list leaves out 413: an invalid body past ZEROPLAN_MAX_BODY_BYTES (a list
            # field fuzzed to megabytes) is refused before it is read, which is a rejection all the same
            excluded.append(negative_data_rejection)
        case.validate_response(response, excluded_checks=excluded)
        statuses[(operation.label, mode.value, response.status_code)] += 1

    try:
        check()
    except Unsatisfiable:
        # An operation without parameters or body (GET /healthz) has no negative cases.
        assert mode is GenerationMode.NEGATIVE and sent == 0, (operation.label, mode)
    return sent


def test_every_operation_positive_and_negative(schema):
    sent, statuses = {}, Counter()
    for operation in operations(schema):
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            sent[(operation.label, mode.value)] = fuzz(operation, mode, statuses)
    print(sorted(statuses.items()))
    assert sum(sent.values()) >= MIN_REQUESTS, sent
    assert all(count > 0 for (_, mode), count in sent.items() if mode == "positive"), sent
    assert all(count > 0 for (label, _), count in sent.items() if label.startswith("POST")), sent
    # The positive cases reach the core: each operation that names no stored resource answers
    # 200 to some of them (or the status its limit gives).
    expected = {label: REFUSED_BY_SETTINGS.get(label, 200) for (label, _) in sent if "{" not in label}
    answered = {label for (label, mode, status) in statuses if mode == "positive" and status == expected.get(label)}
    assert answered == set(expected), sorted(statuses.items())
