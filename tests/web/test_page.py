"""The web page end to end: the service on 127.0.0.1, Debian's headless Chromium, the seeds' 30B case.

Skipped (with the reason) when /usr/bin/chromium, /usr/bin/chromedriver or selenium is absent;
`make test` installs the browser when it runs as root. Screenshots go to artifacts/web/.
"""

import base64
import json
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI

from api.app import create_app
from api.settings import Settings

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "web"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # The network is off: every host name but the loopback address fails to resolve, so a page
    # that reaches for a CDN, a web font or anything else outside the service breaks visibly.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
)
DESKTOP = (1280, 900)
PHONE_WIDTH, PHONE_HEIGHT = 390, 844
WAIT_S = 30  # the page asks a busy service again for up to 30 s (BUSY_WAIT_S in app.js)

if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
    pytest.skip(
        f"{CHROMIUM} or {CHROMEDRIVER} is absent: apt-get install -y chromium chromium-driver "
        "(make test does it as root)",
        allow_module_level=True,
    )
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is absent: pip install -e '.[dev]'")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


def web_app() -> FastAPI:
    """The service as it ships."""
    return create_app(Settings(access_log=False))


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    yield from serve(web_app())


@pytest.fixture(scope="module")
def busy_url() -> Iterator[str]:
    """A service that runs one heavy request at a time and lets none wait: a burst gets 429s."""
    yield from serve(create_app(Settings(access_log=False, max_concurrent_heavy_requests=1, heavy_queue_wait_s=0)))


def serve(app: FastAPI) -> Iterator[str]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="module")
def driver() -> Iterator["webdriver.Chrome"]:
    profile = tempfile.mkdtemp(prefix="zeroplan-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={DESKTOP[0]},{DESKTOP[1]}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver path: Selenium Manager never runs, so nothing is downloaded.
    browser = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    browser.set_page_load_timeout(WAIT_S)
    try:
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)


# ---- helpers ------------------------------------------------------------------------------------


def updates(driver: "webdriver.Chrome") -> int:
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-updates") or 0)


def wait_settled(driver: "webdriver.Chrome", after: int) -> None:
    """Until the page has run an update since `after` and shows the answer to its current inputs."""

    def settled(d: "webdriver.Chrome") -> bool:
        body = d.find_element(By.TAG_NAME, "body")
        return body.get_attribute("data-state") == "idle" and int(body.get_attribute("data-updates") or 0) > after

    WebDriverWait(driver, WAIT_S).until(settled)


def type_into(driver: "webdriver.Chrome", field_id: str, value: str) -> None:
    field = driver.find_element(By.ID, field_id)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(value)


def choose(driver: "webdriver.Chrome", field_id: str, value: str) -> None:
    Select(driver.find_element(By.ID, field_id)).select_by_value(value)


def cell(driver: "webdriver.Chrome", row: str, arrangement: str):  # noqa: ANN201 (a WebElement)
    return driver.find_element(By.CSS_SELECTOR, f'#compare td[data-row="{row}"][data-arrangement="{arrangement}"]')


def field_error(driver: "webdriver.Chrome", field_id: str) -> str:
    """The error shown next to a field, checked the way a screen reader finds it."""
    field = driver.find_element(By.ID, field_id)
    assert field.get_attribute("aria-invalid") == "true"
    error_id = f"err-{field_id}"
    assert error_id in (field.get_attribute("aria-describedby") or "").split()
    error = driver.find_element(By.ID, error_id)
    assert error.is_displayed()
    # Next to it: in the same .field wrapper as the input.
    same_field = driver.execute_script(
        "return arguments[0].closest('.field') === arguments[1].closest('.field')", field, error
    )
    assert same_field
    return str(error.text)


def console_errors(driver: "webdriver.Chrome", allowed_statuses: tuple[int, ...] = ()) -> list[dict]:
    """SEVERE browser-log entries, less the network lines of API answers the test provoked on purpose."""
    errors = []
    for entry in driver.get_log("browser"):
        if entry["level"] != "SEVERE":
            continue
        message = entry["message"]
        provoked = entry.get("source") == "network" and "/v1/" in message
        if provoked and any(f"status of {status}" in message for status in allowed_statuses):
            continue
        errors.append(entry)
    return errors


def phone_viewport(height: int = PHONE_HEIGHT) -> dict:
    return {"width": PHONE_WIDTH, "height": height, "deviceScaleFactor": 1, "mobile": True}


