// The Remold playground page: editors, a call to POST /api/eval, its answer in panes, and the case shared in the
// URL fragment. Hand-written, no libraries: the page must work without a network.
"use strict";

const EDITORS = ["rules", "resource", "old", "namespaceRef", "nodeRef"];
const SETTINGS = ["operation", "namespace", "kubemodSystemNamespace"];
// The server refuses larger bodies (413); the page says so before sending them.
const MAX_BODY_BYTES = 1 << 20;
// An answer that has not come by then is given up: the page never waits forever.
const ANSWER_TIMEOUT_MS = 60000;
// Above this many line pairs the diff keeps to the common head and tail (an exact diff would take too long).
const MAX_DIFF_CELLS = 4000000;
const DEBOUNCE_MS = 700;

const $ = (id) => document.getElementById(id);
let sequence = 0;
let timer = null;
let running = null;

function currentCase() {
  const c = {};
  for (const name of EDITORS.concat(SETTINGS)) c[name] = $(name).value;
  return c;
}

function showCase(c) {
  for (const name of EDITORS.concat(SETTINGS)) $(name).value = typeof c[name] === "string" ? c[name] : "";
  $("more").open = EDITORS.slice(2).some((name) => $(name).value.trim() !== "");
  EDITORS.forEach(numberLines);
}

// ---- editors: line numbers, errors at line and column ----

function numberLines(name) {
  const area = $(name);
  const gutter = area.parentElement.querySelector(".gutter");
  const lines = area.value.split("\n").length;
  const bad = new Set((area.dataset.badLines || "").split(",").filter(Boolean).map(Number));
  const out = [];
  for (let i = 1; i <= lines; i++) out.push(bad.has(i) ? '<span class="bad">' + i + "</span>" : String(i));
  gutter.innerHTML = out.join("\n") + "\n";
  gutter.scrollTop = area.scrollTop;
}

function showErrors(errors) {
  const bySource = {};
  for (const e of errors) (bySource[e.source] = bySource[e.source] || []).push(e);
  for (const name of EDITORS.concat(["request"])) {
    const list = $(name + "-errors");
    list.replaceChildren();
    const mine = bySource[name] || [];
    for (const e of mine) {
      const item = document.createElement("li");
      // eval's message names the file, document, line and column itself; a click selects the place
      item.textContent = e.message;
      item.className = "error";
      item.dataset.line = e.line;
      item.dataset.column = e.column;
      if (e.line > 0 && name !== "request") item.addEventListener("click", () => select(name, e.line, e.column));
      list.appendChild(item);
    }
    if (name !== "request") {
      $(name).dataset.badLines = mine.filter((e) => e.line > 0).map((e) => e.line).join(",");
      numberLines(name);
      if (mine.length && EDITORS.indexOf(name) >= 2) $("more").open = true;
    }
  }
}

function select(name, line, column) {
  const area = $(name);
  const lines = area.value.split("\n");
  let at = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) at += lines[i].length + 1;
  at += Math.max(0, column - 1);
  area.focus();
  area.setSelectionRange(at, at + 1);
}

// ---- evaluation ----

function scheduleEvaluation() {
  clearTimeout(timer);
  if ($("auto").checked) timer = setTimeout(evaluate, DEBOUNCE_MS);
}

async function evaluate() {
  clearTimeout(timer);
  const mine = ++sequence;
  if (running) running.abort();
  const body = JSON.stringify(currentCase());
  const bytes = new TextEncoder().encode(body).length;
  if (bytes > MAX_BODY_BYTES) {
    showProblem("The case has " + bytes + " bytes; the playground takes at most " + MAX_BODY_BYTES
      + " (1 MiB) of rules and objects. Nothing was evaluated.");
    return;
  }
  const controller = new AbortController();
  running = controller;
  const giveUp = setTimeout(() => controller.abort("timeout"), ANSWER_TIMEOUT_MS);
  setStatus("evaluating…");
  try {
    const response = await fetch("api/eval", {
      method: "POST", headers: {"Content-Type": "application/json"}, body, signal: controller.signal});
    const text = await response.text();
    if (mine !== sequence) return;
    const answer = parsed(text);
    if (!response.ok || answer === null) {
      showProblem("The server refused the evaluation (HTTP " + response.status + "): "
        + (answer && answer.problem ? answer.problem : text.slice(0, 500)));
    } else {
      showAnswer(answer);
    }
  } catch (e) {
    if (mine !== sequence) return;
    showProblem(controller.signal.reason === "timeout"
      ? "No answer within " + ANSWER_TIMEOUT_MS / 1000 + " s: the evaluation was given up."
      : "The playground server cannot be reached: " + e);
  } finally {
    clearTimeout(giveUp);
    if (running === controller) running = null;
  }
}

// The JSON object of an answer; null for anything else (an error page of the web server).
function parsed(text) {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" ? value : null;
  } catch (e) {
    return null;
  }
}

function setStatus(text) {
  $("status").textContent = text;
}

function showProblem(text) {
  setStatus("");
  $("problem").textContent = text;
  $("problem").hidden = false;
}

