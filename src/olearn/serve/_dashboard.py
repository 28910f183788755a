"""``GET /``: a live page of the service, one self-contained HTML document (no build step, nothing fetched from
elsewhere: its script and style are inline, and its Content-Security-Policy lets it reach this service only).

The page polls ``/metrics`` (the Prometheus text, read by the page's script), ``/bound`` and ``/versions`` (JSON)
every second and draws:

* the progressive metric (``olearn_progressive_accuracy``, or ``olearn_progressive_mae`` of a regressor) over
  time, as a line chart whose points are also in the chart's ``data-points`` attribute;
* the updates learned and the updates per second (from ``olearn_examples_learned_total`` between two polls);
* every other ``olearn_`` gauge or counter the service exposes (the feedback pending, ...), as a table: the
  page shows what the service has, and no more;
* for a learner with a bound (``GET /bound``, :mod:`._bound`), each theorem's bound beside the mistakes (or
  losses) measured on the rounds it covers, as ``olearn run --bound`` prints them; the section stays hidden for
  a learner without one;
* the versions of ``GET /versions`` when the service keeps some (the section stays hidden otherwise).

The page needs the read token, like every read: in the ``Authorization`` header, or, for a browser, as the
``token`` query parameter (``/?token=...``; the read token, which cannot write, is the one to put in a URL).
The page's script sends the same token to ``/metrics``, in the header.
"""

import json

from ._auth import READ, Refusal

# what the page may reach: this service only (its own inline script and style, and requests to the same origin)
_POLICY = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
           "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>olearn serve</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .5em; } h2 { font-size: 1.05em; margin: 1.2em 0 .4em; }
