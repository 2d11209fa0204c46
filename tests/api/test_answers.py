"""The answer cache: equal requests share one computation; it is bounded and can be turned off."""

from fastapi.testclient import TestClient

from api.answers import AnswerCache
from api.app import create_app
from api.settings import Settings
from models.plan import PlanRequest
from tests.conftest import plan_body


def test_equal_requests_compute_once_and_the_cache_is_bounded():
    cache, calls = AnswerCache(max_entries=2), []

    def compute(request):
        def run():
            calls.append(request.cluster.world_size)
            return request

        return run

    requests = [PlanRequest.model_validate(plan_body("zero3", world_size=n)) for n in (1, 2, 4)]
    first = cache.answer("plan", requests[0], compute(requests[0]))
    assert cache.answer("plan", requests[0], compute(requests[0])) == first
    assert calls == [1]
    cache.answer("plan", requests[1], compute(requests[1]))
    cache.answer("plan", requests[2], compute(requests[2]))  # evicts the least recently used: N = 1
    assert len(cache) == 2
    cache.answer("plan", requests[0], compute(requests[0]))
    assert calls == [1, 2, 4, 1]


def test_a_cached_answer_equals_an_uncached_one():
    cached = TestClient(create_app(Settings(access_log=False)))
    uncached = TestClient(create_app(Settings(access_log=False, answer_cache_entries=0)))
    body = plan_body("zero2", world_size=16)
    answers = [cached.post("/v1/plan", json=body).content for _ in range(2)]
    assert answers[0] == answers[1] == uncached.post("/v1/plan", json=body).content
    assert len(uncached.app.state.answers) == 0 and len(cached.app.state.answers) == 1


def test_off_the_loop_computes_a_miss_in_a_worker_thread_and_serves_a_hit_at_once():
    import asyncio
    import threading

    cache, threads = AnswerCache(max_entries=8), []
    request = PlanRequest.model_validate(plan_body("zero3"))

    def compute():
        threads.append(threading.current_thread())
        return request

    async def twice():
        return [await cache.answer_off_loop("fit", request, compute) for _ in range(2)]

    first, second = asyncio.run(twice())
    assert first == second == request.model_dump_json().encode()
    assert len(threads) == 1 and threads[0] is not threading.main_thread()