function showAnswer(answer) {
  $("problem").hidden = true;
  setStatus("evaluated at " + new Date().toLocaleTimeString());
  showErrors(answer.errors || []);
  const verdict = $("verdict");
  const panes = {result: "", patch: "", diff: null, explain: ""};
  if (answer.errors && answer.errors.length) {
    verdict.className = "verdict rejected";
    verdict.textContent = "Input error: nothing was evaluated (see the messages under the editors).";
  } else if (answer.allowed) {
    verdict.className = "verdict allowed";
    verdict.textContent = "Allowed" + (answer.patch.length ? ", patched with " + answer.patch.length
      + " operation" + (answer.patch.length === 1 ? "" : "s") : ", unchanged");
    panes.result = answer.after;
    panes.patch = answer.patch.length ? "[\n" + answer.patch.map((op) => "  " + JSON.stringify(op)).join(",\n")
      + "\n]" : "[]";
    panes.diff = diff(answer.before, answer.after);
  } else {
    verdict.className = "verdict rejected";
    verdict.textContent = "Rejected: " + answer.rejection;
    panes.result = "(rejected: no object)";
    panes.patch = "(rejected: no patch)";
  }
  panes.explain = (answer.explain || []).join("\n");
  $("result").textContent = panes.result;
  $("patch").textContent = panes.patch;
  $("explain").textContent = panes.explain;
  $("diff").replaceChildren(...(panes.diff || []));
  const warnings = answer.warnings || [];
  $("warnings").replaceChildren(...warnings.map((w) => {
    const item = document.createElement("li");
    item.textContent = "⚠ " + w;
    return item;
  }));
  $("warning-count").textContent = warnings.length ? "(" + warnings.length + ")" : "";
}

// ---- diff: a line diff of the object's YAML before and after ----

function diff(beforeText, afterText) {
  const a = beforeText.split("\n");
  const b = afterText.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const lines = a.slice(0, head).map((l) => [" ", l]);
  if (midA.length * midB.length <= MAX_DIFF_CELLS) {
    lines.push(...lcsLines(midA, midB));
  } else {
    midA.forEach((l) => lines.push(["-", l]));
    midB.forEach((l) => lines.push(["+", l]));
  }
  a.slice(a.length - tail).forEach((l) => lines.push([" ", l]));
  return lines.map(([mark, text]) => {
    const span = document.createElement("span");
    span.className = mark === "+" ? "add" : mark === "-" ? "del" : "same";
    span.textContent = mark + " " + text;
    return span;
  });
}

// Longest common subsequence of lines, walked back into removed, added and kept lines.
function lcsLines(a, b) {
  const n = a.length, m = b.length;
  const table = Array.from({length: n + 1}, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const out = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) { out.push([" ", a[i]]); i++; j++; }
    else if (table[i + 1][j] >= table[i][j + 1]) out.push(["-", a[i++]]);
    else out.push(["+", b[j++]]);
  }
  while (i < n) out.push(["-", a[i++]]);
  while (j < m) out.push(["+", b[j++]]);
  return out;
}

// ---- sharing: the case in the URL fragment, deflated when the browser can ----

function toBase64Url(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const raw = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(raw, (ch) => ch.charCodeAt(0));
}

async function transform(bytes, stream) {
  const piped = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(piped).arrayBuffer());
}

async function encodeCase(c) {
  const json = new TextEncoder().encode(JSON.stringify(c));
  if (typeof CompressionStream === "function") {
    return "z=" + toBase64Url(await transform(json, new CompressionStream("deflate-raw")));
  }
  return "j=" + toBase64Url(json);
}

async function decodeCase(fragment) {
  const kind = fragment.slice(0, 2);
  const bytes = fromBase64Url(fragment.slice(2));
  const json = kind === "z=" ? await transform(bytes, new DecompressionStream("deflate-raw"))
    : kind === "j=" ? bytes : null;
  if (json === null) throw new Error("the URL fragment is not a shared case");
  return JSON.parse(new TextDecoder().decode(json));
}

async function share() {
  const fragment = await encodeCase(currentCase());
  history.replaceState(null, "", "#" + fragment);
  $("share-url").value = location.href;
  $("share-url").select();
  setStatus("the case is in the URL (" + location.href.length + " characters)");
}

// ---- examples ----

async function loadExamples() {
  const response = await fetch("api/examples");
  const list = (await response.json()).examples;
  for (const id of list) {
    const option = document.createElement("option");
    option.value = id;
    option.textContent = id;
    $("example").appendChild(option);
  }
  return list;
}

async function loadExample(id) {
  const response = await fetch("api/examples/" + id);
  const c = await response.json();
  if (!response.ok) {
    showProblem(c.problem);
    return;
  }
  showCase(c);
  await evaluate();
}

// ---- start ----

async function start() {
  for (const name of EDITORS) {
    const area = $(name);
    area.addEventListener("input", () => {
      $("example").value = ""; // edited: no longer the example, and choosing it again loads it again
      numberLines(name);
      scheduleEvaluation();
    });
    area.addEventListener("scroll", () => { area.parentElement.querySelector(".gutter").scrollTop = area.scrollTop; });
  }
  for (const name of SETTINGS) $(name).addEventListener("input", scheduleEvaluation);
  $("evaluate").addEventListener("click", evaluate);
  $("share").addEventListener("click", share);
  $("example").addEventListener("change", () => { if ($("example").value) loadExample($("example").value); });
  for (const tab of document.querySelectorAll(".tabs button")) {
    tab.addEventListener("click", () => {
      for (const other of document.querySelectorAll(".tabs button")) {
        other.classList.toggle("active", other === tab);
        $(other.dataset.tab).hidden = other !== tab;
      }
    });
  }
  const list = await loadExamples();
  if (location.hash.length > 1) {
    try {
      showCase(await decodeCase(location.hash.slice(1)));
      await evaluate();
    } catch (e) {
      showProblem("The shared case in this URL cannot be read: " + e.message);
    }
  } else if (list.length) {
    $("example").value = list[0];
    await loadExample(list[0]);
  }
  document.body.dataset.ready = "true";
}

start();
