// app.js - the dashboard's behaviour (docs/dashboard.md). Reads this daemon's
// own API only (same origin, no token: the page only reads), builds every
// element with DOM calls and textContent (no HTML from data), and refreshes
// the calibration list and the service figures while jobs run. The predict
// form's fields and the validation table's headings come from GET
// /v1/schema: the query tables and the methods table the daemon itself uses.
"use strict";

const PLOT_KINDS = ["curves", "transfer", "evaluation", "capacity", "static"];
// Plots of the device's probe data, which a bundle may lack, and those that
// take no family.
const DEVICE_KINDS = ["capacity", "static"];
const WHOLE_KINDS = ["evaluation", ...DEVICE_KINDS];
// Reports written before the TileSight column existed call exact SDCM "sdcm".
const FORMER_KEYS = {sdcm: "exact_sdcm"};
const state = {calibrations: [], selected: null, detail: null, timer: null, schema: null};

function methodTitle(key) {
  const m = state.schema.methods.find(v => v.key === (FORMER_KEYS[key] || key));
  return m ? m.title : key;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function fmt(x, digits) {
  if (x === null || x === undefined) return "-";
  if (typeof x !== "number") return String(x);
  return Math.abs(x) >= 1e6 || (Math.abs(x) < 1e-3 && x !== 0) ? x.toExponential(3)
                                                               : x.toFixed(digits ?? 2);
}

function setStatus(text, isError) {
  const s = document.getElementById("status");
  s.textContent = text;
  s.className = isError ? "error" : "";
}

async function api(path, options) {
  const r = await fetch(path, Object.assign({headers: {"Accept": "application/json"}}, options));
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (r.status === 401) throw new Error("this daemon needs a token for reads (--auth-reads); " +
                                        "the dashboard reads without one");
  if (!r.ok) {
    const err = body && body.error ? body.error : {message: "HTTP " + r.status};
    throw new Error((err.field ? err.field + ": " : "") + err.message);
  }
  return body;
}

function fillTable(table, rows) {
  const tbody = table.tBodies[0];
  tbody.replaceChildren(...rows);
}

async function loadStats() {
  const s = await api("/v1/stats");
  const figures = [
    ["uptime", fmt(s.uptime_seconds, 0) + " s"],
    ["requests", s.requests.total], ["errors", s.requests.errors],
    ["predictions served", s.predictions.served], ["refused", s.predictions.refused],
    ["calibrations loaded", s.calibrations.loaded], ["collecting", s.calibrations.collecting],
    ["jobs queued", s.jobs.queued], ["leased", s.jobs.leased], ["done", s.jobs.done],
    ["agents", s.agents.length]];
  document.getElementById("stats").replaceChildren(
    ...figures.map(([k, v]) => el("div", {"data-figure": k}, el("dt", {text: k}),
                                  el("dd", {text: String(v)}))));
}

async function loadDevices() {
  const d = await api("/v1/devices");
  fillTable(document.getElementById("devices"), d.devices.map(v => el("tr", {"data-name": v.name},
    el("td", {text: v.name}), el("td", {text: v.arch}), el("td", {text: v.sm_count}),
    el("td", {text: v.capacity_blocks}), el("td", {text: v.block_bytes}),
    el("td", {text: v.cuda_name || "-"}),
    el("td", {text: [v.capacity_probe && "capacity scan",
                     v.static_experiment && "static table"].filter(Boolean).join(", ") || "-"}))));
  const sel = document.getElementById("predict-device");
  const keep = sel.value;
  sel.replaceChildren(...d.devices.map(v => el("option", {value: v.name, text: v.name})));
  if (keep) sel.value = keep;
}

async function loadCalibrations() {
  const c = await api("/v1/calibrations");
  state.calibrations = c.calibrations;
  fillTable(document.getElementById("calibrations"), c.calibrations.map(v => {
    const p = v.progress || {done: 0, total: 0};
    const bar = el("progress", {max: String(p.total || 1), value: String(p.total ? p.done : 1)});
    return el("tr", {"data-id": String(v.id), "data-state": v.state},
      el("td", {text: v.id}), el("td", {text: v.device}), el("td", {text: v.workload}),
      el("td", {text: v.state}), el("td", {}, bar, " " + p.done + " / " + p.total),
      el("td", {text: v.measurements ?? "-"}), el("td", {text: v.created_at}));
  }));
  const sel = document.getElementById("cal-select");
  const frozen = c.calibrations.filter(v => v.state === "frozen");
  const ids = frozen.map(v => String(v.id));
  if (sel.options.length !== ids.length) {
    sel.replaceChildren(...frozen.map(v => el("option", {value: String(v.id),
      text: "#" + v.id + " " + v.device + " (" + v.workload + ")"})));
  }
  if (state.selected === null && ids.length) await selectCalibration(ids[0]);
  // While jobs run, follow their progress closely.
  const busy = c.calibrations.some(v => v.state === "collecting");
  schedule(busy ? 3000 : 15000);
}

function schedule(ms) {
  clearTimeout(state.timer);
  state.timer = setTimeout(refresh, ms);
}

function validationRows(report) {
  const cols = (report.table && report.table.columns) || Object.keys(report.balanced_mape);
  const head = el("tr", {}, el("th", {text: "validation"}), el("th", {text: "keys"}),
                  ...cols.map(c => el("th", {text: methodTitle(c)})));
  const rows = [];
  const add = (name, r) => rows.push(el("tr", {"data-validation": name},
    el("td", {text: name}), el("td", {text: r.n_keys_scored ?? r.n_keys}),
    ...cols.map(c => el("td", {text: fmt(r.balanced_mape[c])}))));
  add("LOKO folds", report);
  if (report.heldout) add("held-out panel", report.heldout);
  if (report.offgrid) add("off-grid panel", report.offgrid);
  return {head, rows, cols};
}

async function selectCalibration(id) {
  state.selected = id;
  document.getElementById("cal-select").value = id;
  const d = await api("/v1/calibrations/" + id);
  state.detail = d;
  const table = document.getElementById("validation");
  const note = document.getElementById("validation-note");
  if (d.report) {
    const v = validationRows(d.report);
    table.tHead.replaceChildren(v.head);
    fillTable(table, v.rows);
    const s = d.report.summary || {};
    const cover = ["heldout", "offgrid"].filter(p => d.report[p] && d.report[p].coverage)
      .map(p => " " + (p === "heldout" ? "Held-out" : "Off-grid") + " runs inside their 80% interval: " +
                fmt(d.report[p].coverage.all.coverage_pct) + "%.");
    note.textContent = d.report.n_scored + " of " + d.report.n_runs + " runs scored, " +
      d.report.n_refused + " refused; repeat-to-repeat floor " +
      (s.floor_mape == null ? "unknown (no repeats)" : fmt(s.floor_mape) + "%") + "." +
      cover.join("");
    const warn = (d.warnings || []).map(w => el("li", {text: w}));
    document.getElementById("validation-warnings").replaceChildren(...warn);
  } else {
    table.tHead.replaceChildren();
    fillTable(table, []);
    note.textContent = "This calibration has no validation report.";
    document.getElementById("validation-warnings").replaceChildren();
  }
  fillFamilies(d);
  showPlots();
}

function fillFamilies(d) {
  const sel = document.getElementById("family-select");
  const keys = (d.report && d.report.keys) || [];
  const fams = new Set(keys.map(k => d.workload === "gemm" ? String(k.Mg)
                                                             : k.o + "," + k.path + "," + k.d));
  sel.replaceChildren(el("option", {value: "", text: "default"}),
                      ...[...fams].map(f => el("option", {value: f, text: f})));
}

function plotImage(kind, src, cap) {
  const img = el("img", {src, alt: kind + " plot of calibration " + state.selected,
                         class: "plot", "data-kind": kind});
  img.addEventListener("error", async () => {
    try { await api(src); } catch (e) { cap.textContent = kind + ": " + e.message; }
    cap.className = "error";
  });
  return img;
}

function showPlots() {
  const fam = document.getElementById("family-select").value;
  const q = fam ? "?family=" + encodeURIComponent(fam) : "";
  const selected = state.selected;
  document.getElementById("plots").replaceChildren(...PLOT_KINDS.map(kind => {
    const src = "/v1/calibrations/" + selected + "/plots/" + kind + ".svg" +
                (WHOLE_KINDS.includes(kind) ? "" : q);
    const cap = el("figcaption", {text: kind});
    if (!DEVICE_KINDS.includes(kind)) return el("figure", {}, plotImage(kind, src, cap), cap);
    // The device's probe data may be absent from the bundle: ask first, and
    // say what is missing instead of showing a broken image.
    const fig = el("figure", {}, cap);
    fetch(src).then(r => {
      if (state.selected !== selected) return;
      if (r.ok) { fig.prepend(plotImage(kind, src, cap)); return; }
      return r.json().then(body => {
        const e = body && body.error ? body.error : {message: "HTTP " + r.status};
        fig.prepend(el("p", {class: "absent", "data-kind": kind,
                             text: (e.field ? e.field + ": " : "") + e.message}));
      });
    }).catch(e => { cap.textContent = kind + ": " + e.message; cap.className = "error"; });
    return fig;
  }));
}

// The predict form offers the workloads the selected device has a frozen
// calibration of (a device may have both scan and GEMM), and asks for the
// fields of the chosen one.
function showWorkloads() {
  const dev = document.getElementById("predict-device").value;
  const sel = document.getElementById("predict-workload");
  const had = sel.value;
  const frozen = new Set(state.calibrations.filter(v => v.device === dev && v.state === "frozen")
                                            .map(v => v.workload));
  const have = Object.keys(state.schema.queries).filter(w => frozen.has(w));
  sel.replaceChildren(...have.map(w => el("option", {value: w, text: w})));
  if (have.includes(had)) sel.value = had;
  showWorkloadFields();
}

function showWorkloadFields() {
  const chosen = document.getElementById("predict-workload").value;
  for (const w of Object.keys(state.schema.queries))
    document.getElementById(w + "-fields").hidden = w !== chosen;
}

// One fieldset per workload, one input per field of its query (GET
// /v1/schema), filled with the field's example.
function buildQueryFields(schema) {
  document.getElementById("predict-fields").replaceChildren(
    ...Object.entries(schema.queries).map(([w, fields]) => el("fieldset", {id: w + "-fields"},
      el("legend", {text: w}), ...fields.map(f => el("label", {title: f.doc}, f.name + " ",
        f.enum ? el("select", {name: f.name},
                    ...f.enum.map(v => Object.assign(el("option", {value: v, text: v}),
                                                     {selected: v === f.example})))
               : el("input", {name: f.name, type: "number", min: String(f.minimum),
                              max: String(f.maximum), step: f.type === "number" ? "any" : "1",
                              value: String(f.example)}))))));
}

function predictBody(form) {
  const f = new FormData(form);
  const w = document.getElementById("predict-workload").value;
  const body = {device: f.get("device")};
  for (const field of state.schema.queries[w]) {
    const v = f.get(field.name);
    if (v !== null && v !== "") body[field.name] = field.type === "string" ? v : Number(v);
  }
  return body;
}

async function predict(ev) {
  ev.preventDefault();
  const out = document.getElementById("answer");
  const pre = document.getElementById("explanation");
  try {
    const a = await api("/v1/predict", {method: "POST", body: JSON.stringify(predictBody(ev.target)),
                                        headers: {"Content-Type": "application/json"}});
    const ext = (a.extrapolated || []).map(x => x.coordinate + "=" + x.value + " (" + x.action + ")");
    out.replaceChildren(el("dl", {class: "figures"},
      ...[["K", fmt(a.K, 4)], ["rho", fmt(a.rho, 4)], ["fill bytes", fmt(a.fill_bytes)],
          ["rule", a.rule], ["expected error", a.expected_error_pct == null ? "unknown"
                                                  : fmt(a.expected_error_pct) + "%"],
          ["80% interval of K", a.interval ? fmt(a.interval.K_low, 4) + " .. " +
                                               fmt(a.interval.K_high, 4) : "unknown"],
          ["model vs aligned K=1", a.validation ? "loses in its folds: " +
              fmt(a.validation.pascal_pct) + "% vs " + fmt(a.validation.aligned_pct) + "%" : "-"],
          ["extrapolated", ext.length ? ext.join(", ") : "no"],
          ["calibration", "#" + a.calibration]]
        .map(([k, v]) => el("div", {"data-figure": k}, el("dt", {text: k}),
                            el("dd", {text: String(v)})))));
    out.querySelector('[data-figure="K"] dd').id = "answer-k";
    pre.textContent = JSON.stringify(a.explanation, null, 2);
  } catch (e) {
    out.replaceChildren(el("p", {class: "error", id: "answer-error", text: e.message}));
    pre.textContent = "";
  }
  loadStats().catch(() => {});
}

async function refresh() {
  try {
    if (!state.schema) {
      state.schema = await api("/v1/schema");
      buildQueryFields(state.schema);
    }
    await Promise.all([loadStats(), loadDevices(), loadCalibrations()]);
    showWorkloads();
    setStatus("Up to date at " + new Date().toLocaleTimeString() + ".");
    document.body.setAttribute("data-loaded", "1");
  } catch (e) {
    setStatus("Cannot read the daemon: " + e.message, true);
    schedule(15000);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("cal-select").addEventListener("change",
    e => selectCalibration(e.target.value).catch(x => setStatus(x.message, true)));
  document.getElementById("family-select").addEventListener("change", showPlots);
  document.getElementById("predict-form").addEventListener("submit", predict);
  document.getElementById("predict-device").addEventListener("change", showWorkloads);
  document.getElementById("predict-workload").addEventListener("change", showWorkloadFields);
  refresh();
});
