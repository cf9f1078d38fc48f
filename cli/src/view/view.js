"use strict";
// The page of a dst report or checked history. Everything the run says is
// data: it is drawn with fillText or set as textContent, never as markup.
(function () {
  const t0 = performance.now();
  const status = { ready: false, errors: [] };
  const statusEl = document.getElementById("dst-status");
  const publish = () => { statusEl.textContent = JSON.stringify(status); };
  window.addEventListener("error", (e) => { status.errors.push(String(e.message)); publish(); });
  const consoleError = console.error;
  console.error = function (...a) { status.errors.push(a.map(String).join(" ")); publish(); consoleError.apply(console, a); };

  let D;
  try {
    D = JSON.parse(document.getElementById("dst-data").textContent);
  } catch (e) {
    status.errors.push("the page's data is not JSON: " + e.message);
    publish();
    return;
  }
  status.parse_ms = +(performance.now() - t0).toFixed(1);
  const $ = (id) => document.getElementById(id);
  const el = (tag, text, cls) => {
    const n = document.createElement(tag);
    if (text !== undefined) n.textContent = String(text);
    if (cls) n.className = cls;
    return n;
  };

  const NS = D.unit === "ns";
  const events = Array.isArray(D.events) ? D.events : [];
  const ops = Array.isArray(D.ops) ? D.ops : [];
  const nNodes = Math.max(0, Math.min(1000, Number(D.nodes) || 0));
  const END = ops.reduce((m, o) => Math.max(m, Number(o.end) || 0, Number(o.start) || 0), Math.max(1, Number(D.end) || 0));
  // A window of a long run starts where its first event is.
  const START = Math.max(0, Math.min(END - 1, Number(D.start) || 0));
  const verdict = D.verdict || {};
  const evidence = (verdict.evidence || []).map(Number);
  const lin = D.lin && typeof D.lin === "object" ? D.lin : null;

  const fmtT = (t) => (NS ? (t / 1e6).toFixed(t < 1e7 ? 3 : 1) + " ms" : (D.unit || "position") + " " + t);
  const str = (v) => (typeof v === "string" ? v : JSON.stringify(v));

  // ---- header ----
  (function header() {
    document.title = "dst view: " + str(D.title || "");
    const v = $("verdict");
    const st = String(verdict.status || "pass");
    v.className = st;
    let line = st.toUpperCase();
    if (verdict.invariant && st !== "pass") line += " of " + verdict.invariant;
    if (verdict.message) line += ": " + str(verdict.message);
    line = str(D.title || "") + ": " + line;
    v.textContent = line;
    if (lin && lin.state !== undefined) v.textContent += "\nlongest partial linearization: " + (lin.order || []).length + " ops on key " + str(lin.key) + "; state there: " + str(lin.state);
    if (D.replay) $("replay").textContent = str(D.replay);
    else $("replay-row").hidden = true;
    const table = $("header");
    for (const row of D.header || []) {
      const tr = el("tr");
      tr.appendChild(el("td", str(row[0])));
      tr.appendChild(el("td", str(row[1])));
      table.appendChild(tr);
    }
    $("plan").textContent = (D.plan || []).length ? "plan:\n" + D.plan.map(str).join("\n") : "";
  })();

  // ---- what the trace says, per lane ----
  const byI = new Map();
  events.forEach((e) => byI.set(Number(e.i), e));
  const times = Float64Array.from(events, (e) => Number(e.t_ns) || 0);
  const nodeEvents = Array.from({ length: nNodes }, () => []);
  const roles = Array.from({ length: nNodes }, () => []);
  const downs = Array.from({ length: nNodes }, () => []);
  const marks = Array.from({ length: nNodes }, () => []);
  const cuts = Array.from({ length: nNodes }, () => []);
  const faults = [];
  const heals = [];
  const sends = new Map();
  const delivers = [];
  const kinds = new Set();
  const isNode = (n) => Number.isInteger(n) && n >= 0 && n < nNodes;
  const leaderAt = []; // [t, node] whenever a node becomes leader

  const openRole = new Array(nNodes).fill(null);
  const openDown = new Array(nNodes).fill(null);
  const closeRole = (n, t) => { if (openRole[n]) { openRole[n].t1 = t; roles[n].push(openRole[n]); openRole[n] = null; } };
  const cut = new Set(); // "a>b": messages from a to b are lost
  const cutSince = new Array(nNodes).fill(0);
  const cutState = () => {
    const inb = Array.from({ length: nNodes }, () => []);
    const outb = Array.from({ length: nNodes }, () => []);
    for (const k of cut) {
      const [a, b] = k.split(">").map(Number);
      if (isNode(a) && isNode(b)) { outb[a].push(b); inb[b].push(a); }
    }
    return { inb, outb };
  };
  let lastCut = cutState();
  const recut = (t) => {
    const now = cutState();
    for (let n = 0; n < nNodes; n++) {
      const before = lastCut.inb[n].join() + "|" + lastCut.outb[n].join();
      const after = now.inb[n].join() + "|" + now.outb[n].join();
      if (before === after) continue;
      if (lastCut.inb[n].length || lastCut.outb[n].length) cuts[n].push({ t0: cutSince[n], t1: t, inb: lastCut.inb[n], outb: lastCut.outb[n] });
      cutSince[n] = t;
    }
    lastCut = now;
  };
  const nodesOf = (v) => (Array.isArray(v) ? v.map(Number).filter(isNode) : []);
  const leaderNow = (t) => { let l = null; for (const [lt, n] of leaderAt) { if (lt <= t) l = n; else break; } return l; };
  const openFaults = [];
  const describeFault = (a) => {
    const kind = str(a.action);
    switch (kind) {
      case "partition": return "partition " + (a.groups || []).map((g) => "{" + g.join(",") + "}").join(" | ");
      case "partition-one-way": return "one-way " + (a.from || []).join(",") + " \u2192 " + (a.to || []).join(",") + " cut";
      case "isolate": return "isolate " + (typeof a.target === "object" && a.target ? str(a.target.node) : str(a.target)) + (a.inbound_only ? " (inbound only)" : "");
      case "link": return "link " + a.from + "\u2192" + a.to + " drop " + ((a.drop_per_million || 0) / 1e4).toFixed(1) + "% +" + (a.delay_ms_extra || 0) + " ms";
      default: {
        const rest = Object.assign({}, a); delete rest.action;
        return kind + " " + JSON.stringify(rest);
      }
    }
  };
  const healAll = (t) => {
    for (const f of openFaults) f.t1 = t;
    openFaults.length = 0;
    cut.clear();
    recut(t);
  };

  events.forEach((e, k) => {
    const t = times[k];
    const n = e.node;
    if (isNode(n)) nodeEvents[n].push(k);
    switch (e.kind) {
      case "model":
        if (e.model === "role" && isNode(n)) {
          closeRole(n, t);
          // A ballot names the epoch where the protocol has one: b10.0.3.
          const epoch = Array.isArray(e.ballot) ? "b" + e.ballot.map(str).join(".") : "t" + str(e.term);
          openRole[n] = { t0: t, t1: END, role: str(e.role), epoch: epoch, i: e.i };
          if (e.role === "leader") leaderAt.push([t, n]);
        }
        break;
      case "boot":
        if (isNode(n) && openDown[n]) { openDown[n].t1 = t; downs[n].push(openDown[n]); openDown[n] = null; }
        break;
      case "send":
        sends.set(Number(e.id), { t, from: n, to: e.to, msg: str(e.msg), i: e.i });
        kinds.add(str(e.msg));
        break;
      case "deliver":
        delivers.push({ t, id: Number(e.id), to: n, i: e.i });
        break;
      case "disk-loss":
        if (isNode(n)) marks[n].push({ t, what: "disk loss: lost " + e.lost + ", kept " + e.kept, color: "#c62828", i: e.i });
        break;
      case "reached":
        if (isNode(n)) marks[n].push({ t, what: "reached " + str(e.goal), color: "#2e7d32", i: e.i });
        break;
      case "panic":
        if (isNode(n)) marks[n].push({ t, what: "panic", color: "#000", i: e.i });
        break;
      case "heal": {
        heals.push({ t, i: e.i, impaired: nodesOf(e.impaired) });
        healAll(t);
        const imp = nodesOf(e.impaired);
        if (imp.length) {
          for (const m of imp) for (let o = 0; o < nNodes; o++) if (o !== m) { cut.add(o + ">" + m); cut.add(m + ">" + o); }
          const f = { t0: t, t1: END, label: "impaired after heal: " + imp.join(","), i: e.i };
          faults.push(f); openFaults.push(f);
          recut(t);
        }
        break;
      }
      case "fault": {
        const a = e.action || {};
        const kind = str(a.action);
        const node = Number(a.node);
        if (kind === "heal") { healAll(t); faults.push({ t0: t, t1: t, label: "heal", i: e.i, instant: true }); break; }
        if (kind === "crash" && isNode(node)) {
          closeRole(node, t);
          openDown[node] = { t0: t, t1: END, kind: "down", i: e.i };
        } else if (kind === "restart" && isNode(node)) {
          if (openDown[node]) { openDown[node].t1 = t; downs[node].push(openDown[node]); openDown[node] = null; }
        } else if (kind === "pause" && isNode(node)) {
          downs[node].push({ t0: t, t1: t + (Number(a.ms) || 0) * 1e6, kind: "pause", i: e.i });
        } else if (kind.startsWith("clock") && isNode(node)) {
          marks[node].push({ t, what: describeFault(a), color: "#6a1b9a", i: e.i });
        }
        const span = ["partition", "partition-one-way", "isolate", "link"].includes(kind);
        if (kind === "partition") {
          const gs = (a.groups || []).map(nodesOf);
          gs.forEach((g, x) => gs.forEach((h, y) => { if (x !== y) for (const p of g) for (const q of h) cut.add(p + ">" + q); }));
        } else if (kind === "partition-one-way") {
          for (const p of nodesOf(a.from)) for (const q of nodesOf(a.to)) cut.add(p + ">" + q);
        } else if (kind === "isolate") {
          let target = a.target && typeof a.target === "object" ? Number(a.target.node) : a.target === "leader" ? leaderNow(t) : Number(a.target);
          if (isNode(target)) for (let o = 0; o < nNodes; o++) if (o !== target) { cut.add(o + ">" + target); if (!a.inbound_only) cut.add(target + ">" + o); }
        }
        if (span) { const f = { t0: t, t1: END, label: describeFault(a), i: e.i }; faults.push(f); openFaults.push(f); recut(t); }
        else faults.push({ t0: t, t1: t, label: isNode(node) && a.ms === undefined && Object.keys(a).length === 2 ? kind + " " + node : describeFault(a), i: e.i, instant: true });
        break;
      }
    }
  });
  for (let n = 0; n < nNodes; n++) {
    closeRole(n, END);
    if (openDown[n]) { downs[n].push(openDown[n]); openDown[n] = null; }
  }
  recut(END);
  status.derive_ms = +(performance.now() - t0 - status.parse_ms).toFixed(1);
  // Overlapping fault spans share the fault row in sub-rows.
  const faultRows = [];
  for (const f of faults.filter((f) => !f.quiet)) {
    let r = faultRows.findIndex((end) => end <= f.t0);
    if (r < 0) { r = faultRows.length; faultRows.push(0); }
    faultRows[r] = Math.max(f.t1, f.t0 + 1);
    f.row = r;
  }

  const clients = [...new Set(ops.map((o) => Number(o.client)))].sort((a, b) => a - b);
  const clientRow = new Map(clients.map((c, k) => [c, k]));
  const opsOf = clients.map(() => []);
  ops.forEach((o, k) => opsOf[clientRow.get(Number(o.client))].push(k));
  const linOrder = new Map(((lin && lin.order) || []).map((o, k) => [Number(o), k + 1]));
  const unplaced = lin && lin.unplaced !== null && lin.unplaced !== undefined ? Number(lin.unplaced) : -1;

  // ---- layout ----
  const LEFT = 86, RIGHT = 12;
  const rows = [{ kind: "axis", h: 22 }];
  if (D.kind === "report") {
    rows.push({ kind: "faults", h: Math.max(1, Math.min(faultRows.length, 6)) * 14 + 10 });
    for (let n = 0; n < nNodes; n++) rows.push({ kind: "node", n, h: 38 });
  }
  clients.forEach((c, k) => rows.push({ kind: "client", c, k, h: 18 }));
  let y = 0;
  for (const r of rows) { r.y = y; y += r.h; }
  const HEIGHT = y + 8;
  const rowOfNode = (n) => rows.find((r) => r.kind === "node" && r.n === n);
  const rowOfClient = (c) => rows.find((r) => r.kind === "client" && r.c === c);

  const canvas = $("canvas");
  const ctx = canvas.getContext("2d");
  let v0 = START, v1 = END;
  let selected = null; // { i } or { op }
  const view = { arrows: false, kinds: new Set(), node: null };

  // The lanes' width, read from the layout once per frame, not per event.
  let W = 200;
  const measure = () => { W = Math.max(200, $("lanes").clientWidth); };
  const width = () => W;
  const X = (t) => LEFT + ((t - v0) / (v1 - v0)) * (width() - LEFT - RIGHT);
  const T = (x) => v0 + ((x - LEFT) / (width() - LEFT - RIGHT)) * (v1 - v0);
  const lowerBound = (arr, t, key) => { let lo = 0, hi = arr.length; while (lo < hi) { const m = (lo + hi) >> 1; if (key(arr[m]) < t) lo = m + 1; else hi = m; } return lo; };

  const ROLE = { leader: "#f4c430", candidate: "#f39c6b", "pre-candidate": "#f7d2b5", precandidate: "#f7d2b5", follower: "#dbe8f6" };
  const OP = { ok: "#9bd09f", fail: "#f2a3a3", info: "#f6d58e", open: "#d1d5db" };

  function niceStep(span) {
    const raw = span / 8;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || p * 10;
  }

  function draw() {
    const started = performance.now();
    measure();
    const w = width();
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.floor(w * dpr);
    canvas.height = Math.floor(HEIGHT * dpr);
    canvas.style.width = w + "px";
    canvas.style.height = HEIGHT + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, HEIGHT);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    const clipX = (x) => Math.max(LEFT, Math.min(w - RIGHT, x));

    // liveness phase
    for (const h of heals) {
      const x = X(h.t);
      if (x < w - RIGHT) { ctx.fillStyle = "rgba(46,125,50,0.05)"; ctx.fillRect(clipX(x), 22, w - RIGHT - clipX(x), HEIGHT - 22); }
    }
    // axis
    const step = niceStep(v1 - v0);
    ctx.strokeStyle = "#eceef2"; ctx.fillStyle = "#6b7280";
    for (let t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      const x = X(t);
      ctx.beginPath(); ctx.moveTo(x, 18); ctx.lineTo(x, HEIGHT); ctx.stroke();
      ctx.fillText(fmtT(t), x + 2, 10);
    }
    let evidenceDrawn = 0, linDrawn = false;
    for (const r of rows) {
      ctx.fillStyle = "#374151";
      ctx.fillText(r.kind === "node" ? "node " + r.n : r.kind === "client" ? "client " + r.c : r.kind === "faults" ? "faults" : "", 6, r.y + r.h / 2);
      ctx.strokeStyle = "#eef0f3";
      ctx.beginPath(); ctx.moveTo(0, r.y + r.h); ctx.lineTo(w, r.y + r.h); ctx.stroke();
      if (r.kind === "faults") drawFaults(r, clipX);
      if (r.kind === "node") drawNode(r, clipX);
      if (r.kind === "client") linDrawn = drawClient(r, clipX) || linDrawn;
    }
    for (const h of heals) {
      const x = X(h.t);
      if (x < LEFT || x > w - RIGHT) continue;
      ctx.strokeStyle = "#2e7d32"; ctx.setLineDash([4, 3]);
      ctx.beginPath(); ctx.moveTo(x, 18); ctx.lineTo(x, HEIGHT); ctx.stroke(); ctx.setLineDash([]);
      ctx.fillStyle = "#2e7d32"; ctx.fillText("heal \u2192 liveness phase", x + 3, 30);
    }
    if (view.arrows) drawArrows(w);
    for (const i of evidence) {
      const e = byI.get(i);
      if (!e) continue;
      const x = X(Number(e.t_ns));
      if (x < LEFT - 1 || x > w - RIGHT + 1) continue;
      evidenceDrawn++;
      ctx.strokeStyle = "rgba(198,40,40,0.55)"; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(x, 18); ctx.lineTo(x, HEIGHT); ctx.stroke();
      const r = rowOfEvent(e);
      if (r) {
        ctx.fillStyle = "#c62828";
        ctx.beginPath(); ctx.arc(x, r.y + r.h / 2, 5, 0, 2 * Math.PI); ctx.fill();
        ctx.fillText("evidence i=" + i, x + 7, r.y + 8);
      }
    }
    if (selected) {
      const at = selectedAt();
      if (at) { ctx.strokeStyle = "#1d4ed8"; ctx.lineWidth = 2; ctx.strokeRect(X(at.t) - 4, at.r.y + 2, Math.max(8, X(at.t1) - X(at.t) + 8), at.r.h - 4); ctx.lineWidth = 1; }
    }
    $("window").textContent = fmtT(Math.round(v0)) + " \u2013 " + fmtT(Math.round(v1));
    status.evidence_drawn = evidenceDrawn;
    status.lin_drawn = linDrawn;
    status.render_ms = +(performance.now() - started).toFixed(1);
  }

  function rowOfEvent(e) {
    if (["invoke", "ok", "fail", "info"].includes(e.kind) && clientRow.has(Number(e.client))) return rowOfClient(Number(e.client));
    if (isNode(e.node)) return rowOfNode(e.node);
    return rows.find((r) => r.kind === "faults");
  }

  function drawFaults(r, clipX) {
    for (const f of faults) {
      if (f.quiet || f.t1 < v0 || f.t0 > v1) continue;
      const yy = r.y + 5 + Math.min(f.row, 5) * 14;
      if (f.instant) {
        const x = X(f.t0);
        ctx.fillStyle = "#374151"; ctx.fillRect(x - 1, yy, 2, 12);
        ctx.fillText(f.label, x + 3, yy + 6);
        continue;
      }
      const a = clipX(X(f.t0)), b = clipX(X(f.t1));
      ctx.fillStyle = f.label.startsWith("link") ? "rgba(234,179,8,0.35)" : "rgba(198,40,40,0.22)";
      ctx.fillRect(a, yy, Math.max(1, b - a), 12);
      ctx.save(); ctx.beginPath(); ctx.rect(a, yy, Math.max(1, b - a), 12); ctx.clip();
      ctx.fillStyle = "#7f1d1d"; ctx.fillText(f.label, a + 3, yy + 6); ctx.restore();
    }
  }

  function drawNode(r, clipX) {
    const n = r.n, top = r.y + 3, h = r.h - 12;
    for (const s of roles[n]) {
      if (s.t1 < v0 || s.t0 > v1) continue;
      const a = clipX(X(s.t0)), b = clipX(X(s.t1));
      ctx.fillStyle = ROLE[s.role] || "#e5e7eb";
      ctx.fillRect(a, top, Math.max(1, b - a), h);
      if (b - a > 44) { ctx.fillStyle = "#1f2937"; ctx.fillText(s.role + " " + s.epoch, a + 3, top + 8); }
    }
    for (const d of downs[n]) {
      if (d.t1 < v0 || d.t0 > v1) continue;
      const a = clipX(X(d.t0)), b = clipX(X(d.t1));
      ctx.fillStyle = d.kind === "down" ? "rgba(17,24,39,0.78)" : "rgba(124,58,237,0.45)";
      ctx.fillRect(a, top, Math.max(2, b - a), h);
      if (b - a > 40) { ctx.fillStyle = "#fff"; ctx.fillText(d.kind === "down" ? "down" : "paused", a + 3, top + h - 7); }
    }
    for (const c of cuts[n]) {
      if (c.t1 < v0 || c.t0 > v1) continue;
      const a = clipX(X(c.t0)), b = clipX(X(c.t1));
      if (c.inb.length) { ctx.fillStyle = "#dc2626"; ctx.fillRect(a, r.y + r.h - 8, Math.max(1, b - a), 3); }
      if (c.outb.length) { ctx.fillStyle = "#f59e0b"; ctx.fillRect(a, r.y + r.h - 5, Math.max(1, b - a), 3); }
    }
    // events: a tick each, or a density strip when too many to tell apart
    const list = nodeEvents[n];
    const lo = lowerBound(list, v0, (k) => times[k]);
    const hi = lowerBound(list, v1 + 1, (k) => times[k]);
    const mid = top + h / 2 + 4;
    if (hi - lo > 4000) {
      const w = width(), bins = new Uint32Array(w);
      for (let j = lo; j < hi; j++) bins[Math.floor(X(times[list[j]]))]++;
      ctx.fillStyle = "rgba(55,65,81,0.5)";
      for (let x = LEFT; x < w - RIGHT; x++) if (bins[x]) ctx.fillRect(x, mid - Math.min(6, bins[x]), 1, Math.min(6, bins[x]) * 2);
    } else {
      for (let j = lo; j < hi; j++) {
        const e = events[list[j]];
        const x = X(times[list[j]]);
        ctx.fillStyle = e.kind === "model" ? "#1f2937" : e.kind === "drop" ? "#dc2626" : "rgba(107,114,128,0.55)";
        ctx.fillRect(x, e.kind === "model" ? mid - 4 : mid - 2, 1, e.kind === "model" ? 8 : 4);
      }
    }
    for (const m of marks[n]) {
      if (m.t < v0 || m.t > v1) continue;
      const x = X(m.t);
      ctx.fillStyle = m.color;
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x - 4, top - 3 + 9); ctx.lineTo(x + 4, top - 3 + 9); ctx.fill();
    }
  }

  function drawClient(r, clipX) {
    let linDrawn = false;
    for (const k of opsOf[r.k]) {
      const o = ops[k];
      const t1 = o.end === null || o.end === undefined ? END : Number(o.end);
      const t0 = Number(o.start);
      if (t1 < v0 || t0 > v1) continue;
      const a = clipX(X(t0)), b = clipX(X(t1));
      const top = r.y + 3, h = r.h - 6;
      ctx.fillStyle = OP[o.status] || OP.open;
      ctx.fillRect(a, top, Math.max(2, b - a), h);
      if (o.status === "open" || o.status === "info") { ctx.strokeStyle = "#9ca3af"; ctx.setLineDash([3, 2]); ctx.strokeRect(a, top, Math.max(2, b - a), h); ctx.setLineDash([]); }
      const order = linOrder.get(k);
      if (order) { ctx.strokeStyle = "#15803d"; ctx.lineWidth = 1.5; ctx.strokeRect(a, top, Math.max(2, b - a), h); ctx.lineWidth = 1; }
      if (k === unplaced) { ctx.strokeStyle = "#c62828"; ctx.lineWidth = 3; ctx.strokeRect(a - 1, top - 1, Math.max(4, b - a + 2), h + 2); ctx.lineWidth = 1; linDrawn = true; }
      let label = (order ? "#" + order + " " : "") + (k === unplaced ? "cannot place: " : "") + str(o.text);
      if (b - a > 24) { ctx.save(); ctx.beginPath(); ctx.rect(a, top, b - a, h); ctx.clip(); ctx.fillStyle = "#111827"; ctx.fillText(label, a + 3, top + h / 2); ctx.restore(); }
      else if (k === unplaced) { ctx.fillStyle = "#c62828"; ctx.fillText(label, b + 4, top + h / 2); }
    }
    return linDrawn;
  }

  function drawArrows(w) {
    const lo = lowerBound(delivers, v0, (d) => d.t);
    let drawn = 0, skipped = 0;
    ctx.lineWidth = 1;
    for (let j = lo; j < delivers.length; j++) {
      const d = delivers[j];
      const s = sends.get(d.id);
      if (!s) continue;
      if (s.t > v1) break;
      if (d.t > v1 && s.t > v1) break;
      if (view.kinds.size && !view.kinds.has(s.msg)) continue;
      if (view.node !== null && s.from !== view.node && d.to !== view.node) continue;
      if (drawn >= 4000) { skipped++; continue; }
      const ra = rowOfNode(s.from), rb = rowOfNode(d.to);
      if (!ra || !rb) continue;
      const x0 = X(s.t), y0 = ra.y + ra.h / 2, x1 = X(d.t), y1 = rb.y + rb.h / 2;
      ctx.strokeStyle = "rgba(37,99,235,0.45)";
      ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
      const ang = Math.atan2(y1 - y0, x1 - x0);
      ctx.fillStyle = "rgba(37,99,235,0.7)";
      ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x1 - 6 * Math.cos(ang - 0.4), y1 - 6 * Math.sin(ang - 0.4)); ctx.lineTo(x1 - 6 * Math.cos(ang + 0.4), y1 - 6 * Math.sin(ang + 0.4)); ctx.fill();
      drawn++;
    }
    if (skipped) { ctx.fillStyle = "#1d4ed8"; ctx.fillText(skipped + " more messages in view: zoom in", w - 260, 30); }
    status.arrows_drawn = drawn;
  }

  // ---- picking ----
  function pick(x, y) {
    const r = rows.find((r) => y >= r.y && y < r.y + r.h);
    if (!r || x < LEFT) return null;
    const t = T(x), tol = (v1 - v0) / (width() - LEFT - RIGHT) * 5;
    if (r.kind === "client") {
      for (const k of opsOf[r.k]) {
        const o = ops[k];
        const t1 = o.end === null || o.end === undefined ? END : Number(o.end);
        if (Number(o.start) - tol <= t && t <= t1 + tol) return { op: k };
      }
      return null;
    }
    if (r.kind === "faults") {
      const sub = Math.floor((y - r.y - 5) / 14);
      const f = faults.find((f) => !f.quiet && Math.min(f.row, 5) === sub && f.t0 - tol <= t && t <= Math.max(f.t1, f.t0) + tol);
      return f ? { i: f.i } : null;
    }
    if (r.kind === "node") {
      const list = nodeEvents[r.n];
      let j = lowerBound(list, t - tol, (k) => times[k]);
      let best = null, bestD = Infinity;
      for (; j < list.length && times[list[j]] <= t + tol; j++) {
        const d = Math.abs(times[list[j]] - t) + (events[list[j]].kind === "model" ? 0 : tol / 2);
        if (d < bestD) { bestD = d; best = list[j]; }
      }
      if (best !== null) return { i: Number(events[best].i) };
      const c = cuts[r.n].find((c) => c.t0 <= t && t <= c.t1);
      if (c) return { cut: c, n: r.n };
      const s = roles[r.n].find((s) => s.t0 <= t && t <= s.t1);
      return s ? { i: Number(s.i) } : null;
    }
    return null;
  }

  function selectedAt() {
    if (selected.op !== undefined) {
      const o = ops[selected.op];
      return { t: Number(o.start), t1: o.end === null || o.end === undefined ? END : Number(o.end), r: rowOfClient(Number(o.client)) };
    }
    if (selected.i !== undefined) {
      const e = byI.get(selected.i);
      if (!e) return null;
      const r = rowOfEvent(e);
      return r ? { t: Number(e.t_ns), t1: Number(e.t_ns), r } : null;
    }
    return null;
  }

  function show(sel) {
    selected = sel;
    const head = $("detail-head"), body = $("detail");
    if (!sel) { head.textContent = ""; body.textContent = ""; draw(); return; }
    if (sel.op !== undefined) {
      const o = ops[sel.op];
      const parts = [JSON.stringify(o, null, 2)];
      if (linOrder.has(sel.op)) parts.unshift("linearized as #" + linOrder.get(sel.op) + " of " + linOrder.size);
      if (sel.op === unplaced) parts.unshift("the op the checker could not place: " + str(lin.message || ""));
      for (const i of [o.invoke_i, o.complete_i]) if (i !== null && i !== undefined && byI.has(Number(i))) parts.push(JSON.stringify(byI.get(Number(i)), null, 2));
      head.textContent = "client " + o.client + ": " + str(o.text);
      body.textContent = parts.join("\n\n");
    } else if (sel.cut) {
      head.textContent = "node " + sel.n + ": links cut " + fmtT(sel.cut.t0) + " \u2013 " + fmtT(sel.cut.t1);
      body.textContent = "hears nothing from: " + (sel.cut.inb.join(", ") || "-") + "\nreaches nothing of: " + (sel.cut.outb.join(", ") || "-");
      selected = null;
    } else {
      const e = byI.get(sel.i);
      head.textContent = e ? "event i=" + e.i + " at " + fmtT(Number(e.t_ns)) + (isNode(e.node) ? " on node " + e.node : "") + (evidence.includes(Number(e.i)) ? " (evidence)" : "") : "";
      body.textContent = e ? JSON.stringify(e, null, 2) : "";
    }
    draw();
  }

  function center(t) {
    const span = v1 - v0;
    v0 = t - span / 2; v1 = t + span / 2;
    clamp(); draw();
  }

  function clamp() {
    const span = Math.min(Math.max(v1 - v0, NS ? 1000 : 2), END * 1.2 + 10);
    if (v0 < -END * 0.02) { v0 = -END * 0.02; }
    v1 = v0 + span;
    if (v1 > END * 1.02 + 1) { v1 = END * 1.02 + 1; v0 = v1 - span; }
  }

  function focus() {
    const ts = evidence.map((i) => byI.get(i)).filter(Boolean).map((e) => Number(e.t_ns));
    // The op that could not be placed, and the last ops placed before it.
    const tail = ((lin && lin.order) || []).slice(-6).map(Number);
    for (const k of unplaced >= 0 ? [unplaced, ...tail] : []) {
      const o = ops[k];
      if (!o) continue;
      ts.push(Number(o.start));
      if (o.end !== null && o.end !== undefined) ts.push(Number(o.end));
    }
    if (!ts.length) { v0 = START; v1 = END; draw(); return false; }
    const a = Math.min(...ts), b = Math.max(...ts);
    const pad = Math.max((b - a) * 0.6, END * 0.01, NS ? 2e6 : 2);
    v0 = Math.max(0, a - pad); v1 = Math.min(END, b + pad);
    if (v1 <= v0) { v0 = START; v1 = END; }
    draw();
    return true;
  }

  // ---- controls ----
  const zoom = (f, at) => { const t = at === undefined ? (v0 + v1) / 2 : at; v0 = t - (t - v0) * f; v1 = t + (v1 - t) * f; clamp(); draw(); };
  $("fit").onclick = () => { v0 = START; v1 = END; draw(); };
  $("focus").onclick = focus;
  $("zin").onclick = () => zoom(0.5);
  $("zout").onclick = () => zoom(2);
  $("arrows").onchange = (e) => { view.arrows = e.target.checked; draw(); };
  const kindsSel = $("kinds");
  [...kinds].sort().forEach((k) => kindsSel.appendChild(el("option", k)));
  if (!kinds.size) $("kinds-box").hidden = true;
  kindsSel.onchange = () => { view.kinds = new Set([...kindsSel.selectedOptions].map((o) => o.textContent)); draw(); };
  const nodeSel = $("node-filter");
  for (let n = 0; n < nNodes; n++) { const o = el("option", "node " + n); o.value = String(n); nodeSel.appendChild(o); }
  if (!nNodes) nodeSel.parentElement.hidden = true;
  nodeSel.onchange = () => { view.node = nodeSel.value === "" ? null : Number(nodeSel.value); draw(); };
  if (D.kind !== "report") { $("arrows").parentElement.hidden = true; }

  let lowered = null;
  $("search").addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter") return;
    const q = ev.target.value.trim().toLowerCase();
    const list = $("results");
    list.textContent = "";
    if (!q) { $("found").textContent = ""; return; }
    if (!lowered) lowered = events.map((e) => JSON.stringify(e).toLowerCase());
    const hits = [];
    lowered.forEach((s, k) => { if (s.includes(q)) hits.push({ i: Number(events[k].i), text: fmtT(times[k]) + "  i=" + events[k].i + "  " + JSON.stringify(events[k]) }); });
    ops.forEach((o, k) => { if (str(o.text).toLowerCase().includes(q)) hits.push({ op: k, text: "client " + o.client + "  " + str(o.text) }); });
    $("found").textContent = hits.length + " found";
    for (const h of hits.slice(0, 300)) {
      const li = el("li", h.text);
      li.onclick = () => { const sel = h.op !== undefined ? { op: h.op } : { i: h.i }; selected = sel; const at = selectedAt(); if (at) center(at.t); show(sel); };
      list.appendChild(li);
    }
  });

  let drag = null, moved = false;
  canvas.addEventListener("mousedown", (e) => { drag = { x: e.clientX, v0, v1 }; moved = false; canvas.classList.add("dragging"); });
  window.addEventListener("mouseup", () => { drag = null; canvas.classList.remove("dragging"); });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x;
    if (Math.abs(dx) > 2) moved = true;
    const dt = (dx / (width() - LEFT - RIGHT)) * (drag.v1 - drag.v0);
    v0 = drag.v0 - dt; v1 = drag.v1 - dt; clamp(); draw();
  });
  const local = (e) => { const b = canvas.getBoundingClientRect(); return [e.clientX - b.left, e.clientY - b.top]; };
  canvas.addEventListener("click", (e) => { if (moved) return; const [x, y] = local(e); show(pick(x, y)); });
  canvas.addEventListener("wheel", (e) => { e.preventDefault(); const [x] = local(e); zoom(Math.exp(e.deltaY * 0.0015), T(x)); }, { passive: false });
  const tip = $("tip");
  canvas.addEventListener("mousemove", (e) => {
    if (drag) { tip.hidden = true; return; }
    const [x, y] = local(e);
    const p = pick(x, y);
    let text = "";
    if (p && p.op !== undefined) text = "client " + ops[p.op].client + ": " + str(ops[p.op].text);
    else if (p && p.cut) text = "node " + p.n + " hears nothing from " + (p.cut.inb.join(",") || "-") + "; reaches nothing of " + (p.cut.outb.join(",") || "-");
    else if (p && byI.has(p.i)) { const ev = byI.get(p.i); text = "i=" + ev.i + " " + fmtT(Number(ev.t_ns)) + " " + str(ev.kind) + (ev.model ? ":" + str(ev.model) : "") + (ev.msg ? " " + str(ev.msg) : ""); }
    tip.hidden = !text;
    tip.textContent = text;
    tip.style.left = e.clientX + 12 + "px"; tip.style.top = e.clientY + 12 + "px";
  });
  canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
  window.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "+" || e.key === "=") zoom(0.5);
    else if (e.key === "-") zoom(2);
    else if (e.key === "0") { v0 = START; v1 = END; draw(); }
    else if (e.key === "v") focus();
    else if (e.key === "ArrowLeft") { const d = (v1 - v0) * 0.2; v0 -= d; v1 -= d; clamp(); draw(); }
    else if (e.key === "ArrowRight") { const d = (v1 - v0) * 0.2; v0 += d; v1 += d; clamp(); draw(); }
  });
  window.addEventListener("resize", draw);

  // "#arrows" and "#whole" in the address open the page with messages drawn, or on the whole run.
  const asked = new Set(location.hash.slice(1).split(","));
  if (asked.has("arrows") && D.kind === "report") { view.arrows = true; $("arrows").checked = true; }
  const focused = asked.has("whole") ? (draw(), false) : focus();
  if (evidence.length && byI.has(evidence[0])) show({ i: evidence[0] });
  else if (unplaced >= 0) show({ op: unplaced });
  Object.assign(status, {
    ready: true,
    kind: D.kind,
    nodes: nNodes,
    node_lanes: rows.filter((r) => r.kind === "node").length,
    client_lanes: clients.length,
    events: events.length,
    ops: ops.length,
    faults: faults.filter((f) => !f.quiet).length,
    evidence: evidence.length,
    focused,
    lin: !!lin,
    load_ms: +(performance.now() - t0).toFixed(1),
  });
  publish();
})();
