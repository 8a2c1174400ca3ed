// app.js - the dashboard's behaviour (docs/dashboard.md). Reads this daemon's
// own API only (same origin, no token: the page only reads), builds every
// element with DOM calls and textContent (no HTML from data), and refreshes
// the calibrations, their collection and the service figures while jobs run.
// The predict form's fields (with their help and ranges) and the validation
// table's headings come from GET /v1/schema: the query tables and the methods
// table the daemon itself uses, so a field added there (a GEMM tile field,
// an attention field) appears here with its help without a change.
"use strict";

// The charts of a calibration (docs/plots.md), each with what it shows.
const PLOTS = [
  ["curves", "curves: measured K of each key against the horizon, with the model's line"],
  ["transfer", "transfer: K against the compute work m, the transfer rules per class"],
  ["evaluation", "calibration keys: per-key error out of fold (leave-one-key-out)"],
  ["heldout", "held-out panel keys: per-key error, on an axis of their own"],
  ["capacity", "capacity probe of the device"],
  ["static", "static cluster experiment of the device"]];
// Charts whose data a calibration may lack: asked first, and when absent the
// daemon's reason is shown in place of a broken image.
const OPTIONAL_KINDS = ["heldout", "capacity", "static"];
// Charts of the whole calibration or device (no family).
const WHOLE_KINDS = ["evaluation", "heldout", "capacity", "static"];
// Reports written before the TileSight column existed call exact SDCM "sdcm".
const FORMER_KEYS = {sdcm: "exact_sdcm"};
// What the rule of an answer means (pascal/predict.h pascal_rule).
const RULES = {
  exact: "the query is a calibrated key: its own fitted curve",
  graph: "interpolated between calibrated keys that bracket it (anchored, paper Eq. graph)",
  clamp: "no calibrated key on both sides: the nearest one's value",
  "depth-fallback": "the family lacks this depth: borrowed from its neighbouring depths",
  resident: "the data fits in L2 (N <= C): only its cold fills, in closed form"};
const BOUNDS = {dram: "DRAM bandwidth", l2: "L2 bandwidth", compute: "tensor compute",
                latency: "launch and latency"};
const state = {calibrations: [], selected: null, detail: null, timer: null, schema: null,
               serverNow: null, stats: null, jobs: {}};

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
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// ---- numbers for people ------------------------------------------------------

function fmt(x, digits) {
  if (x === null || x === undefined) return "-";
  if (typeof x !== "number") return String(x);
  return Math.abs(x) >= 1e6 || (Math.abs(x) < 1e-3 && x !== 0) ? x.toExponential(3)
                                                               : x.toFixed(digits ?? 2);
}

function fmtInt(x) {
  return x === null || x === undefined ? "-" : Number(x).toLocaleString("en-US");
}

// Three significant digits with a decimal unit: "33.1 GB".
function fmtBytes(b) {
  if (b === null || b === undefined) return "-";
  const units = [[1e12, "TB"], [1e9, "GB"], [1e6, "MB"], [1e3, "kB"]];
  for (const [scale, unit] of units)
    if (Math.abs(b) >= scale) return (b / scale).toPrecision(3) + " " + unit;
  return Math.round(b) + " B";
}

function fmtSeconds(s) {
  if (s === null || s === undefined) return "-";
  if (s < 1e-3) return (s * 1e6).toPrecision(3) + " \u00b5s";
  if (s < 1) return (s * 1e3).toPrecision(3) + " ms";
  if (s < 60) return s.toPrecision(3) + " s";
  return fmtDuration(s);
}

// "1h02m", "3m07s", "42s"; "<1s" for less than a second.
function fmtDuration(s) {
  if (!(s >= 0) || !isFinite(s)) return "--";
  const r = Math.round(s);
  if (s > 0 && r === 0) return "<1s";
  if (r >= 3600) return Math.floor(r / 3600) + "h" + String(Math.floor(r % 3600 / 60)).padStart(2, "0") + "m";
  if (r >= 60) return Math.floor(r / 60) + "m" + String(r % 60).padStart(2, "0") + "s";
  return r + "s";
}

