/**
 * The live status page at `/`: plain HTML and a little JavaScript, no build step and no external
 * assets; it refreshes itself from `/status.json` every two seconds. Text goes in with textContent,
 * never as HTML. The header and the module rows are coloured by health (the worst module's for the
 * header, which names it and why); a module's name links to its objects with their status
 * (`/status.json?module=NAME`).
 */
export const STATUS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>addon-operator</title>
<link rel="icon" href="data:,">
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; background: #fafafa; }
  h1 { font-size: 1.3em; margin: 0 0 .2em; } h2 { font-size: 1.05em; margin: 1.4em 0 .4em; }
  nav a { margin-right: 1em; } #summary { margin: .6em 0; }
  table { border-collapse: collapse; width: 100%; background: #fff; }
  th, td { text-align: left; padding: .25em .6em; border-bottom: 1px solid #e4e4e4; vertical-align: top; }
  th { background: #f0f0f0; font-weight: 600; }
  .ok { color: #17702f; } .err { color: #b3261e; } .off { color: #777; } .busy { color: #8a5a00; }
  .mono { font-family: ui-monospace, monospace; font-size: 12px; }
  #stale { display: none; color: #b3261e; }
  .health-Ready { color: #17702f; } .health-Progressing { color: #8a5a00; } .health-Degraded, .health-Failed { color: #b3261e; } .health-Unknown { color: #777; }
  #summary.health-Degraded, #summary.health-Failed { background: #fde7e4; } #summary.health-Progressing { background: #fff4d6; } #summary.health-Ready { background: #e6f4ea; }
  #summary { padding: .3em .6em; border-radius: 4px; }
  tr.health-Degraded, tr.health-Failed { background: #fdf0ee; } tr.health-Progressing { background: #fffaeb; }
  tr.health-Degraded td, tr.health-Failed td, tr.health-Progressing td, tr.health-Ready td, tr.health-Unknown td { color: inherit; }
  #objects-section { display: none; }
</style>
</head>
<body>
<h1>addon-operator</h1>
<nav><a href="/metrics">/metrics</a><a href="/metrics/hooks">/metrics/hooks</a><a href="/status/converge">/status/converge</a><a href="/status.json">/status.json</a><a href="/readyz">/readyz</a></nav>
<div id="summary">loading…</div><div id="stale">the operator does not answer; showing the last state</div>
<h2>Modules</h2>
<table><thead><tr><th>#</th><th>module</th><th>state</th><th>health</th><th>why</th><th>last run</th><th>took</th><th>result</th><th>release</th></tr></thead><tbody id="modules"></tbody></table>
<div id="objects-section"><h2 id="objects-title">Objects</h2>
<table><thead><tr><th>object</th><th>status</th><th>why</th></tr></thead><tbody id="objects"></tbody></table></div>
<h2>Queues</h2>
<table><thead><tr><th>queue</th><th>length</th><th>status</th><th>head task</th></tr></thead><tbody id="queues"></tbody></table>
<h2>Last hook runs</h2>
<table><thead><tr><th>when</th><th>hook</th><th>module</th><th>binding</th><th>queue</th><th>took</th><th>result</th></tr></thead><tbody id="hooks"></tbody></table>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const time = (ms) => (ms ? new Date(ms).toLocaleTimeString() : "");
const took = (ms) => (ms === undefined ? "" : ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(2) + " s");
function row(cells) {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const td = document.createElement("td");
    const [text, cls] = Array.isArray(c) ? c : [c, ""];
    td.textContent = text === undefined || text === null ? "" : String(text);
    if (cls) td.className = cls;
    tr.appendChild(td);
  }
  return tr;
}
function fill(id, rows) { $(id).replaceChildren(...rows); }
// worst first: the header takes the worst module's health
const WORST = ["Failed", "Degraded", "Progressing", "Unknown", "Ready"];
const OBJECT_CLASS = { Current: "Ready", InProgress: "Progressing", Failed: "Degraded", Unknown: "Unknown" };
let shownModule = decodeURIComponent((location.hash.match(/^#objects-(.+)$/) || [])[1] || "");
function worst(modules) {
  let w;
  for (const m of modules) if (m.health && (!w || WORST.indexOf(m.health.health) < WORST.indexOf(w.health.health))) w = m;
  return w;
}
function link(text, href, onclick) {
  const a = document.createElement("a");
  a.textContent = text;
  a.href = href;
  a.addEventListener("click", onclick);
  return a;
}
async function showObjects() {
  if (!shownModule) { $("objects-section").style.display = "none"; return; }
  const r = await fetch("/status.json?module=" + encodeURIComponent(shownModule), { cache: "no-store" });
  const m = r.ok ? await r.json() : { objects: [] };
  $("objects-title").textContent = "Objects of " + shownModule + (m.health ? " · " + m.health.health + ": " + m.health.reason : "") + (m.objects ? "" : " (not watched)");
  $("objects-title").className = m.health ? "health-" + m.health.health : "";
  fill("objects", (m.objects || []).map((o) => Object.assign(row([o.object, [o.status, "health-" + OBJECT_CLASS[o.status]], o.message]), { className: "health-" + OBJECT_CLASS[o.status] })));
  $("objects-section").style.display = "block";
}
function render(s) {
  const c = s.converge;
  const phase = c.phase === "Done" ? (c.inProgressTasks > 0 ? "converging: " + c.inProgressTasks + " tasks left" : "converged") : c.phase === "InProgress" ? "first converge: " + c.inProgressTasks + " tasks left" : "starting";
  const w = worst(s.modules.filter((m) => m.enabled));
  $("summary").className = w ? "health-" + w.health.health : "";
  $("summary").textContent = (w ? (w.health.health === "Ready" ? "all modules Ready" : w.health.health + ": " + w.name + ": " + w.health.reason) + " · " : "") + phase + " · converges done: " + c.count + (c.lastDurationMs !== undefined ? " · last took " + took(c.lastDurationMs) : "") + (c.restarts ? " · restarts: " + c.restarts + (c.lastRestart ? " (last: " + c.lastRestart.cause + " in " + c.lastRestart.phase + " at " + time(c.lastRestart.at) + ")" : "") : "") + " · " + s.modules.filter((m) => m.enabled).length + " of " + s.modules.length + " modules enabled";
  fill("modules", s.modules.map((m) => {
    const tr = Object.assign(row([
    m.order, m.name,
    [m.enabled ? m.state + (m.waitsFor ? " (waits for " + m.waitsFor.join(", ") + ")" : "") : "disabled", m.enabled ? (m.state === "Ready" ? "ok" : "busy") : "off"],
    m.health ? [m.health.health + ": " + m.health.reason, "health-" + m.health.health] : "",
    m.reason,
    m.lastRun ? time(m.lastRun.at) : "", m.lastRun ? took(m.lastRun.durationMs) : "",
    m.lastRun ? [m.lastRun.result + (m.lastRun.error ? ": " + m.lastRun.error : ""), m.lastRun.result === "success" ? "ok" : "err"] : "",
    m.lastRun && m.lastRun.release ? m.lastRun.release : "",
  ]), { id: "module-" + m.name, title: m.lastRun ? "last run at " + new Date(m.lastRun.at).toISOString() : "", className: m.health ? "health-" + m.health.health : "" });
    if (m.enabled) {
      const name = tr.children[1];
      name.replaceChildren(link(m.name, "#objects-" + encodeURIComponent(m.name), () => { shownModule = m.name; void showObjects(); }));
    }
    return tr;
  }));
  fill("queues", s.queues.map((q) => row([q.name, q.length, q.status, [q.head || "", "mono"]])));
  fill("hooks", s.hookRuns.map((h) => row([time(h.at), h.hook, h.module || "", h.binding, h.queue, took(h.durationMs), [h.result + (h.error ? ": " + h.error : ""), h.result === "success" ? "ok" : "err"]])));
}
async function refresh() {
  try {
    const r = await fetch("/status.json", { cache: "no-store" });
    if (!r.ok) throw new Error(String(r.status));
    render(await r.json());
    await showObjects();
    $("stale").style.display = "none";
  } catch (e) {
    $("stale").style.display = "block";
  }
  setTimeout(refresh, 2000);
}
refresh();
</script>
</body>
</html>
`;