def screenshot(driver: "webdriver.Chrome", path: Path, phone: bool = False) -> None:
    """The whole page: a viewport as tall as the page for the capture, so the sticky form shows whole."""
    width = PHONE_WIDTH if phone else driver.execute_script("return window.innerWidth")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    tall = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": phone}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", tall)
    try:
        height = driver.execute_script("return document.documentElement.scrollHeight")  # after the relayout
        clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "clip": clip})
    finally:
        if phone:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", phone_viewport())
        else:
            driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))


# ---- the test -----------------------------------------------------------------------------------


def test_seed_30b_case_in_the_browser(driver: "webdriver.Chrome", base_url: str) -> None:
    driver.get(base_url)
    wait_settled(driver, after=0)
    assert driver.title.startswith("zeroplan")

    # Keyboard: the skip link comes first, and every control has a label.
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    assert driver.switch_to.active_element.get_attribute("class") == "skip"
    unlabelled = driver.execute_script(
        "return [...document.querySelectorAll('input, select')]"
        ".filter(e => !e.labels.length && !e.getAttribute('aria-label')).map(e => e.id || e.name)"
    )
    assert unlabelled == []

    # The seeds' case: 30e9 parameters, the seed-80gb card, 8 GPUs per node, N = 8, up to 64, powers of two.
    before = updates(driver)
    driver.find_element(By.CSS_SELECTOR, 'input[name="model_source"][value="count"]').click()
    # An empty count is an unfinished form: the page asks for it and sends nothing that must fail.
    wait_settled(driver, after=before)
    assert "Enter a parameter count" in driver.find_element(By.ID, "status").text
    assert console_errors(driver) == [], json.dumps(driver.get_log("browser"))
    before = updates(driver)
    type_into(driver, "parameter_count", "30e9")
    choose(driver, "gpu", "seed-80gb")
    type_into(driver, "gpus_per_node", "8")
    type_into(driver, "world_size", "8")
    type_into(driver, "max_gpus", "64")
    choose(driver, "gpu_count_grid", "powers_of_two")
    wait_settled(driver, after=before)

    ddp, zero1, zero2, zero3 = (cell(driver, "min-gpus", a) for a in ("ddp", "zero1", "zero2", "zero3"))
    assert ddp.get_attribute("data-never") == "true" and "never" in ddp.text
    assert zero1.get_attribute("data-never") == "true"
    assert zero2.get_attribute("data-min-grid") == "32" and "from 32" in zero2.text
    assert zero2.get_attribute("data-min-exact") == "22" and zero2.get_attribute("data-min-whole-nodes") == "24"
    assert zero3.get_attribute("data-min-grid") == "8" and "from 8" in zero3.text
    assert zero3.get_attribute("data-min-exact") == "6"
    assert "447.0 GiB" in cell(driver, "per-gpu", "ddp").text
    assert "does not fit" in cell(driver, "fits", "ddp").text
    assert "fits" in cell(driver, "fits", "zero3").text and "not" not in cell(driver, "fits", "zero3").text
    assert "3P" in cell(driver, "traffic", "zero3").text and "2P" in cell(driver, "traffic", "zero2").text
    assert driver.find_elements(By.CSS_SELECTOR, "#recommend li.chosen")

    # The memory figure is drawn: an SVG answer, decoded into the image.
    memory_figure = driver.find_element(By.CSS_SELECTOR, 'figure[data-figure="memory-vs-gpus"]')
    WebDriverWait(driver, WAIT_S).until(lambda _: memory_figure.get_attribute("data-state") == "drawn")
    image = memory_figure.find_element(By.TAG_NAME, "img")
    assert (image.get_attribute("src") or "").startswith("blob:")
    assert driver.execute_script("return arguments[0].naturalWidth", image) > 0
    assert console_errors(driver) == []
    screenshot(driver, ARTIFACTS / "seed-30b-valid.png")

    # A negative parameter count: the API's error appears at the parameter count.
    before = updates(driver)
    type_into(driver, "parameter_count", "-5")
    wait_settled(driver, after=before)
    assert "greater than or equal to 1" in field_error(driver, "parameter_count")

    # Back to 30e9, then a world size that is not whole nodes: 12 GPUs at 8 per node.
    before = updates(driver)
    type_into(driver, "parameter_count", "30e9")
    type_into(driver, "world_size", "12")
    wait_settled(driver, after=before)
    assert driver.find_elements(By.ID, "err-parameter_count") == []
    assert "not a whole number of nodes" in field_error(driver, "world_size")
    assert cell(driver, "min-gpus", "zero2").get_attribute("data-min-grid") == "32"  # /v1/fit needs no N
    screenshot(driver, ARTIFACTS / "seed-30b.png")

    # A phone's width: the same state, nothing wider than the screen.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", phone_viewport())
    try:
        assert driver.execute_script("return window.innerWidth") == PHONE_WIDTH
        assert driver.execute_script("return document.documentElement.scrollWidth") <= PHONE_WIDTH
        assert driver.find_element(By.ID, "err-world_size").is_displayed()
        screenshot(driver, ARTIFACTS / "seed-30b-phone.png", phone=True)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # No console errors but the 422 network lines of the two bad values the test typed.
    assert console_errors(driver, allowed_statuses=(422,)) == [], json.dumps(driver.get_log("browser"))