// A percentage: "9.67 %", "< 0.01 %" for what rounding would print as zero.
function fmtPct(p) {
  if (p === null || p === undefined) return "unknown";
  if (p !== 0 && Math.abs(p) < 0.005) return "< 0.01 %";
  return p.toFixed(Math.abs(p) < 10 ? 2 : 1) + " %";
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
  table.tBodies[0].replaceChildren(...rows);
}

// A figure: label, value, a detail line under the value, and its help.
function figure(key, label, value, detail, help) {
  return el("div", {"data-figure": key, title: help || ""}, el("dt", {text: label}),
            el("dd", {}, el("span", {class: "value", text: String(value)}),
               detail ? el("span", {class: "detail", text: detail}) : null),
            help ? el("span", {class: "help", text: help}) : null);
}

// ---- service, devices, calibrations ----------------------------------------

async function loadStats() {
  const s = await api("/v1/stats");
  state.stats = s;
  state.serverNow = Date.parse(s.started_at) + 1000 * s.uptime_seconds;
  const figures = [
    ["uptime", fmtDuration(s.uptime_seconds)],
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
    el("td", {text: fmtInt(v.capacity_blocks)}), el("td", {text: fmtInt(v.block_bytes)}),
    el("td", {text: (v.capacity_blocks * v.block_bytes / 1048576).toFixed(2)}),
    el("td", {text: v.cuda_name || "-"}),
    el("td", {text: v.peaks ? "measured" : "-"}),
    el("td", {text: [v.capacity_probe && "capacity scan",
                     v.static_experiment && "static table"].filter(Boolean).join(", ") || "-"}))));
  const sel = document.getElementById("predict-device");
  const keep = sel.value;
  sel.replaceChildren(...d.devices.map(v => el("option", {value: v.name, text: v.name})));
  if (keep) sel.value = keep;
}

// The progress cell: a collecting calibration's jobs; a frozen one says
// whether its runs were measured here or came in an imported bundle.
function progressCell(v) {
  const p = v.progress || {done: 0, total: 0};
  if (!p.total) {
    const how = v.state === "frozen" ? "imported" : v.state;
    return el("td", {"data-progress": "imported"}, how + ": " + fmtInt(v.measurements) + " runs");
  }
  const pct = Math.floor(100 * p.done / p.total);
  const text = v.state === "frozen" ? p.done + " / " + p.total + " measured"
             : v.state === "failed" ? p.done + " / " + p.total + ", " + v.jobs.failed + " failed"
             : p.done + " / " + p.total + " (" + pct + " %)";
  return el("td", {"data-progress": "jobs"},
            el("progress", {max: String(p.total), value: String(p.done)}), " " + text);
}

async function loadCalibrations() {
  const c = await api("/v1/calibrations");
  state.calibrations = c.calibrations;
  fillTable(document.getElementById("calibrations"), c.calibrations.map(v =>
    el("tr", {"data-id": String(v.id), "data-state": v.state},
      el("td", {text: v.id}), el("td", {text: v.device}), el("td", {text: v.workload}),
      el("td", {text: v.state}), progressCell(v),
      el("td", {text: fmtInt(v.measurements)}), el("td", {text: v.created_at}))));
  const sel = document.getElementById("cal-select");
  const frozen = c.calibrations.filter(v => v.state === "frozen");
  const ids = frozen.map(v => String(v.id));
  if ([...sel.options].map(o => o.value).join() !== ids.join()) {
    sel.replaceChildren(...frozen.map(v => el("option", {value: String(v.id),
      text: "#" + v.id + " " + v.device + " (" + v.workload + ")"})));
    if (state.selected !== null && ids.includes(state.selected)) sel.value = state.selected;
  }
  if (state.selected === null && ids.length) await selectCalibration(ids[0]);
  await loadCollection(c.calibrations.filter(v => v.state === "collecting"));
  // While jobs run, follow their progress closely.
  const busy = c.calibrations.some(v => v.state === "collecting");
  schedule(busy ? 2000 : 15000);
}

function schedule(ms) {
  clearTimeout(state.timer);
  state.timer = setTimeout(refresh, ms);
}

// ---- collection ----------------------------------------------------------------

