// zeroplan's page: reads the form, calls the public /v1 API, shows what it answers.
// No framework and no network beyond this service. The page computes nothing itself: every
// number shown comes from /v1/plan, /v1/fit, /v1/recommend or /v1/figures.
"use strict";

(() => {
  // Relative URLs, so the page also works behind a proxy that serves the service under a prefix.
  const API = {
    presets: "v1/presets",
    plan: "v1/plan",
    fit: "v1/fit",
    recommend: "v1/recommend",
    figure: (name) => `v1/figures/${name}?format=svg`,
  };
  const ARRANGEMENTS = [
    { name: "ddp", label: "DP", sub: "data parallel (DDP)" },
    { name: "zero1", label: "ZeRO-1", sub: "shards optimizer state" },
    { name: "zero2", label: "ZeRO-2", sub: "DeepSpeed stage 2" },
    { name: "zero3", label: "ZeRO-3", sub: "FSDP FULL_SHARD" },
    { name: "shard_grad_op", label: "SHARD_GRAD_OP", sub: "FSDP: gathered every micro-batch" },
  ];
  const FIGURES = [
    { name: "memory-vs-gpus", title: "Per-GPU memory against GPU count, with the card and each replicated floor" },
    { name: "bytes-per-weight", title: "Bytes per weight by state class at N" },
    { name: "traffic", title: "Bytes sent per GPU per step, by collective" },
    { name: "step-time", title: "Step time: compute, overlap slowdown, exposed communication, optimizer step, offload" },
  ];
  const DEFAULTS = { model_preset: "llama-3-8b", gpu: "h100-80gb", precision: "mixed_bf16_adam", links: "" };
  const ARCHITECTURE = ["layers", "hidden_size", "attention_heads", "kv_heads", "ffn_hidden_size", "vocab_size"];
  const DEBOUNCE_MS = 300;
  const GIB = 2 ** 30;
  const TOKEN_KEY = "zeroplan-token";
  const FIGURE_SIZE = { width_px: 800, height_px: 500 };

  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));
  const form = $("#inputs");

  let presets = null;
  let timer = 0;
  let running = false;
  let pending = false;
  let updates = 0;
  const BUSY_WAIT_S = 30; // how long a call the service answers 429 (busy) is asked again, Retry-After apart
  let figuresMissing = false; // the service answered 404 for figures: ask no more until a reload
  const figureUrls = new Map();

  // ---- small formatting helpers -------------------------------------------------------------

  const intFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
  const grouped = (n) => intFormat.format(n);
  const fixed = (n, digits = 1) => Number(n).toFixed(digits);
  const trim = (n, digits = 2) => String(Number(Number(n).toFixed(digits)));
  const gib = (bytes) => `${fixed(bytes / GIB)} GiB`;
  const gb = (bytes) => `${fixed(bytes / 1e9)} GB`;
  // One unit in a cell: the other forms of the same byte count go in its tooltip.
  const bytesTip = (bytes) => `${grouped(bytes)} bytes = ${gib(bytes)} = ${gb(bytes)}`;
  const plural = (n, one, many = `${one}s`) => `${grouped(n)} ${n === 1 ? one : many}`;
  const gpus = (n) => plural(n, "GPU");
  // The card less its reserve (CUDA context, NCCL buffers) and fragmentation: what fits compares against.
  const usableWords = (m) => m.usable_bytes === m.card_bytes
    ? `the ${gib(m.card_bytes)} card` : `the ${gib(m.usable_bytes)} usable of the ${gib(m.card_bytes)} card`;

  function seconds(s) {
    if (s === 0) return "0 s";
    if (Math.abs(s) < 1) return `${fixed(s * 1000, 1)} ms`;
    return `${fixed(s, 2)} s`;
  }

  // Step times in one unit across a row, so the columns compare at a glance.
  function stepSeconds(s) {
    if (s >= 100) return `${fixed(s, 0)} s`;
    if (s >= 10) return `${fixed(s, 1)} s`;
    return `${fixed(s, 3)} s`;
  }

  // "B" is for bytes only: counts are written out ("8.03 billion").
  function params(p) {
    if (p >= 1e12) return `${trim(p / 1e12)} trillion`;
    if (p >= 1e9) return `${trim(p / 1e9)} billion`;
    if (p >= 1e6) return `${trim(p / 1e6)} million`;
    return grouped(p);
  }

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // ---- reading the form ---------------------------------------------------------------------

  const field = (name) => form.elements.namedItem(name);
  const text = (name) => String(field(name).value ?? "").trim();
  const checked = (name) => Boolean(field(name).checked);

  // "30e9", "30B", "7.5 B", "30,000,000,000", "8K": a number, as the command line reads counts. Anything
  // else goes to the API as typed, so the API, not this page, says what is wrong with it (a 422 naming the field).
  const SUFFIX_EXPONENT = { k: 3, m: 6, b: 9, g: 9, t: 12 };
  function parseNumber(raw, { suffixes = false } = {}) {
    const value = raw.trim();
    if (value === "") return undefined;
    const cleaned = value.replace(/[\s,_]/g, "");
    const match = /^([-+]?(?:\d+\.?\d*|\.\d+))(?:e([-+]?\d+))?([kmbgt])?$/i.exec(cleaned);
    if (!match || (match[3] && !suffixes)) return value;
    const exponent = Number(match[2] || 0) + (match[3] ? SUFFIX_EXPONENT[match[3].toLowerCase()] : 0);
    const number = Number(`${match[1]}e${exponent}`);
    return Number.isFinite(number) ? number : value;
  }

  // A count field: 8K, 70B, 30e9 as the command line reads them (the JSON contract takes numbers).
  const count = (name) => parseNumber(text(name), { suffixes: true });

  function compact(object) {
    return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
  }

  function cardBytes() {
    const amount = parseNumber(text("gpu_memory"));
    if (typeof amount !== "number") return amount;
    const unit = text("gpu_memory_unit");
    if (unit === "GB") return Math.round(Number(`${amount}e9`));
    if (unit === "GiB") return Math.round(amount * GIB);
    return amount;
  }

  function modelSpec() {
    const source = text("model_source");
    if (source === "preset") return { preset: text("model_preset") || undefined };
    if (source === "count") return compact({ parameter_count: parseNumber(text("parameter_count"), { suffixes: true }) });
    const spec = {};
    for (const name of ARCHITECTURE) spec[name] = count(name);
    spec.mlp = text("mlp");
    spec.tied_embeddings = checked("tied_embeddings");
    return compact(spec);
  }

  // The layout beside data parallelism; undefined when every degree is 1 (data parallelism only).
  function layoutSpec() {
    const degrees = compact({
      tensor: count("tensor"),
      pipeline: count("pipeline"),
      context: count("context"),
      virtual_stages: count("virtual_stages"),
    });
    const spec = {
      ...degrees,
      sequence_parallel: checked("sequence_parallel"),
      pipeline_schedule: text("pipeline_schedule"),
    };
    const trivial = Object.values(degrees).every((d) => d === 1) && !spec.sequence_parallel
      && spec.pipeline_schedule === "1f1b";
    return trivial ? undefined : spec;
  }

  function readInputs() {
    const card = compact({
      gpus_per_node: count("gpus_per_node"),
      links: text("links") || undefined,
      gpu: text("card_source") === "preset" ? text("gpu") || undefined : undefined,
      gpu_memory_bytes: text("card_source") === "memory" ? cardBytes() : undefined,
    });
    const training = compact({
      micro_batch_size: count("micro_batch_size"),
      sequence_length: count("sequence_length"),
      gradient_accumulation_steps: count("gradient_accumulation_steps"),
      utilisation: parseNumber(text("utilisation")),
    });
    const activationModel = text("activation_model");
    const activations = compact({
      model: activationModel === "auto" ? undefined : activationModel,
      flash_attention: checked("flash_attention"),
    });
    const levers = {
      recompute: text("recompute"),
      offload_optimizer: checked("offload_optimizer"),
      offload_parameters: checked("offload_parameters"),
      overlap: checked("overlap"),
      mxfp8: checked("mxfp8"),
    };
    const parallelism = layoutSpec();
    const shared = { model: modelSpec(), precision: text("precision") || undefined, training, activations };
    const worldSize = count("world_size");
    const maxGpus = count("max_gpus");
    return {
      worldSize,
      plan: (arrangement) =>
        compact({
          ...shared,
          cluster: compact({ ...card, world_size: worldSize }),
          arrangement,
          parallelism,
          // A replicated parameter copy stays on the GPU: the API refuses parameter offload without ZeRO-3.
          levers: { ...levers, offload_parameters: arrangement === "zero3" && levers.offload_parameters },
        }),
      fit: compact({
        ...shared,
        cluster: card,
        gpu_count_grid: text("gpu_count_grid"),
        max_gpus: maxGpus,
        levers,
        parallelism,
      }),
      recommend: compact({ ...shared, cluster: card, max_gpus: maxGpus, levers: { overlap: levers.overlap } }),
      figure: compact({
        ...shared,
        cluster: compact({ ...card, world_size: worldSize }),
        levers,
        max_gpus: maxGpus,
        ...FIGURE_SIZE,
      }),
    };
  }

  // ---- the URL fragment keeps the inputs, so a link reproduces the case ---------------------

  const SAVED = [
    "model_source", "model_preset", "parameter_count", ...ARCHITECTURE, "mlp", "tied_embeddings", "precision",
    "card_source", "gpu", "gpu_memory", "gpu_memory_unit", "gpus_per_node", "world_size", "max_gpus",
    "gpu_count_grid", "links", "micro_batch_size", "sequence_length", "gradient_accumulation_steps", "utilisation",
    "activation_model", "flash_attention", "recompute", "offload_optimizer", "offload_parameters", "overlap", "mxfp8",
    "tensor", "pipeline", "context", "virtual_stages", "pipeline_schedule", "sequence_parallel",
  ];

  function saveToFragment() {
    const saved = new URLSearchParams();
    for (const name of SAVED) {
      const control = field(name);
      if (control && control.type === "checkbox") saved.set(name, control.checked ? "1" : "0");
      else if (control) saved.set(name, String(control.value ?? ""));
    }
    history.replaceState(null, "", `#${saved}`);
  }

  function loadFromFragment() {
    const saved = new URLSearchParams(location.hash.slice(1));
    for (const [name, value] of saved) {
      if (!SAVED.includes(name)) continue;
      const control = field(name);
      if (!control) continue;
      if (control.type === "checkbox") control.checked = value === "1";
      else if (control instanceof RadioNodeList) control.value = value;
      else if (control.tagName === "SELECT") {
        if (Array.from(control.options).some((option) => option.value === value)) control.value = value;
      } else control.value = value;
    }
  }

  // ---- talking to the API -------------------------------------------------------------------

  function headers(accept) {
    const result = { Accept: accept, "Content-Type": "application/json" };
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) result.Authorization = `Bearer ${token}`;
    return result;
  }

  // Never throws: { ok, status, data } or { ok: false, status, problem }.
  async function call(url, body, { image = false } = {}) {
    const accept = image ? "image/svg+xml, application/problem+json" : "application/json, application/problem+json";
    const init = body === undefined ? { headers: headers(accept) } : { method: "POST", headers: headers(accept), body: JSON.stringify(body) };
    let response;
    const started = Date.now();
    for (;;) {
      try {
        response = await fetch(url, init);
      } catch {
        return { ok: false, status: 0, problem: { detail: "The service did not answer. Is it still running?" } };
      }
      // 429: the service is busy with other heavy requests; wait as it says and ask again, for a while.
      if (response.status !== 429) break;
      const seconds = Math.min(Number(response.headers.get("Retry-After")) || 1, 5);
      if ((Date.now() - started) / 1000 + seconds > BUSY_WAIT_S) break;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
    if (response.ok) return { ok: true, status: response.status, data: image ? await response.blob() : await response.json() };
    let problem = { detail: `${response.status} ${response.statusText}` };
    try {
      problem = await response.json();
    } catch {
      /* not JSON: keep the status line */
    }
    return { ok: false, status: response.status, problem };
  }

  // ---- errors next to their fields ----------------------------------------------------------

  function visible(node) {
    return node && !node.closest("[hidden]") && !node.disabled;
  }

  // The control a JSON pointer names: an exact data-pointer, else the nearest parent pointer's
  // group (its first visible control). "/cluster/links/intra_node_bytes_per_s" lands on links.
  // A group's message often names the field at fault ("model.hidden_size 4097 is not a multiple
  // of ..."): then it goes to the first named field that is on screen.
  function controlFor(pointer, detail = "") {
    let path = pointer || "";
    while (path) {
      const named = $$("[data-pointer]", form).find((node) => node.dataset.pointer === path);
      if (named && visible(named)) {
        if (named.matches("input, select, textarea")) return named;
        for (const [dotted] of detail.matchAll(/\b[a-z_]+(?:\.[a-z_]+)+/g)) {
          const mentioned = $$("[data-pointer]", named).find((node) => node.dataset.pointer === `/${dotted.replace(/\./g, "/")}`);
          if (mentioned && visible(mentioned) && mentioned.matches("input, select, textarea")) return mentioned;
        }
        const inside = $$("input:not([type=radio]), select, textarea", named).find(visible);
        if (inside) return inside;
      }
      path = path.slice(0, path.lastIndexOf("/"));
    }
    return null;
  }

  function clearErrors() {
    for (const node of $$(".error[data-generated]", form)) node.remove();
    for (const control of $$("[aria-invalid]", form)) {
      control.removeAttribute("aria-invalid");
      const base = control.dataset.describedbyBase;
      if (base) control.setAttribute("aria-describedby", base);
      else control.removeAttribute("aria-describedby");
      delete control.dataset.describedbyBase;
    }
    const general = $("#general-errors");
    general.replaceChildren();
    general.hidden = true;
  }

  function problemsToErrors(problems) {
    const seen = new Set();
    const errors = [];
    for (const problem of problems) {
      const items = Array.isArray(problem.errors) && problem.errors.length ? problem.errors : [{ detail: problem.detail || problem.title, pointer: "" }];
      for (const item of items) {
        const key = `${item.pointer}\u0000${item.detail}`;
        if (seen.has(key)) continue;
        seen.add(key);
        errors.push({ pointer: item.pointer || "", detail: item.detail || "invalid" });
      }
    }
    return errors;
  }

  // The API starts each detail with the dotted location ("cluster.world_size: ..."); next to the
  // field that location is the field itself.
  function withoutLocation(detail, pointer) {
    const location = pointer.split("/").filter(Boolean).join(".");
    const prefix = `${location}: `;
    return location && detail.startsWith(prefix) ? detail.slice(prefix.length) : detail;
  }

  function showErrors(problems) {
    clearErrors();
    const general = [];
    for (const { pointer, detail } of problemsToErrors(problems)) {
      const control = controlFor(pointer, withoutLocation(detail, pointer));
      if (!control) {
        general.push(detail);
        continue;
      }
      const id = `err-${control.id}`;
      let message = document.getElementById(id);
      if (!message) {
        message = el("p", { class: "error", id, "data-generated": true, "data-pointer-of": pointer });
        control.closest(".field").append(message);
        if (!control.hasAttribute("aria-invalid")) {
          control.dataset.describedbyBase = control.getAttribute("aria-describedby") || "";
        }
        control.setAttribute("aria-invalid", "true");
        const base = control.dataset.describedbyBase;
        control.setAttribute("aria-describedby", base ? `${base} ${id}` : id);
      }
      message.append(el("span", { text: withoutLocation(detail, pointer) }));
    }
    const box = $("#general-errors");
    if (general.length) {
      box.append(el("p", { text: "The service answered:" }), el("ul", {}, general.map((detail) => el("li", { text: detail }))));
      box.hidden = false;
    }
  }

  // ---- rendering ----------------------------------------------------------------------------

  function cell(arrangement, row, ...children) {
    return el("td", { "data-arrangement": arrangement, "data-row": row }, ...children);
  }
  const main = (value, cls = "") => el("span", { class: `main ${cls}`.trim(), text: value });
  // A byte count in GiB, its exact bytes and GB in the tooltip.
  const mainBytes = (bytes) => el("span", { class: "main", text: gib(bytes), title: bytesTip(bytes) });
  const small = (value) => el("span", { class: "sub", text: value });
  // The cell's total, with its exact value for whoever checks that the terms shown beside it add up.
  const total = (node, value) => { node.dataset.total = String(value); return node; };
  const badge = (good, yes, no) => el("span", { class: `badge ${good ? "yes" : "no"}`, text: good ? yes : no });

  // A total's terms, each a span that carries its exact value (data-value), joined by the operator:
  // what the cell's main figure is the sum (or difference) of, so the page shows what decides it.
  function terms(kind, parts, format, op = " + ") {
    const node = el("span", { class: "sub terms", "data-terms": kind });
    parts.forEach(([label, value], i) => {
      if (i) node.append(op);
      node.append(el("span", { "data-term": label, "data-value": String(value), text: `${label} ${format(value)}` }));
    });
    return node;
  }

  // Per GPU = model states + working set + activations (the answer's own three fields).
  const memoryTerms = (m) => terms("memory", [
    ["states", m.model_state_bytes],
    ["working set", m.working_set_bytes],
    [m.activations_counted ? "activations" : "activations (not counted)", m.activations_bytes],
  ], gib);

  // Step = compute + overlap slowdown + each group's exposed communication + bubble + optimizer + offload
  // (Time.step_s); the data group's exposed part is what the exposed total leaves after the other groups'.
  const GROUP_SECONDS = { tensor: "tensor_parallel_s", context: "context_parallel_s", pipeline: "pipeline_p2p_s", expert: "expert_parallel_s" };
  function stepParts(t) {
    const others = Object.entries(GROUP_SECONDS).map(([g, key]) => [`exposed ${g}`, t[key]]);
    const data = Math.max(0, t.exposed_communication_s - others.reduce((sum, [, v]) => sum + v, 0));
    const parts = [["compute", t.compute_s], ["overlap slowdown", t.overlap_slowdown_s], ["exposed data", data], ...others,
      ["bubble", t.pipeline_bubble_s], ["optimizer", t.optimizer_s], ["offload", t.offload_s]];
    return parts.filter(([label, v]) => v > 0 || label === "compute");
  }

  function bytesPerWeight(memory, n) {
    const r = memory.replicated_bytes_per_weight;
    const s = memory.sharded_bytes_per_weight;
    if (s === 0) return `${trim(r)} replicated`;
    if (r === 0) return `${trim(s)} / ${n}`;
    return `${trim(r)} + ${trim(s)} / ${n}`;
  }

  function fitCell(name, fit) {
    const entry = fit && fit.arrangements.find((a) => a.arrangement === name);
    if (!entry) return cell(name, "min-gpus", main("—"));
    const td = cell(name, "min-gpus");
    td.dataset.never = String(entry.never_fits);
    if (entry.min_gpus_on_grid !== null) td.dataset.minGrid = String(entry.min_gpus_on_grid);
    if (entry.min_gpus_exact !== null) td.dataset.minExact = String(entry.min_gpus_exact);
    if (entry.min_gpus !== null) td.dataset.minGpus = String(entry.min_gpus);
    if (entry.min_gpus_whole_nodes !== null) td.dataset.minWholeNodes = String(entry.min_gpus_whole_nodes);
    if (entry.parallelism) td.dataset.minData = String(entry.parallelism.data);
    if (entry.never_fits) {
      const layout = fit.arrangements.some((a) => a.parallelism);
      td.append(badge(false, "", "never"), small(layout ? "on this layout" : "at any GPU count"));
    } else if (entry.min_gpus_on_grid === null) {
      td.append(main(`over ${grouped(Math.max(...fit.grid))}`), small(`smallest job ${grouped(entry.min_gpus)}`));
    } else {
      td.append(
        main(`from ${grouped(entry.min_gpus_on_grid)}`, "good"),
        small(`on the grid; smallest job ${grouped(entry.min_gpus)}, whole nodes ${entry.min_gpus_whole_nodes ?? "—"}`),
      );
    }
    if (entry.parallelism) {
      td.append(small(`data ${entry.parallelism.data}, ${grouped(entry.parallelism.micro_batches)} micro-batches`));
    }
    return td;
  }

  // The layout section: each pipeline stage's GPU and each group's traffic, per arrangement.
  function renderLayout(plans) {
    const answered = plans.map((p) => (p.ok && p.data.parallelism ? p.data : null));
    const first = answered.find(Boolean);
    $("#layout").hidden = !first;
    if (!first) return;
    const l = first.parallelism;
    const bubble = first.time.pipeline_bubble_fraction;
    $("#layout-summary").textContent = `tensor ${l.tensor} x pipeline ${l.pipeline} x context ${l.context} x data ${l.data}` +
      ` = ${gpus(first.world_size)}; ${plural(l.micro_batches, "micro-batch", "micro-batches")} of ` +
      `${plural(l.global_batch_size, "sequence")} a step` +
      (l.pipeline > 1 ? `; the ${l.pipeline_schedule} bubble idles ${fixed(bubble * 100, 1)}% of the pipeline's time` : "") + ".";
    const head = (label) => el("thead", {}, el("tr", {}, el("th", { scope: "col", class: "rowhead", text: label }),
      ARRANGEMENTS.map((a) => el("th", { scope: "col", "data-arrangement": a.name, text: a.label }))));
    const stages = first.memory.stages.map((stage) => el("tr", { "data-stage": stage.stage },
      el("th", { scope: "row", class: "rowhead", text: `Stage ${stage.stage} (${plural(stage.layers, "layer")})` }),
      ARRANGEMENTS.map((a, i) => {
        const s = answered[i]?.memory.stages[stage.stage];
        if (!s) return cell(a.name, "stage", main("—", "muted"));
        const td = cell(a.name, "stage", mainBytes(s.per_gpu_bytes), badge(s.fits, "fits", "does not fit"),
          terms("memory", [["states", s.model_state_bytes], ["working set", s.working_set_bytes],
            ["activations", s.activations_bytes]], gib));
        td.dataset.bytes = String(s.per_gpu_bytes);
        return td;
      })));
    $("#stages").replaceChildren(head("Per GPU of each stage"), el("tbody", {}, stages));
    const groups = [...new Set(answered.filter(Boolean).flatMap((p) => p.traffic.collectives.map((c) => c.group)))];
    const rows = groups.map((group) => el("tr", { "data-group": group },
      el("th", { scope: "row", class: "rowhead", text: `${group} group` }),
      ARRANGEMENTS.map((a, i) => {
        const calls = answered[i]?.traffic.collectives.filter((c) => c.group === group);
        if (!calls) return cell(a.name, "group", main("—", "muted"));
        const sent = calls.reduce((sum, c) => sum + c.bytes_sent_per_gpu * c.count_per_step, 0);
        const td = cell(a.name, "group", el("span", { class: "main", text: gb(sent), title: bytesTip(sent) }),
          small(calls.map((c) => `${c.name} x ${grouped(c.count_per_step)} on ${c.link.replace("_", "-")}`).join("; ")));
        td.dataset.bytes = String(sent);
        return td;
      })));
    $("#groups").replaceChildren(head("Sent per GPU per step"), el("tbody", {}, rows));
  }

  function renderCompare(plans, fit) {
    const n = plans.find((p) => p.ok)?.data.world_size;
    const head = el("tr", {}, el("th", { scope: "col", class: "rowhead", text: n ? `At N = ${n}` : "" }),
      ARRANGEMENTS.map((a) => el("th", { scope: "col", "data-arrangement": a.name }, el("span", { class: "arr", text: a.label }), small(a.sub))));
    $("#compare thead").replaceChildren(head);

    const rows = [
      ["bytes-per-weight", "Model-state bytes per weight", (p) => [main(trim(p.memory.bytes_per_weight)), small(`${bytesPerWeight(p.memory, p.world_size)}; model states only`)]],
      ["per-gpu", "Per-GPU memory", (p) => [total(mainBytes(p.memory.per_gpu_bytes), p.memory.per_gpu_bytes), memoryTerms(p.memory)]],
      ["fits", "Fits the card at N", (p) => [badge(p.memory.fits, "fits", "does not fit"),
        small(p.memory.fits
          ? `${gib(p.memory.headroom_bytes)} to spare of ${usableWords(p.memory)}`
          : `${gib(-p.memory.headroom_bytes)} over ${usableWords(p.memory)}`),
        el("span", { class: "sub", "data-usable": String(p.memory.usable_bytes) }, `usable ${gib(p.memory.usable_bytes)} = `,
          terms("usable", [["card", p.memory.card_bytes], ["reserve", p.memory.reserve_bytes],
            ["fragmentation", p.memory.fragmentation_bytes]], gib, " − "))]],
      ["min-gpus", "Fits from (GPUs)", null],
      ["floor", "Replicated floor", (p) => [mainBytes(p.memory.replicated_floor_bytes),
        small(`${trim(p.memory.replicated_bytes_per_weight)} B/weight${p.memory.activations_bytes ? " + activations" : ""} that no GPU count lowers`)]],
      ["traffic", "Traffic per GPU per step", (p) => [
        el("span", { class: "main", text: gb(p.traffic.bytes_sent_per_gpu), title: bytesTip(p.traffic.bytes_sent_per_gpu) }),
        small(`${trim(p.traffic.volume_in_p)}P at ring cost${p.traffic.pcie_bytes_per_gpu ? `; PCIe ${gb(p.traffic.pcie_bytes_per_gpu)}` : ""}`)]],
      ["step-time", "Step time", (p) => [total(main(stepSeconds(p.time.step_s)), p.time.step_s),
        terms("step", stepParts(p.time), seconds)]],
      ["throughput", "Throughput", (p) => [main(`MFU ${fixed(p.time.mfu * 100, 1)}%`),
        small(`${grouped(Math.round(p.time.tokens_per_s_per_gpu))} tokens/s per GPU, ${grouped(Math.round(p.time.tokens_per_s))} in all`)]],
    ];
    const body = rows.map(([key, label, render]) =>
      el("tr", { "data-row": key }, el("th", { scope: "row", class: "rowhead", text: label }),
        ARRANGEMENTS.map((a, i) => {
          if (key === "min-gpus") return fitCell(a.name, fit);
          const plan = plans[i];
          return plan.ok ? cell(a.name, key, ...render(plan.data)) : cell(a.name, key, main("—", "muted"));
        })));
    $("#compare tbody").replaceChildren(...body);

    const first = plans.find((p) => p.ok)?.data;
    const card = fit?.card_bytes ?? first?.memory.card_bytes;
    const p = first?.parameter_count ?? fit?.parameter_count;
    if (p && card) {
      const g = first?.gpus_per_node ?? fit?.gpus_per_node;
      const nodes = n ? (n <= g ? "within one node" : `${plural(n / g, "node")} of ${g}`) : "";
      $("#case").textContent = `${grouped(p)} weights (${params(p)})` +
        (n ? ` on ${gpus(n)}, ${nodes}` : "") + `, a card of ${gib(card)}.` +
        (plans.every((r) => r.ok) ? "" : " The numbers at N wait for the inputs marked on the left.");
    } else {
      $("#case").textContent = "Fix the inputs marked on the left to see the numbers.";
    }
  }

  function renderWarnings(responses) {
    const warnings = [...new Set(responses.filter((r) => r && r.ok).flatMap((r) => r.data.warnings || []))];
    const list = $("#warnings");
    list.replaceChildren(...warnings.map((w) => el("li", { text: w })));
    list.hidden = warnings.length === 0;
  }

  function renderRecommend(result) {
    const list = $("#recommend");
    const questions = $("#questions");
    if (!result.ok) {
      $("#recommend-summary").textContent = "—";
      list.replaceChildren();
      $("#questions-box").hidden = true;
      return;
    }
    const data = result.data;
    $("#recommend-summary").textContent = data.summary;
    const chosen = data.recommendation?.rank;
    list.replaceChildren(...data.steps.map((step) => {
      const where = step.fits ? `fits from ${gpus(step.min_gpus)}` : `does not fit within ${gpus(step.world_size)}`;
      return el("li", { class: `step${step.rank === chosen ? " chosen" : ""}${step.fits ? "" : " nofit"}`, "data-arrangement": step.arrangement },
        el("div", { class: "step-head" },
          el("strong", { text: step.lever }),
          step.rank === chosen ? el("span", { class: "badge yes", text: "recommended" }) : null),
        el("div", { class: "step-facts" },
          badge(step.fits, where, where), small(`${gib(step.per_gpu_bytes)} per GPU · step ${stepSeconds(step.step_s)}`)),
        el("p", { class: "why", text: step.why }));
    }));
    const relevant = data.questions.filter((q) => q.relevant);
    questions.replaceChildren(...relevant.map((q) =>
      el("li", {}, el("strong", { text: q.question }), " ", q.why, " ", el("em", { text: `Settled by: ${q.what_settles_it}` }))));
    $("#questions-box").hidden = relevant.length === 0;
  }

  function renderBreakdown(plans, fit) {
    const articles = ARRANGEMENTS.map((a, i) => {
      const result = plans[i];
      const article = el("article", { class: "arrangement", "data-arrangement": a.name });
      if (!result.ok) {
        article.append(el("h3", { text: a.label }), el("p", { class: "muted", text: "No plan: see the errors next to the inputs." }));
        return article;
      }
      const p = result.data;
      const reason = fit?.arrangements.find((f) => f.arrangement === a.name)?.reason;
      const states = el("table", { class: "states" },
        el("caption", { class: "visually-hidden", text: `${a.label}: bytes per GPU by state class` }),
        el("thead", {}, el("tr", {}, ["State", "Bytes per GPU", "Arithmetic"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {},
          p.memory.breakdown.map((s) => el("tr", { class: s.location === "host" ? "host" : "" },
            el("th", { scope: "row" }, s.state.replace(/_/g, " "), small(`${s.dtype}${s.sharded ? ", sharded" : ", replicated"}${s.location === "host" ? ", in host memory" : ""}`)),
            el("td", { class: "num" }, mainBytes(s.bytes)),
            el("td", { class: "arith", text: s.arithmetic }))),
          p.memory.activations.components.map((c) => el("tr", {},
            el("th", { scope: "row" }, `activations: ${c.name}`, small(p.memory.activations.model)),
            el("td", { class: "num" }, mainBytes(c.bytes)),
            el("td", { class: "arith", text: c.arithmetic }))),
        ),
        el("tfoot", {}, el("tr", {},
          el("th", { scope: "row" }, "on each GPU", small(p.memory.host_bytes ? `host: ${gib(p.memory.host_bytes)} per node` : "")),
          el("td", { class: "num" }, mainBytes(p.memory.per_gpu_bytes)),
          el("td", { title: bytesTip(p.memory.usable_bytes) }, badge(p.memory.fits, "fits", "does not fit"),
            ` ${usableWords(p.memory)}`,
            small(p.memory.usable_arithmetic),
            p.memory.activations_counted ? "" : small("activations not counted")))),
      );
      const collectives = el("details", { class: "collectives" },
        el("summary", { text: `Collectives per step: ${gb(p.traffic.bytes_sent_per_gpu)} sent per GPU` }),
        el("ul", {}, p.traffic.collectives.map((c) => el("li", {},
          el("strong", { text: c.name.replace(/_/g, "-") }), ` in the ${c.group} group (${c.purpose}), ${seconds(c.seconds)} on ${c.link.replace(/_/g, "-")}: `,
          el("span", { class: "arith", text: c.arithmetic })))),
        el("ul", { class: "assumptions" }, p.time.assumptions.map((t) => el("li", { text: t }))));
      article.append(
        el("h3", {}, `${a.label} `, el("span", { class: "sub", text: `${gib(p.memory.per_gpu_bytes)} per GPU at N = ${p.world_size}` })),
        reason ? el("p", { class: "reason", text: reason[0].toUpperCase() + reason.slice(1) + "." }) : null,
        el("div", { class: "table-wrap", role: "region", "aria-label": `${a.label} breakdown`, tabindex: "0" }, states),
        collectives,
      );
      return article;
    });
    $("#breakdown").replaceChildren(...articles);
  }

  function setupFigures() {
    $("#figures").replaceChildren(...FIGURES.map((f) =>
      el("figure", { class: "figure", "data-figure": f.name, "data-state": "empty" },
        el("img", { alt: f.title, width: FIGURE_SIZE.width_px, height: FIGURE_SIZE.height_px, decoding: "async" }),
        el("p", { class: "figure-empty", text: "Drawn once the inputs are complete." }),
        el("figcaption", { text: f.title }))));
    for (const img of $$("#figures img")) {
      img.addEventListener("load", () => { img.closest("figure").dataset.state = "drawn"; });
      img.addEventListener("error", () => { img.closest("figure").dataset.state = "failed"; });
    }
  }

  function renderFigures(results) {
    const missing = results.some((r) => r.status === 404);
    figuresMissing = missing;
    const note = $("#figures-note");
    note.hidden = !missing;
    note.textContent = missing ? "This service does not draw figures (its /v1/figures endpoint answered 404); the numbers above are complete without them." : "";
    $("#figures").hidden = missing;
    FIGURES.forEach((f, i) => {
      const figure = $(`figure[data-figure="${f.name}"]`);
      const img = $("img", figure);
      const old = figureUrls.get(f.name);
      if (results[i].ok) {
        const url = URL.createObjectURL(results[i].data);
        figureUrls.set(f.name, url);
        figure.dataset.state = "loading";
        img.src = url;
      } else {
        figureUrls.delete(f.name);
        img.removeAttribute("src");
        figure.dataset.state = "empty";
        $(".figure-empty", figure).textContent = results[i].status === 422
          ? "No figure for these inputs: see the marked fields."
          : `No figure: ${results[i].problem?.detail || "the service did not draw it"}.`;
      }
      if (old) setTimeout(() => URL.revokeObjectURL(old), 1000);
    });
  }

  // ---- one update: every call at once, then every section -----------------------------------

  function needsToken(results) {
    const unauthorized = results.some((r) => r.status === 401);
    if (unauthorized) $("#token-box").hidden = false;
    return unauthorized;
  }

  // body[data-state]: "pending" while a debounced update waits, "busy" while one runs, "idle" when
  // the page shows the answer to its current inputs (the end-to-end test waits on it).
  function setState() {
    document.body.dataset.state = running ? "busy" : timer || pending ? "pending" : "idle";
  }

  // A model with nothing in it (the count or architecture chosen, nothing typed yet) is an
  // unfinished form, not a request: ask for it instead of sending calls that can only fail.
  function modelMissing() {
    return Object.keys(modelSpec()).length === 0;
  }

  async function update() {
    saveToFragment();
    if (modelMissing()) {
      const source = text("model_source");
      $("#status").textContent = source === "count"
        ? "Enter a parameter count (e.g. 30e9 or 70B) to plan."
        : "Enter the model's architecture to plan.";
      updates += 1;
      document.body.dataset.updates = String(updates);
      return;
    }
    $("#status").textContent = "Updating…";
    const inputs = readInputs();
    const [plans, fit, recommend] = await Promise.all([
      Promise.all(ARRANGEMENTS.map((a) => call(API.plan, inputs.plan(a.name)))),
      call(API.fit, inputs.fit),
      call(API.recommend, inputs.recommend),
    ]);
    // The figures are asked for once the numbers are in: fewer heavy requests at once (the
    // service runs a few at a time and answers a burst beyond them with 429).
    const figureCalls = FIGURES.map((f) =>
      figuresMissing ? { ok: false, status: 404, problem: {} } : call(API.figure(f.name), inputs.figure, { image: true }));
    renderCompare(plans, fit.ok ? fit.data : null);
    renderLayout(layoutSpec() ? plans : []);
    renderBreakdown(plans, fit.ok ? fit.data : null);
    renderRecommend(recommend);
    renderWarnings([...plans, fit, recommend]);
    const figures = await Promise.all(figureCalls);
    renderFigures(figures);

    const failed = [...plans, fit, recommend, ...figures].filter((r) => !r.ok && r.status !== 404);
    const tokenNeeded = needsToken(failed);
    showErrors(failed.filter((r) => r.status !== 401).map((r) => r.problem));
    const fields = $$(".error[data-generated]", form).length;
    const general = !$("#general-errors").hidden;
    updates += 1;
    document.body.dataset.updates = String(updates);
    if (tokenNeeded) $("#status").textContent = "This service needs an API token: enter it at the top of the inputs.";
    else if (fields || general) $("#status").textContent = `The service found a problem with ${fields === 1 ? "one input" : fields ? `${fields} inputs` : "the request"}; see the marked field${fields === 1 ? "" : "s"}.`;
    else $("#status").textContent = `Updated at ${new Date().toLocaleTimeString()}.`;
  }

  async function run() {
    if (running) {
      pending = true;
      setState();
      return;
    }
    running = true;
    setState();
    try {
      await update();
    } finally {
      running = false;
    }
    if (pending) {
      pending = false;
      run();
    }
    setState();
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = 0;
      run();
    }, DEBOUNCE_MS);
    setState();
  }

  // ---- presets and sources ------------------------------------------------------------------

  function fillSelect(name, items, label, chosen) {
    const select = field(name);
    select.replaceChildren(...items.map((item) => el("option", { value: item.name, text: label(item) })));
    if (items.some((item) => item.name === chosen)) select.value = chosen;
  }

  function describePresets() {
    if (!presets) return;
    const model = presets.models.find((m) => m.name === text("model_preset"));
    $("#hint-model_preset").textContent = model ? `${grouped(model.parameter_count)} weights. ${model.source || ""}`.trim() : "";
    const gpu = presets.gpus.find((g) => g.name === text("gpu"));
    $("#hint-gpu").textContent = gpu ? `${gb(gpu.memory_bytes)} = ${gib(gpu.memory_bytes)}; ${trim(gpu.peak_bf16_flops / 1e12, 1)} TFLOP/s BF16.` : "";
    const precision = presets.precisions.find((p) => p.name === text("precision"));
    $("#hint-precision").textContent = precision ? `${trim(precision.bytes_per_weight)} bytes per weight in all.` : "";
    const links = presets.links.find((l) => l.name === text("links"))?.spec;
    $("#hint-links").textContent = links
      ? `${gb(links.intra_node_bytes_per_s)}/s in a node, ${gb(links.inter_node_bytes_per_s)}/s across nodes, ${gb(links.host_bytes_per_s)}/s to the host.`
      : "NVLink and NIC of the GPU's generation (A100: nvlink3-ib200, H100: nvlink4-ib400, B200: nvlink5-ib800); the answer's assumptions give the figures.";
  }

  function showSources() {
    for (const [group, name] of [["/model", "model_source"], ["/cluster", "card_source"]]) {
      const chosen = text(name);
      for (const panel of $$(`fieldset[data-pointer="${group}"] .source`)) panel.hidden = panel.dataset.source !== chosen;
    }
  }

  // Switching to architecture fills empty fields from the chosen preset, so there is a start.
  function prefillArchitecture() {
    if (text("model_source") !== "architecture" || !presets) return;
    if (ARCHITECTURE.some((name) => text(name) !== "")) return;
    const model = presets.models.find((m) => m.name === text("model_preset") && m.layers) || presets.models.find((m) => m.layers);
    if (!model) return;
    for (const name of ARCHITECTURE) field(name).value = model[name] ?? "";
    if (model.mlp) field("mlp").value = model.mlp;
    field("tied_embeddings").checked = Boolean(model.tied_embeddings);
  }

  async function loadPresets() {
    const result = await call(API.presets);
    if (!result.ok) {
      if (needsToken([result])) {
        $("#status").textContent = "This service needs an API token: enter it at the top of the inputs.";
      } else {
        showErrors([result.problem]);
        $("#status").textContent = "The presets did not load.";
      }
      return false;
    }
    presets = result.data;
    fillSelect("model_preset", presets.models, (m) => `${m.name} (${params(m.parameter_count)})`, DEFAULTS.model_preset);
    fillSelect("gpu", presets.gpus, (g) => `${g.name} (${fixed(g.memory_gib)} GiB)`, DEFAULTS.gpu);
    fillSelect("precision", presets.precisions, (p) => `${p.name} (${trim(p.bytes_per_weight)} B/weight)`, DEFAULTS.precision);
    // "" leaves cluster.links out: the service takes the links of the GPU's generation.
    fillSelect("links", [{ name: "" }, ...presets.links], (l) => l.name || "the GPU's own (by its generation)", DEFAULTS.links);
    return true;
  }

  async function start() {
    setupFigures();
    const tokenInput = field("api_token");
    tokenInput.value = sessionStorage.getItem(TOKEN_KEY) || "";
    $("#token-box").hidden = !tokenInput.value;
    tokenInput.addEventListener("input", () => {
      sessionStorage.setItem(TOKEN_KEY, tokenInput.value.trim());
      clearTimeout(timer);
      timer = setTimeout(async () => {
        timer = 0;
        if (presets) return run();
        if (!(await loadPresets())) return setState();
        loadFromFragment();
        showSources();
        describePresets();
        return run();
      }, DEBOUNCE_MS);
      setState();
    });

    form.addEventListener("submit", (event) => event.preventDefault());
    form.addEventListener("input", (event) => {
      if (event.target === tokenInput) return;
      if (event.target.name === "model_source" || event.target.name === "card_source") {
        showSources();
        prefillArchitecture();
      }
      describePresets();
      schedule();
    });

    if (!(await loadPresets())) return setState();
    loadFromFragment();
    showSources();
    describePresets();
    await run();
  }

  start();
})();