def outside_requests(driver: "webdriver.Chrome", base_url: str) -> list[str]:
    """Every resource the page asked for that is not on the service itself."""
    names = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    return [name for name in names if not name.startswith(base_url)]


REDOC_ATTRIBUTION_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


def test_the_docs_work_offline(driver: "webdriver.Chrome", base_url: str) -> None:
    driver.get(base_url + "docs")
    WebDriverWait(driver, WAIT_S).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, ".swagger-ui .opblock-summary-path[data-path='/v1/plan']")
    )
    assert "/v1/fit" in driver.find_element(By.CSS_SELECTOR, ".swagger-ui").text
    assert outside_requests(driver, base_url) == []
    assert console_errors(driver) == [], json.dumps(driver.get_log("browser"))
    screenshot(driver, ARTIFACTS / "docs-swagger-ui.png")

    driver.get(base_url + "redoc")
    WebDriverWait(driver, WAIT_S).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "[data-section-id='operation/plan']")
    )
    assert "Per-GPU memory and traffic of one arrangement" in driver.find_element(By.TAG_NAME, "body").text
    # ReDoc's bundle asks for one thing outside: its attribution logo, which it hides when that fails.
    assert set(outside_requests(driver, base_url)) <= {REDOC_ATTRIBUTION_LOGO}
    errors = [e for e in console_errors(driver) if REDOC_ATTRIBUTION_LOGO not in e["message"]]
    assert errors == [], json.dumps(errors)
    screenshot(driver, ARTIFACTS / "docs-redoc.png")


# Each table cell's content box, in page coordinates: the text and elements inside it as laid out.
CELL_BOXES = """
const out = [];
for (const table of document.querySelectorAll(arguments[0])) {
  if (!table.offsetParent) continue;
  for (const row of table.rows) {
    for (const cell of row.cells) {
      const range = document.createRange();
      range.selectNodeContents(cell);
      const content = range.getBoundingClientRect();
      const box = cell.getBoundingClientRect();
      if (!content.width || !content.height) continue;
      out.push({table: table.id || table.className, row: row.rowIndex, text: cell.textContent.slice(0, 60),
        cell: [box.left, box.top, box.right, box.bottom],
        content: [content.left, content.top, content.right, content.bottom]});
    }
  }
}
return out;
"""
TOLERANCE_PX = 1.0


def overlaps(driver: "webdriver.Chrome", selector: str) -> list[str]:
    """Content that leaves its cell, or two cells' contents on top of each other."""
    boxes = driver.execute_script(CELL_BOXES, selector)
    problems = []
    for b in boxes:
        cl, cr = b["cell"][0], b["cell"][2]
        xl, xr = b["content"][0], b["content"][2]
        if xl < cl - TOLERANCE_PX or xr > cr + TOLERANCE_PX:
            problems.append(f"{b['table']} row {b['row']}: {b['text']!r} runs out of its cell")
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            al, at, ar, ab = a["content"]
            bl, bt, br, bb = b["content"]
            if min(ar, br) - max(al, bl) > TOLERANCE_PX and min(ab, bb) - max(at, bt) > TOLERANCE_PX:
                problems.append(f"{a['text']!r} overlaps {b['text']!r}")
    return problems