// Every job of `path` (a /v1/jobs query), page after page.
async function allJobs(path) {
  const jobs = [];
  let cursor = null;
  do {
    const page = await api(path + "&limit=1000" + (cursor ? "&cursor=" + cursor : ""));
    jobs.push(...page.jobs);
    cursor = page.next_cursor;
  } while (cursor);
  return jobs;
}

// The page's own record of a calibration's progress: the moments (server
// clock) its done count was seen to rise, the last 16 kept. The count it
// found when it started watching is no rise, and idle polls add nothing, so
// the rate is the recent pace and the time left converges.
function observe(v) {
  const rec = state.jobs[v.id] || (state.jobs[v.id] = {done: v.progress.done, rises: []});
  if (v.progress.done < rec.done) rec.rises = [];
  else if (v.progress.done > rec.done) rec.rises.push({t: state.serverNow, done: v.progress.done});
  rec.done = v.progress.done;
  if (rec.rises.length > 16) rec.rises.splice(0, rec.rises.length - 16);
  return rec.rises;
}

// Jobs per second between the first and the last rise in the window, and
// the seconds left at that pace; null until the count rose twice.
function pace(seen, left) {
  if (seen.length < 2) return {rate: null, eta: null};
  const a = seen[0], b = seen[seen.length - 1];
  const rate = (b.done - a.done) / Math.max(0.001, (b.t - a.t) / 1000);
  return rate > 0 ? {rate, eta: left / rate} : {rate: null, eta: null};
}

function freezeCommand(id) {
  return "curl -X POST -H \"Authorization: Bearer $ADMIN_TOKEN\" " + location.origin +
         "/v1/calibrations/" + id + "/freeze";
}

async function collectionPanel(v) {
  const p = v.progress, left = p.total - p.done;
  const leased = await allJobs("/v1/jobs?calibration=" + v.id + "&state=leased");
  const seenDone = observe(v);
  const {rate, eta} = pace(seenDone, left);
  const agents = [...new Set(leased.map(j => j.agent))].sort();
  const seen = (state.stats ? state.stats.agents : []).filter(a =>
    agents.includes(a.name) || leased.length === 0);
  const ready = left === 0 && v.jobs.failed === 0 && p.total > 0;
  const box = el("div", {class: "collect" + (ready ? " ready" : ""), "data-id": String(v.id),
                         "data-ready": ready ? "1" : "0"},
    el("h3", {text: "#" + v.id + " " + v.device + " (" + v.workload + ")"}),
    el("progress", {max: String(p.total), value: String(p.done)}),
    " " + p.done + " / " + p.total + " runs measured");
  const figures = [
    figure("agents", "agents measuring now", agents.length ? agents.join(", ") : "none",
           leased.length ? leased.length + " job(s) leased" : null,
           "agents holding a lease on one of its jobs (token name / agent name)"),
    figure("rate", "rate", rate === null ? "--" : rate.toFixed(2) + " jobs/s",
           rate === null ? "measured while this page watches" : "over the last " +
           (seenDone[seenDone.length - 1].done - seenDone[0].done) + " finished jobs",
           "jobs finished per second, over the recent rises of the count this page saw"),
    figure("eta", "time left", ready ? "0s" : eta === null ? "--" : fmtDuration(eta),
           left + " runs left", "runs left over the rate"),
    figure("jobs", "jobs", "queued " + v.jobs.queued + ", leased " + v.jobs.leased,
           "done " + v.jobs.done + ", failed " + v.jobs.failed,
           "a failed job (attempts used up) fails the calibration")];
  box.append(el("dl", {class: "figures"}, ...figures));
  if (!ready && seen.length && !agents.length)
    box.append(el("p", {class: "note", text: "agents seen lately: " +
      seen.map(a => a.name + " at " + a.last_seen).join(", ")}));
  if (ready)
    box.append(el("p", {class: "ready-text", "data-ready-text": "1",
                        text: "All " + p.total + " runs measured: ready to freeze."}),
               el("p", {class: "note", text: "An admin freezes it (fits the model, runs the " +
                        "validation, makes it answer predictions):"}),
               el("code", {text: freezeCommand(v.id)}));
  return box;
}

