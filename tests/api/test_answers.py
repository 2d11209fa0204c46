"""The answer cache: equal requests share one computation; it is bounded in bytes and can be turned off."""

from fastapi.testclient import TestClient

from api.answers import LARGEST_SHARE, AnswerCache
from api.app import create_app
from api.settings import Settings
from models.plan import PlanRequest
from tests.conftest import plan_body


def plan(world_size: int) -> PlanRequest:
    return PlanRequest.model_validate(plan_body("zero3", world_size=world_size))


def entry_bytes(request: PlanRequest) -> int:
    # key = ("plan", canonical request JSON), value = the answer's bytes (here the request's own JSON)
    return len("plan") + 2 * len(request.model_dump_json())


def test_equal_requests_compute_once_and_the_cache_is_bounded_in_bytes():
    requests = [plan(n) for n in (1, 2, 4)]
    sizes = [entry_bytes(r) for r in requests]
    cache, calls = AnswerCache(max_bytes=LARGEST_SHARE * max(sizes)), []

    def compute(request):
        def run():
            calls.append(request.cluster.world_size)
            return request

        return run

    first = cache.answer("plan", requests[0], compute(requests[0]))
    assert cache.answer("plan", requests[0], compute(requests[0])) == first
    assert calls == [1] and cache.bytes == sizes[0]
    cache.answer("plan", requests[1], compute(requests[1]))
    cache.answer("plan", requests[2], compute(requests[2]))
    assert cache.bytes == sum(sizes) <= cache.max_bytes


def test_the_least_recently_used_answer_leaves_first_when_the_bytes_run_out():
    requests = [plan(n) for n in (1, 2, 4)]
    size = max(entry_bytes(r) for r in requests)
    cache, calls = AnswerCache(max_bytes=2 * size + 1, largest_share=1), []  # two entries fit, three do not
    for request in (*requests, requests[0]):
        cache.answer("plan", request, lambda r=request: calls.append(r.cluster.world_size) or r)
    assert calls == [1, 2, 4, 1]  # N = 1 left when N = 4 came, and was computed again
    assert len(cache) == 2 and cache.bytes <= cache.max_bytes


def test_an_answer_over_a_sixteenth_of_the_budget_is_served_but_not_kept():
    request = plan(8)
    cache = AnswerCache(max_bytes=LARGEST_SHARE * entry_bytes(request) - 1)
    body = cache.answer("plan", request, lambda: request)
    assert body == request.model_dump_json().encode() and len(cache) == 0 and cache.bytes == 0


def test_a_cached_answer_equals_an_uncached_one():
    cached = TestClient(create_app(Settings(access_log=False)))
    uncached = TestClient(create_app(Settings(access_log=False, answer_cache_bytes=0)))
    body = plan_body("zero2", world_size=16)
    answers = [cached.post("/v1/plan", json=body).content for _ in range(2)]
    assert answers[0] == answers[1] == uncached.post("/v1/plan", json=body).content
    assert len(uncached.app.state.answers) == 0 and len(cached.app.state.answers) == 1


def test_a_fit_miss_is_computed_in_a_worker_thread_and_a_hit_is_not(monkeypatch):
    import threading

    from service.answers import fit as fitting

    threads = []
    real_fit = fitting.fit

    def spy(*args, **kwargs):
        threads.append(threading.current_thread())
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(fitting, "fit", spy)
    client = TestClient(create_app(Settings(access_log=False)))
    body = {"model": {"parameter_count": 30_000_000_000}, "cluster": {"gpu": "seed-80gb"}, "max_gpus": 64}
    first, second = (client.post("/v1/fit", json=body) for _ in range(2))
    assert first.status_code == 200 and first.content == second.content
    assert len(threads) == 1 and threads[0] is not threading.main_thread()