def test_nothing_overlaps_on_a_desktop_or_a_phone(driver: "webdriver.Chrome", base_url: str) -> None:
    # Llama 3 70B with a training shape: the long activation labels of the transformer formula.
    driver.get(base_url)
    wait_settled(driver, after=0)
    before = updates(driver)
    driver.find_element(By.CSS_SELECTOR, 'input[name="model_source"][value="preset"]').click()
    choose(driver, "model_preset", "llama-3-70b")
    choose(driver, "gpu", "h100-80gb")
    type_into(driver, "world_size", "64")
    type_into(driver, "sequence_length", "8192")
    wait_settled(driver, after=before)
    assert driver.find_elements(By.CSS_SELECTOR, ".states tbody th")
    tables = "#compare, table.states"
    assert overlaps(driver, tables) == []
    screenshot(driver, ARTIFACTS / "llama-3-70b.png")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", phone_viewport())
    try:
        assert overlaps(driver, tables) == []
        screenshot(driver, ARTIFACTS / "llama-3-70b-phone.png", phone=True)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_one_unit_per_cell_and_words_for_counts(driver: "webdriver.Chrome", base_url: str) -> None:
    driver.get(base_url)
    wait_settled(driver, after=0)
    before = updates(driver)
    driver.find_element(By.CSS_SELECTOR, 'input[name="model_source"][value="count"]').click()
    type_into(driver, "parameter_count", "8.03e9")
    choose(driver, "gpu", "seed-80gb")
    type_into(driver, "gpus_per_node", "8")
    type_into(driver, "world_size", "1")
    wait_settled(driver, after=before)
    per_gpu = cell(driver, "per-gpu", "zero3")
    assert "GiB" in per_gpu.text and " GB" not in per_gpu.text
    tip = per_gpu.find_element(By.CSS_SELECTOR, ".main").get_attribute("title")
    assert "bytes" in tip and "GB" in tip
    case = driver.find_element(By.ID, "case").text
    assert "8.03 billion" in case and "8.03 B" not in case
    assert "1 GPU," in case and "1 GPUs" not in case
    recommend = driver.find_element(By.ID, "recommend").text
    assert "1 GPUs" not in recommend


def test_a_busy_service_is_asked_again_not_reported(driver: "webdriver.Chrome", busy_url: str) -> None:
    # The page's fit and recommendation arrive together: one of them is answered 429 with Retry-After,
    # and the page asks again instead of showing an error.
    driver.get(busy_url)
    wait_settled(driver, after=0)
    assert "Updated at" in driver.find_element(By.ID, "status").text
    assert driver.find_elements(By.CSS_SELECTOR, "#recommend li.chosen")
    assert driver.find_element(By.ID, "general-errors").get_attribute("hidden") is not None
    assert console_errors(driver, allowed_statuses=(429,)) == [], json.dumps(driver.get_log("browser"))


def test_a_layout_shows_each_stage_and_group(driver: "webdriver.Chrome", base_url: str) -> None:
    driver.get(base_url)
    wait_settled(driver, after=0)
    assert driver.find_element(By.ID, "layout").get_attribute("hidden") is not None  # data parallelism only
    before = updates(driver)
    # Llama 3 8B on 16 GPUs as tensor 2 x pipeline 2: d = 16 / (2 x 2) = 4; 4 micro-batches a step
    type_into(driver, "world_size", "16")
    type_into(driver, "gradient_accumulation_steps", "4")
    type_into(driver, "tensor", "2")
    type_into(driver, "pipeline", "2")
    wait_settled(driver, after=before)
    section = driver.find_element(By.ID, "layout")
    assert section.get_attribute("hidden") is None, driver.find_element(By.ID, "status").text
    summary = driver.find_element(By.ID, "layout-summary").text
    assert "tensor 2 x pipeline 2 x context 1 x data 4 = 16 GPUs" in summary
    assert "4 micro-batches" in summary and "bubble" in summary
    stages = driver.find_elements(By.CSS_SELECTOR, "#stages tbody tr")
    assert [s.get_attribute("data-stage") for s in stages] == ["0", "1"]
    for stage in stages:
        by = {
            td.get_attribute("data-arrangement"): int(td.get_attribute("data-bytes"))
            for td in stage.find_elements(By.CSS_SELECTOR, "td[data-bytes]")
        }
        # sharding more state over the 4-way data group holds less on each GPU; zero3 on a pipeline stage
        # keeps the stage's parameters gathered and its gradients unsharded for the step (FSDP with
        # pipelining as torchtitan runs it), more than zero2 holds
        assert by["ddp"] > by["zero1"] > by["zero2"]
        assert by["zero3"] > by["zero2"]
    groups = {g.get_attribute("data-group") for g in driver.find_elements(By.CSS_SELECTOR, "#groups tbody tr")}
    assert {"data", "tensor", "pipeline"} <= groups
    # the minimum GPU counts are the layout's: t 2 x p 2 x d GPUs, the data degree beside them
    zero3 = cell(driver, "min-gpus", "zero3")
    assert int(zero3.get_attribute("data-min-exact")) == 4 * int(zero3.get_attribute("data-min-data"))
    # a 429 (heavy requests over the limit on a busy machine) is asked again by the page, not an error
    assert console_errors(driver, allowed_statuses=(429,)) == [], json.dumps(driver.get_log("browser"))