async function loadCollection(collecting) {
  const box = document.getElementById("collecting");
  if (!collecting.length) {
    box.replaceChildren(el("p", {class: "note", id: "nothing-collecting",
                                 text: "No calibration is being measured."}));
    return;
  }
  box.replaceChildren(...await Promise.all(collecting.map(collectionPanel)));
}

// ---- the chosen calibration -----------------------------------------------------

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

function showWarnings(d) {
  const box = document.getElementById("validation-warnings");
  const w = d.warnings || [];
  if (!w.length) { box.replaceChildren(); return; }
  box.replaceChildren(
    el("h3", {text: "Where PASCAL loses to aligned K = 1"}),
    el("p", {class: "note", text: "In these families the leave-one-key-out error of PASCAL " +
      "exceeds that of assuming every block is filled once. Answers from them carry both " +
      "errors, and their interval reaches K = 1."}),
    el("ul", {}, ...w.map(t => el("li", {"data-warning": "1", text: t}))));
}

async function selectCalibration(id) {
  state.selected = id;
  document.getElementById("cal-select").value = id;
  const d = await api("/v1/calibrations/" + id);
  state.detail = d;
  const table = document.getElementById("validation");
  const note = document.getElementById("validation-note");
  showWarnings(d);
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
  } else {
    table.tHead.replaceChildren();
    fillTable(table, []);
    note.textContent = "This calibration has no validation report.";
  }
  fillFamilies(d);
  showPlots();
}