.cards { display: flex; gap: 1em; flex-wrap: wrap; }
.card { border: 1px solid #ccc; border-radius: 6px; padding: .5em 1em; min-width: 9em; }
.card b { display: block; font-size: 1.5em; }
svg { border: 1px solid #ccc; border-radius: 6px; background: #fafafa; }
table { border-collapse: collapse; } td, th { border-bottom: 1px solid #eee; padding: .2em .8em; text-align: left; }
#status { color: #888; }
</style></head>
<body>
<h1>olearn serve <span id="status">connecting...</span></h1>
<div class="cards">
  <div class="card">updates<b id="updates">-</b></div>
  <div class="card">updates / s<b id="rate">-</b></div>
  <div class="card"><span id="metric-name">progressive metric</span><b id="metric">-</b></div>
  <div class="card">rounds<b id="rounds">-</b></div>
</div>
<h2 id="chart-title">Progressive metric over time</h2>
<svg id="chart" width="720" height="240" viewBox="0 0 720 240" data-points="0" role="img">
  <polyline id="line" fill="none" stroke="#1f6feb" stroke-width="2" points=""></polyline>
  <text id="low" x="4" y="234" font-size="11" fill="#888"></text>
  <text id="high" x="4" y="12" font-size="11" fill="#888"></text>
</svg>
<h2>Metrics</h2>
<table><thead><tr><th>metric</th><th>value</th></tr></thead><tbody id="metrics"></tbody></table>
<section id="bound-section" hidden><h2>Bound</h2><p id="bound-note"></p>
<table><thead><tr><th>theorem</th><th>quantity</th><th>measured</th><th>bound</th><th>holds</th></tr></thead>
<tbody id="bound"></tbody></table></section>
<section id="versions-section" hidden><h2>Versions</h2><pre id="versions"></pre></section>
<script>
"use strict";
const token = new URLSearchParams(location.search).get("token");
const headers = token ? {Authorization: "Bearer " + token} : {};
const history = [];
let previous = null;

function parse(text) {
  const values = {};
  for (const line of text.split("\\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})?\\s+(\\S+)/);
    if (match) values[match[1] + (match[2] || "")] = Number(match[3]);
  }
  return values;
}

function show(id, value) { document.getElementById(id).textContent = value; }

function table(id, rows) {
  const body = document.getElementById(id);
  body.innerHTML = "";
  for (const cells of rows) {
    const row = document.createElement("tr");
    for (const text of cells) {
      const cell = document.createElement("td"); cell.textContent = text; row.appendChild(cell);
    }
    body.appendChild(row);
  }
}

function showBound(answer) {
  document.getElementById("bound-section").hidden = !answer.bounded;
  if (!answer.bounded) return;
  const over = answer.rounds < answer.seen ? " (the first " + answer.rounds + " of " + answer.seen + ")" : "";
  show("bound-note", answer.rows.length
    ? "On the " + answer.rounds + " rounds learned" + over + ", as olearn run --bound states them:"
    : "No bound yet: " + answer.reason);
  table("bound", answer.rows.map(r => [r.theorem, r.quantity, String(r.measured), r.bound.toPrecision(6),
                                       r.holds ? "yes" : "NO"]));
}

function draw() {
  const chart = document.getElementById("chart");
  const finite = history.filter(p => Number.isFinite(p[1]));
  chart.dataset.points = String(finite.length);
  if (!finite.length) return;
  const t0 = finite[0][0], t1 = Math.max(finite[finite.length - 1][0], t0 + 1);
  let low = Math.min(...finite.map(p => p[1])), high = Math.max(...finite.map(p => p[1]));
  if (high - low < 1e-9) { low -= 0.5; high += 0.5; }
  const points = finite.map(([t, v]) =>
    (10 + 700 * (t - t0) / (t1 - t0)).toFixed(1) + "," + (230 - 220 * (v - low) / (high - low)).toFixed(1));
  document.getElementById("line").setAttribute("points", points.join(" "));
  show("low", low.toPrecision(4)); show("high", high.toPrecision(4));
}

async function poll() {
  try {
    const answer = await fetch("metrics", {headers, cache: "no-store"});
    if (!answer.ok) throw new Error("/metrics answered " + answer.status);
    const values = parse(await answer.text());
    const now = Date.now() / 1000;
    const learned = values["olearn_examples_learned_total"];
    show("updates", values["olearn_model_updates"] ?? "-");
    if (previous && learned !== undefined) show("rate", ((learned - previous[1]) / (now - previous[0])).toFixed(1));
    if (learned !== undefined) previous = [now, learned];
    const regression = "olearn_progressive_mae" in values;
    const metric = regression ? values["olearn_progressive_mae"] : values["olearn_progressive_accuracy"];
    show("metric-name", regression ? "progressive MAE" : "progressive accuracy");
    show("metric", Number.isFinite(metric) ? metric.toFixed(4) : "-");
    show("rounds", values["olearn_progressive_rounds"] ?? "-");
    history.push([now, metric]);
    if (history.length > 600) history.shift();
    draw();
    const rows = Object.entries(values).filter(([name]) => name.startsWith("olearn_")
      && !/_(bucket|created)(\\{|$)/.test(name) && !name.startsWith("olearn_request"));
    table("metrics", rows.map(([name, value]) => [name, String(value)]));
    show("status", "live, " + new Date().toLocaleTimeString());
  } catch (err) {
    show("status", "not answering: " + err.message);
  }
  try {
    const bound = await fetch("bound", {headers, cache: "no-store"});
    if (bound.ok) showBound(await bound.json());
  } catch (err) { /* shown again at the next poll */ }
  try {
    const versions = await fetch("versions", {headers, cache: "no-store"});
    const section = document.getElementById("versions-section");
    section.hidden = !versions.ok;
    if (versions.ok) show("versions", JSON.stringify(await versions.json(), null, 1));
  } catch (err) { /* a service without versions: the section stays hidden */ }
}

poll();
setInterval(poll, 1000);
</script></body></html>
"""


def dashboard_endpoint(access):
    """The Starlette endpoint of ``GET /``: the page, for a caller with a read token (header or ``?token=``)."""
    from starlette.responses import HTMLResponse, Response

    async def dashboard(request):
        headers = request.headers
        token = request.query_params.get("token")
        if token is not None and "authorization" not in headers:
            headers = {"authorization": f"Bearer {token}"}
        try:
            access.check(headers, READ)
        except Refusal as refusal:
            return Response(json.dumps({"error": refusal.message}), status_code=refusal.status,
                            headers=refusal.headers, media_type="application/json")
        return HTMLResponse(PAGE, headers={"Content-Security-Policy": _POLICY, "Referrer-Policy": "no-referrer",
                                           "Cache-Control": "no-store"})

    return dashboard