def _shown(text: str) -> float:
    """'43.5 GiB' -> 43.5; '194.3 ms' -> 0.1943; '2.16 s' -> 2.16 (a shown figure in its base unit)."""
    value, unit = text.rsplit(" ", 2)[-2:]
    return float(value.replace(",", "")) * {"GiB": 1.0, "ms": 1e-3, "s": 1.0}[unit]


def test_the_shown_terms_add_up_to_the_shown_totals(driver: "webdriver.Chrome", base_url: str) -> None:
    # Llama 3 8B on 16 GPUs as tensor 2 x data 8 with the page's training shape: states, a working set
    # and activations in memory; compute, overlap slowdown, exposed communication and optimizer in the step.
    driver.get(base_url)
    wait_settled(driver, after=0)
    before = updates(driver)
    type_into(driver, "world_size", "16")
    type_into(driver, "tensor", "2")
    wait_settled(driver, after=before)
    assert driver.find_element(By.ID, "layout").get_attribute("hidden") is None
    for arrangement in ("ddp", "zero3"):
        per_gpu = cell(driver, "per-gpu", arrangement)
        total = per_gpu.find_element(By.CSS_SELECTOR, "[data-total]")
        parts = per_gpu.find_elements(By.CSS_SELECTOR, "[data-terms=memory] [data-term]")
        values = {p.get_attribute("data-term"): int(p.get_attribute("data-value")) for p in parts}
        assert set(values) == {"states", "working set", "activations"} and min(values.values()) > 0, values
        assert sum(values.values()) == int(total.get_attribute("data-total"))
        # what a reader adds up: each shown term rounded to 0.1 GiB, so within 0.05 GiB a term
        shown = [_shown(p.text) for p in parts]
        assert abs(sum(shown) - _shown(total.text)) <= 0.05 * (len(shown) + 1), (total.text, [p.text for p in parts])
        fits = cell(driver, "fits", arrangement)
        usable = fits.find_elements(By.CSS_SELECTOR, "[data-terms=usable] [data-term]")
        card, reserve, fragmentation = (int(p.get_attribute("data-value")) for p in usable)
        assert card - reserve - fragmentation == int(
            fits.find_element(By.CSS_SELECTOR, "[data-usable]").get_attribute("data-usable")
        )
        step = cell(driver, "step-time", arrangement)
        step_total = step.find_element(By.CSS_SELECTOR, "[data-total]")
        parts = step.find_elements(By.CSS_SELECTOR, "[data-terms=step] [data-term]")
        seconds = {p.get_attribute("data-term"): float(p.get_attribute("data-value")) for p in parts}
        assert {"compute", "exposed tensor", "optimizer"} <= set(seconds), seconds
        assert abs(sum(seconds.values()) - float(step_total.get_attribute("data-total"))) <= 1e-9 * sum(
            seconds.values()
        )
        # shown: ms to 0.1 (0.05 ms a term), seconds to 0.01 (5 ms), the step to 0.001 s
        slack = sum(5e-3 if p.text.endswith(" s") else 5e-5 for p in parts) + 5e-4
        assert abs(sum(_shown(p.text) for p in parts) - _shown(step_total.text)) <= slack, [p.text for p in parts]
        assert "MFU" in cell(driver, "throughput", arrangement).text


def test_counts_take_the_command_lines_forms(driver: "webdriver.Chrome", base_url: str) -> None:
    """4K on the page is 4,000, as on the command line (SI suffixes: 2k is 2,000); 8.5K is no whole count either way
    (8,500 is, 8.5005K is not), and the API's 422 names the field."""
    driver.get(base_url)
    wait_settled(driver, after=0)

    def per_gpu_with(sequence: str) -> str | None:
        before = updates(driver)
        type_into(driver, "sequence_length", sequence)
        wait_settled(driver, after=before)
        totals = driver.find_elements(
            By.CSS_SELECTOR, '#compare td[data-row="per-gpu"][data-arrangement="zero3"] [data-total]'
        )
        return totals[0].get_attribute("data-total") if totals else None

    written = per_gpu_with("4000")
    assert written is not None and per_gpu_with("4K") == written
    per_gpu_with("8.5005K")
    assert field_error(driver, "sequence_length")