// The families of the chosen calibration: scan "o,path,d", GEMM rows "Mg".
function fillFamilies(d) {
  const sel = document.getElementById("family-select");
  const keys = (d.report && d.report.keys) || [];
  const gemm = d.workload === "gemm";
  const fams = [...new Set(keys.map(k => gemm ? String(k.Mg) : k.o + "," + k.path + "," + k.d))];
  if (gemm) fams.sort((a, b) => Number(a) - Number(b));
  sel.replaceChildren(el("option", {value: "", text: "default"}),
                      ...fams.map(f => el("option", {value: f, text: gemm ? "Mg = " + f
                        : "o = " + f.split(",")[0] + ", " + f.split(",")[1] + ", d = " +
                          f.split(",")[2]})));
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
  document.getElementById("plots").replaceChildren(...PLOTS.map(([kind, title]) => {
    const src = "/v1/calibrations/" + selected + "/plots/" + kind + ".svg" +
                (WHOLE_KINDS.includes(kind) ? "" : q);
    const cap = el("figcaption", {text: title});
    if (!OPTIONAL_KINDS.includes(kind))
      return el("figure", {"data-kind": kind}, plotImage(kind, src, cap), cap);
    // Data the calibration may lack (a held-out panel, the device's probe
    // data): ask first, and say what is missing instead of a broken image.
    const fig = el("figure", {"data-kind": kind}, cap);
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

// ---- the predict form -----------------------------------------------------------

// The workloads the selected device has a frozen calibration of, and the
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

// A range end: an integer with separators, else as JavaScript writes it (1e-9).
function bound(x) {
  return Number.isInteger(x) ? fmtInt(x) : String(x);
}

// One line of help for a field: what it is (the query table's doc), its
// range, whether it may be left empty.
function fieldHelp(f) {
  const range = f.enum ? "one of " + f.enum.join(", ")
              : f.minimum !== undefined ? bound(f.minimum) + " to " + bound(f.maximum) : "";
  return f.doc + (range ? " (" + range + ")" : "") +
         (f.calibration_default ? "; empty: the calibration's own (e.g. " + f.example + ")"
                                : f.required ? "" : "; may be cleared");
}

// One fieldset per workload, one labelled input per field of its query (GET
// /v1/schema), filled with the field's example (a field whose absence means
// the calibration's own value starts empty, its placeholder saying so and
// its help giving the example), its help beside it.
function buildQueryFields(schema) {
  document.getElementById("predict-fields").replaceChildren(
    ...Object.entries(schema.queries).map(([w, fields]) => el("fieldset", {id: w + "-fields"},
      el("legend", {text: w + " query"}), ...fields.map(f => {
        const input = f.enum
          ? el("select", {name: f.name, "aria-describedby": w + "-help-" + f.name},
               ...f.enum.map(v => Object.assign(el("option", {value: v, text: v}),
                                                {selected: v === f.example})))
          : el("input", {name: f.name, type: "number", min: String(f.minimum),
                         max: String(f.maximum), step: f.type === "number" ? "any" : "1",
                         value: f.calibration_default ? "" : String(f.example),
                         placeholder: f.calibration_default ? "calibration's" : "",
                         "aria-describedby": w + "-help-" + f.name});
        return el("label", {class: "field", "data-field": f.name, title: fieldHelp(f)},
                  el("span", {class: "name", text: f.name + (f.required ? "" : " (opt.)")}),
                  input,
                  el("span", {class: "help", id: w + "-help-" + f.name, text: fieldHelp(f)}));
      }))));
}

function predictBody(form) {
  const f = new FormData(form);
  const w = document.getElementById("predict-workload").value;
  const body = {device: f.get("device")};
  for (const field of state.schema.queries[w]) {
    const v = document.querySelector("#" + w + "-fields [name='" + field.name + "']").value;
    if (v !== null && v !== "") body[field.name] = field.type === "string" ? v : Number(v);
  }
  return body;
}

// The figures of an answer, each formatted for people with what it means.
function answerFigures(a) {
  const e = a.explanation || {};
  const iv = a.interval;
  const src = e.expected_error ? e.expected_error.source : null;
  const figs = [
    figure("K", "K", a.K.toFixed(4), "rho = K / M = " + fmt(a.rho, 4) + ", M = " + a.M,
           "fill-equivalent count: how many times the data is filled into L2 " +
           "(1: once; up to M, every resident worker on its own)"),
    figure("fills", "fills (DRAM to L2)", fmtBytes(a.fill_bytes),
           fmtInt(Math.round(a.fill_bytes)) + " bytes",
           "bytes the kernel pulls from DRAM into L2 over the whole run")];
  if (a.time_s !== undefined)
    figs.push(figure("time", "kernel time", fmtSeconds(a.time_s),
                     (a.time_source === "calibrated" ? "fitted to the calibration's kernel times"
                                                     : "from the device's peaks"),
                     "predicted kernel time; present when the device's peaks are known"),
              figure("bound", "bound", BOUNDS[a.bound] || a.bound, a.bound,
                     "the limit the time found: DRAM, L2, compute or latency"));
  if (iv)
    figs.push(figure("interval", Math.round(100 * iv.level) + " % interval",
                     "K " + iv.K_low.toFixed(3) + " to " + iv.K_high.toFixed(3),
                     "fills " + fmtBytes(iv.fill_bytes_low) + " to " + fmtBytes(iv.fill_bytes_high) +
                     (iv.time_s_low !== undefined ? "; time " + fmtSeconds(iv.time_s_low) + " to " +
                                                    fmtSeconds(iv.time_s_high) : ""),
                     "where the measured value falls with this probability, from the " +
                     "calibration's own validation errors"));
  figs.push(
    figure("rule", "rule", a.rule, RULES[a.rule] || "", "how the answer was transferred " +
           "from the calibrated keys (least direct rule used)"),
    figure("expected error", "expected error", fmtPct(a.expected_error_pct),
           src ? "from the " + src + " validation" + (a.expected_error_pct !== null &&
                 a.expected_error_pct < 0.005 ? " (a calibrated key: no error left)" : "") : null,
           e.expected_error ? e.expected_error.method : "the error to expect, from the " +
           "calibration's validation"));
  const ext = a.extrapolated || [];
  figs.push(figure("extrapolated", "extrapolated",
    ext.length ? ext.map(x => x.coordinate + " = " + fmtInt(x.value)).join(", ") : "no",
    ext.length ? ext.map(x => x.coordinate + " outside " + fmtInt(x.min) + " to " + fmtInt(x.max) +
                              ": " + x.action.replace(/-/g, " ")).join("; ") : "inside the calibrated range",
    "coordinates outside the calibrated range, and what was done about them"));
  if (a.validation)
    figs.push(figure("family loses", "this family", "loses to aligned K = 1",
                     "leave-one-key-out error " + fmtPct(a.validation.pascal_pct) +
                     " vs aligned " + fmtPct(a.validation.aligned_pct),
                     "in this family PASCAL's validation error exceeds that of K = 1: " +
                     "the interval reaches K = 1"));
  const res = e.residency;
  if (res)
    figs.push(figure("residency", "kept in L2", "each later pass refetches " +
                     Math.round(100 * res.refetch) + " %",
                     "between " + Math.round(100 * res.refetch_low) + " and " +
                     Math.round(100 * res.refetch_high) + " % (the capacity probe's bracket, " +
                     fmtInt(res.N_low) + " to " + fmtInt(res.N_high) + " blocks); K " +
                     fmt(res.K_low, 3) + " to " + fmt(res.K_high, 3) + ", " +
                     fmt(res.K_refetching, 3) + " if every pass refetched",
                     "between the cache's capacity and the smallest calibrated size, part of " +
                     "the data stays in L2 from pass to pass, as the device's capacity probe " +
                     "measured"));
  const adv = e.advice;
  if (adv)
    figs.push(figure("advice", "advice", "keep the spread under " + fmtInt(adv.sigma_max) +
                     " blocks",
                     "or C >= " + fmtInt(adv.min_capacity) + " blocks, or a checkpoint every " +
                     fmtInt(adv.checkpoint_blocks) + " blocks: fills " +
                     fmtBytes(adv.fill_bytes_coherent) + " instead of " + fmtBytes(a.fill_bytes) +
                     " (" + fmtBytes(adv.fill_bytes_at_stake) + " at stake)",
                     "Theorem 4: progress divergence refetches blocks; bounding the workers' " +
                     "spread keeps them sharing"));
  if (a.workload === "gemm")
    figs.push(figure("tiles", "tiles", a.n_r + " x " + a.n_c + " x " + a.n_k,
                     "B0 " + fmtBytes(a.B0) + ", Q " + fmtBytes(a.Q) + ", K0 " + fmt(a.K0, 3) +
                     ", kappa " + fmt(a.kappa, 3),
                     "output tile rows x columns x k-steps; B0 the bytes of A and B once"));
  if (a.workload === "attention")
    figs.push(figure("tensors", "tensors", "Q " + fmtBytes(a.q_bytes) + ", K/V " +
                     fmtBytes(a.kv_bytes), "K/V fills " + fmtBytes(a.kv_fill_bytes) +
                     ", O " + fmtBytes(a.o_bytes),
                     "bytes of the query, key/value and output tensors"));
  figs.push(figure("calibration", "calibration", "#" + a.calibration, a.device,
                   "the frozen calibration that answered"));
  return figs;
}

// The explanation as nested definition lists (what each step used).
function explanationTree(v) {
  if (v === null || typeof v !== "object")
    return document.createTextNode(typeof v === "number" ? fmt(v, 4) : String(v));
  if (Array.isArray(v)) {
    if (v.every(x => x === null || typeof x !== "object"))
      return document.createTextNode(v.map(x => typeof x === "number" ? fmt(x, 4) : String(x))
                                      .join(", "));
    return el("ol", {}, ...v.map(x => el("li", {}, explanationTree(x))));
  }
  return el("dl", {}, ...Object.entries(v).flatMap(([k, x]) => [el("dt", {text: k}),
                                                                el("dd", {}, explanationTree(x))]));
}

async function predict(ev) {
  ev.preventDefault();
  const out = document.getElementById("answer");
  const tree = document.getElementById("explanation");
  const pre = document.getElementById("explanation-json");
  try {
    const a = await api("/v1/predict", {method: "POST", body: JSON.stringify(predictBody(ev.target)),
                                        headers: {"Content-Type": "application/json"}});
    out.replaceChildren(el("dl", {class: "figures"}, ...answerFigures(a)));
    out.querySelector('[data-figure="K"] .value').id = "answer-k";
    tree.replaceChildren(explanationTree(a.explanation));
    pre.textContent = JSON.stringify(a.explanation, null, 2);
  } catch (e) {
    out.replaceChildren(el("p", {class: "error", id: "answer-error", text: e.message}));
    tree.replaceChildren();
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
    await Promise.all([loadStats(), loadDevices()]);
    await loadCalibrations();
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
