// tcplab run viewer: written for tcplab (no libraries). Reads the header JSON and the packed
// event columns embedded in this page, and draws the topology, the packets, a timeline and the
// per-flow plots at the cursor time. State for tests: window.tcplabView.
"use strict";
(function () {
  const H = JSON.parse(document.getElementById("tcplab-header").textContent);
  const M = H.meta;
  const NONE = 65535;
  const COLORS = {
    tcp_data: "#1f6fd1", tcp_ack: "#23a047", routing: "#8e44c9", udp: "#f08a0b", icmp: "#8c564b",
    mac_rts: "#9aa3ad", mac_cts: "#9aa3ad", mac_ack: "#9aa3ad", arp: "#17becf",
  };
  const LEGEND = [["tcp_data", "TCP data"], ["tcp_ack", "TCP ACK"], ["routing", "routing control"],
    ["udp", "UDP"], ["icmp", "ICMP"], ["arp", "ARP"], ["mac_rts", "RTS/CTS/ACK"]];
  const FLOWCOL = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324"];
  const EV = Object.fromEntries(M.events.map((n, i) => [n, i]));
  const CL = Object.fromEntries(M.classes.map((n, i) => [n, i]));
  const MAC = new Set([CL.mac_rts, CL.mac_cts, CL.mac_ack]);
  const nodes = M.nodes;
  const N = nodes.length;
  const $ = (id) => document.getElementById(id);
  const state = { t: H.t_from, playing: false, speed: 1, v0: H.t_from, v1: H.t_to, sel: -1, flow: 0,
    scale: 1, ox: 0, oy: 0, drawnDrops: [], drawnTx: [], cursor: {} };
  const view = { state, errors: [] };
  window.tcplabView = view;

  // ------------------------------------------------------------------ data
  let C = null; // columns
  const TYPES = { "<f8": Float64Array, "<f4": Float32Array, "<u4": Uint32Array, "<u2": Uint16Array, "u1": Uint8Array };
  function columns(buf) {
    const c = {};
    for (const [k, [off, dt]] of Object.entries(H.columns)) {
      const T = TYPES[dt];
      c[k] = new T(buf, off, H.rows);
    }
    // times: whole microseconds, each the difference from the row before
    c.t_s = new Float64Array(H.rows);
    for (let i = 0, us = 0; i < H.rows; i++) { us += c.dt_us[i]; c.t_s[i] = us / 1e6; }
    return c;
  }
  // First index with t_s > x (upper bound), or >= x with strict=false.
  function bisect(arr, x, lo, hi, strict) {
    lo = lo || 0; hi = hi === undefined ? arr.length : hi;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (strict ? arr[m] <= x : arr[m] < x) lo = m + 1; else hi = m;
    }
    return lo;
  }
  // The same upper bound over n sorted keys read through at(k): the first k with at(k) > x.
  function upper(n, at, x) {
    let lo = 0, hi = n;
    while (lo < hi) { const m = (lo + hi) >> 1; if (at(m) <= x) lo = m + 1; else hi = m; }
    return lo;
  }
  // Rows (indices into the columns, in time order) up to t: the upper bound of t among their times.
  const rowsUpTo = (rows, t) => upper(rows.length, (m) => C.t_s[rows[m]], t);

  // Tracks: per node, points sorted by time; position = p + v (t - t_k).
  const tracks = Array.from({ length: N }, () => []);
  for (const [n, t, x, y, vx, vy] of H.tracks) tracks[n].push([t, x, y, vx, vy]);
  for (const tr of tracks) tr.sort((a, b) => a[0] - b[0]);
  function position(n, t) {
    const tr = tracks[n];
    if (!tr.length) return [0, 0];
    const p = tr[Math.max(0, upper(tr.length, (m) => tr[m][0], t) - 1)];
    const dt = Math.max(0, t - p[0]);
    return [p[1] + p[3] * dt, p[2] + p[4] * dt];
  }
  const wlanOf = Array(N).fill(-1);
  M.wlans.forEach((w, k) => w.nodes.forEach((n) => { if (wlanOf[n] < 0) wlanOf[n] = k; }));
  const isAp = new Set(M.wlans.filter((w) => w.ap !== null).map((w) => w.ap));

  // Per node, times of each counter's events (counters at the cursor are two binary searches).
  const CATS = ["sent", "received", "collided", "errors", "drops", "link failures"];
  function catOf(e) {
    if (e === EV.tx) return 0;
    if (e === EV.rx_ok) return 1;
    if (e === EV.rx_collision) return 2;
    if (e === EV.rx_error) return 3;
    if (e === EV.drop) return 4;
    if (e === EV.link_fail) return 5;
    return -1;
  }
  let nodeCat = null, nodeRows = null, classTx = null, dropT = null, flowDataTx = null;
  // What the first frame needs (the timeline's transmissions by kind, the drops, each flow's data
  // transmissions for its route): one pass over the rows at load.
  function index() {
    const rows = H.rows;
    const ccount = new Uint32Array(M.classes.length);
    let nd = 0;
    for (let i = 0; i < rows; i++) {
      const e = C.event[i];
      if (e === EV.tx) ccount[C["class"][i]]++;
      else if (e === EV.drop || e === EV.link_fail) nd++;
    }
    classTx = Array.from(ccount, (k) => new Float64Array(k));
    dropT = new Float64Array(nd); // times of the drops and link failures
    const cfill = new Uint32Array(M.classes.length);
    const fd = M.flows.map(() => []);
    nd = 0;
    for (let i = 0; i < rows; i++) {
      const e = C.event[i];
      if (e === EV.tx) {
        const k = C["class"][i];
        classTx[k][cfill[k]++] = C.t_s[i];
        const f = C.flow[i];
        if (f !== NONE && f < fd.length && (k === CL.tcp_data || k === CL.udp)) fd[f].push(i);
      } else if (e === EV.drop || e === EV.link_fail) dropT[nd++] = C.t_s[i];
    }
    flowDataTx = fd.map((a) => Uint32Array.from(a));
  }
  // Per node, its rows and the times of each counter's events (counters at the cursor are two
  // binary searches): built the first time a node is selected, not at load.
  function nodeIndex() {
    if (nodeRows) return;
    const rows = H.rows;
    const cnt = Array.from({ length: N }, () => new Uint32Array(CATS.length));
    const nr = new Uint32Array(N);
    for (let i = 0; i < rows; i++) {
      const c = catOf(C.event[i]);
      if (c >= 0) cnt[C.node[i]][c]++;
      nr[C.node[i]]++;
    }
    nodeCat = cnt.map((a) => Array.from(a, (k) => new Float64Array(k)));
    nodeRows = Array.from(nr, (k) => new Uint32Array(k));
    const fill = cnt.map(() => new Uint32Array(CATS.length));
    const nfill = new Uint32Array(N);
    for (let i = 0; i < rows; i++) {
      const n = C.node[i], c = catOf(C.event[i]);
      if (c >= 0) nodeCat[n][c][fill[n][c]++] = C.t_s[i];
      nodeRows[n][nfill[n]++] = i;
    }
  }

  // Routing tables: the event trace's route rows (t, node, destination, next hop or -1, hops), per
  // node in time order; a node's table at t is its rows up to t replayed.
  const RT = H.routes;
  const routeRows = Array.from({ length: N }, () => []);
  for (let k = 0; k < RT[0].length; k++) routeRows[RT[1][k]].push(k);
  function routeTable(n, t) {
    const table = new Map();
    for (const k of routeRows[n]) {
      if (RT[0][k] > t) break;
      if (RT[3][k] < 0) table.delete(RT[2][k]); else table.set(RT[2][k], [RT[3][k], RT[4][k], RT[0][k]]);
    }
    return [...table.entries()].sort((a, b) => a[0] - b[0]).map(([d, [nx, h, since]]) => ({ dst: nodes[d], next: nodes[nx], hops: h, since }));
  }

  // ------------------------------------------------------------------ topology
  const topo = $("topo"), tctx = topo.getContext("2d");
  let bounds = null;
  function computeBounds() {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const tr of tracks) for (const p of tr) { x0 = Math.min(x0, p[1]); x1 = Math.max(x1, p[1]); y0 = Math.min(y0, p[2]); y1 = Math.max(y1, p[2]); }
    if (!isFinite(x0)) { x0 = y0 = 0; x1 = y1 = 1; }
    const pad = Math.max(20, 0.06 * Math.max(x1 - x0, y1 - y0));
    bounds = [x0 - pad, y0 - pad, x1 + pad, y1 + pad];
  }
  function fit() {
    // margins: names above the nodes, the legend below
    const w = topo.clientWidth - 60, h = topo.clientHeight - 110;
    const bw = bounds[2] - bounds[0] || 1, bh = bounds[3] - bounds[1] || 1;
    state.scale = Math.min(w / bw, h / bh);
    state.ox = 30 + (w - bw * state.scale) / 2 - bounds[0] * state.scale;
    state.oy = 40 + (h - bh * state.scale) / 2 - bounds[1] * state.scale;
  }
  const sx = (x) => x * state.scale + state.ox;
  const sy = (y) => y * state.scale + state.oy;
  function resize(c) {
    const r = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(c.clientWidth * r)), h = Math.max(1, Math.round(c.clientHeight * r));
    if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
    const ctx = c.getContext("2d");
    ctx.setTransform(r, 0, 0, r, 0, 0);
    return ctx;
  }
  // What does not move with the cursor (the timeline's histogram, a plot's curve) is drawn once
  // per zoom into an offscreen canvas and copied each frame.
  const caches = new Map();
  function cached(c, key, draw) {
    const r = window.devicePixelRatio || 1;
    let e = caches.get(c.id);
    if (!e || e.key !== key || e.canvas.width !== c.width || e.canvas.height !== c.height) {
      const off = document.createElement("canvas"); off.width = c.width; off.height = c.height;
      const octx = off.getContext("2d"); octx.setTransform(r, 0, 0, r, 0, 0);
      e = { key, canvas: off, extra: draw(octx) };
      caches.set(c.id, e);
    }
    const ctx = c.getContext("2d");
    ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.clearRect(0, 0, c.width, c.height); ctx.drawImage(e.canvas, 0, 0);
    ctx.setTransform(r, 0, 0, r, 0, 0);
    return e.extra;
  }
  function trail() { return Math.min(5, Math.max(0.002, 0.3 * state.speed)); }
  function arrow(ctx, x0, y0, x1, y1, head) {
    const dx = x1 - x0, dy = y1 - y0, L = Math.hypot(dx, dy) || 1;
    const ux = dx / L, uy = dy / L, r = 9;
    const ax = x0 + ux * r, ay = y0 + uy * r, bx = x1 - ux * r, by = y1 - uy * r;
    ctx.beginPath(); ctx.moveTo(ax, ay); ctx.lineTo(bx, by); ctx.stroke();
    if (head) {
      ctx.beginPath(); ctx.moveTo(bx, by);
      ctx.lineTo(bx - ux * head - uy * head * 0.5, by - uy * head + ux * head * 0.5);
      ctx.lineTo(bx - ux * head + uy * head * 0.5, by - uy * head - ux * head * 0.5);
      ctx.closePath(); ctx.fill();
    }
  }
  function drawTopo() {
    const ctx = tctx, t = state.t;
    const w = topo.clientWidth, h = topo.clientHeight;
    ctx.clearRect(0, 0, w, h);
    const pos = []; const drawn = {};
    for (let n = 0; n < N; n++) { const p = position(n, t); pos.push(p); drawn[nodes[n]] = p; }
    state.positions = drawn;
    // grid (10 m .. 1 km steps, whatever gives ~80 px)
    const want = 80 / state.scale, dec = Math.pow(10, Math.floor(Math.log10(want)));
    const stepM = [1, 2, 5, 10].map((k) => k * dec).find((v) => v >= want);
    ctx.strokeStyle = "#eef1f4"; ctx.lineWidth = 1; ctx.beginPath();
    for (let x = Math.floor((-state.ox / state.scale) / stepM) * stepM; sx(x) < w; x += stepM) { ctx.moveTo(sx(x), 0); ctx.lineTo(sx(x), h); }
    for (let y = Math.floor((-state.oy / state.scale) / stepM) * stepM; sy(y) < h; y += stepM) { ctx.moveTo(0, sy(y)); ctx.lineTo(w, sy(y)); }
    ctx.stroke();
    ctx.fillStyle = "#8a95a1"; ctx.font = "11px system-ui"; ctx.fillText(`grid ${stepM} m`, 8, 14);
    // ranges
    if ($("ranges").checked) {
      for (let n = 0; n < N; n++) {
        const k = wlanOf[n]; if (k < 0) continue;
        if (state.sel >= 0 && state.sel !== n) continue;
        const wl = M.wlans[k];
        ctx.lineWidth = 1;
        ctx.strokeStyle = "rgba(31,111,209,.35)"; ctx.fillStyle = "rgba(31,111,209,.04)";
        ctx.beginPath(); ctx.arc(sx(pos[n][0]), sy(pos[n][1]), wl.rx_range_m * state.scale, 0, 7); ctx.fill(); ctx.stroke();
        ctx.setLineDash([5, 4]); ctx.strokeStyle = "rgba(120,130,140,.45)";
        ctx.beginPath(); ctx.arc(sx(pos[n][0]), sy(pos[n][1]), wl.cs_range_m * state.scale, 0, 7); ctx.stroke();
        ctx.setLineDash([]);
      }
    }
    // wired links
    ctx.strokeStyle = "#5b6673"; ctx.lineWidth = 2.5;
    for (const l of M.links) { ctx.beginPath(); ctx.moveTo(sx(pos[l.a][0]), sy(pos[l.a][1])); ctx.lineTo(sx(pos[l.b][0]), sy(pos[l.b][1])); ctx.stroke(); }
    // AP associations
    ctx.setLineDash([3, 3]); ctx.strokeStyle = "#9aa3ad"; ctx.lineWidth = 1;
    for (const wl of M.wlans) {
      if (wl.ap === null) continue;
      for (const n of wl.nodes) if (n !== wl.ap) { ctx.beginPath(); ctx.moveTo(sx(pos[n][0]), sy(pos[n][1])); ctx.lineTo(sx(pos[wl.ap][0]), sy(pos[wl.ap][1])); ctx.stroke(); }
    }
    ctx.setLineDash([]);
    if (!C) return;
    // the selected flow's route now: from its sender, the next hop each node last sent the
    // flow's data to (within max(2 s, trail)), followed until the receiver or a node that has not
    // forwarded it lately
    const fl = state.flow;
    const route = [];
    const fdesc = M.flows[fl];
    if ($("route").checked && fdesc && flowDataTx && flowDataTx[fl]) {
      const idx = flowDataTx[fl]; const win = Math.max(2, trail());
      const next = new Map();
      for (let j = rowsUpTo(idx, t) - 1; j >= 0 && C.t_s[idx[j]] > t - win; j--) {
        const i = idx[j];
        if (C.peer[i] !== NONE && !next.has(C.node[i])) next.set(C.node[i], C.peer[i]);
      }
      const src = fdesc.kind === "tcp" ? fdesc.server : fdesc.src, dst = fdesc.kind === "tcp" ? fdesc.client : fdesc.dst;
      const seen = new Set([src]);
      for (let u = src; u !== dst && next.has(u);) {
        const v = next.get(u); route.push([u, v]);
        if (seen.has(v)) break; seen.add(v); u = v;
      }
      ctx.strokeStyle = FLOWCOL[fl % FLOWCOL.length] + "55"; ctx.fillStyle = ctx.strokeStyle; ctx.lineWidth = 12; ctx.lineCap = "round";
      for (const [a, b] of route) arrow(ctx, sx(pos[a][0]), sy(pos[a][1]), sx(pos[b][0]), sy(pos[b][1]), 0);
      ctx.lineCap = "butt";
    }
    state.route = route.map(([a, b]) => [nodes[a], nodes[b]]);
    // packets in (t - trail, t], aggregated per (node, peer, class, event): decimation by what can be seen
    const tr = trail();
    const lo = bisect(C.t_s, t - tr, 0, H.rows, true), hi = bisect(C.t_s, t, 0, H.rows, true);
    const showMac = $("macctl").checked;
    const agg = new Map();
    const dropsNow = [];
    const dropWin = Math.max(tr, 0.5);
    const dlo = bisect(C.t_s, t - dropWin, 0, H.rows, true);
    for (let i = dlo; i < hi; i++) {
      const e = C.event[i];
      if (e === EV.drop || e === EV.link_fail) { dropsNow.push(i); continue; }
      if (i < lo) continue;
      const k = C["class"][i];
      if (MAC.has(k) && !showMac) continue;
      if (e === EV.rx_ok) continue;
      const key = ((C.node[i] * 65536 + C.peer[i]) * 16 + k) * 8 + e;
      const a = agg.get(key);
      if (a) { a.n++; a.last = i; } else agg.set(key, { n: 1, last: i, first: i });
    }
    const txs = [];
    for (const a of agg.values()) {
      const i = a.last, e = C.event[i], k = C["class"][i], n = C.node[i], p = C.peer[i];
      const age = (t - C.t_s[i]) / tr;
      const alpha = Math.max(0.25, 1 - age);
      const [x0, y0] = [sx(pos[n][0]), sy(pos[n][1])];
      ctx.globalAlpha = alpha;
      if (e === EV.tx) {
        ctx.strokeStyle = COLORS[M.classes[k]] || "#333"; ctx.fillStyle = ctx.strokeStyle;
        ctx.lineWidth = Math.min(6, 2 + Math.log2(a.n));
        if (p === NONE) {
          const wl = M.wlans[wlanOf[n]]; const r = (wl ? wl.rx_range_m : 50) * state.scale * (0.3 + 0.7 * Math.min(1, age));
          ctx.beginPath(); ctx.arc(x0, y0, Math.max(12, r), 0, 7); ctx.stroke();
        } else {
          arrow(ctx, x0, y0, sx(pos[p][0]), sy(pos[p][1]), 9);
        }
        txs.push({ node: nodes[n], peer: p === NONE ? "broadcast" : nodes[p], kind: M.classes[k], t: C.t_s[i], count: a.n });
      } else {
        // collision / error / missed at the addressee: an orange burst
        ctx.strokeStyle = e === EV.rx_error ? "#c0392b" : "#ff9900"; ctx.lineWidth = 1.5;
        ctx.globalAlpha = alpha * 0.8;
        for (let r = 0; r < 4; r++) {
          const ang = r * Math.PI / 4 + Math.PI / 8;
          ctx.beginPath(); ctx.moveTo(x0 + Math.cos(ang) * 11, y0 + Math.sin(ang) * 11); ctx.lineTo(x0 - Math.cos(ang) * 11, y0 - Math.sin(ang) * 11); ctx.stroke();
        }
      }
    }
    ctx.globalAlpha = 1;
    state.drawnTx = txs;
    // nodes
    for (let n = 0; n < N; n++) {
      const x = sx(pos[n][0]), y = sy(pos[n][1]);
      const wired = wlanOf[n] < 0;
      ctx.fillStyle = n === state.sel ? "#ffd54a" : isAp.has(n) ? "#37474f" : wired ? "#cfd8dc" : "#ffffff";
      ctx.strokeStyle = "#263238"; ctx.lineWidth = n === state.sel ? 3 : 1.5;
      ctx.beginPath();
      if (wired || isAp.has(n)) ctx.rect(x - 8, y - 8, 16, 16); else ctx.arc(x, y, 8, 0, 7);
      ctx.fill(); ctx.stroke();
      const f = M.flows[state.flow];
      if (f && (n === (f.server ?? f.src) || n === (f.client ?? f.dst))) {
        ctx.strokeStyle = FLOWCOL[state.flow % FLOWCOL.length]; ctx.lineWidth = 2.5;
        ctx.beginPath(); ctx.arc(x, y, 12, 0, 7); ctx.stroke();
      }
      if ($("labels").checked) {
        ctx.fillStyle = "#1d232b"; ctx.font = "12px system-ui"; ctx.textAlign = "center";
        ctx.fillText(nodes[n], x, y - 13); ctx.textAlign = "start";
      }
    }
    // drops: a red cross with the reason at the node, one line per (node, reason, kind)
    const dd = [];
    ctx.font = "bold 11px system-ui";
    const groups = new Map();
    for (const i of dropsNow) {
      const n = C.node[i];
      const reason = C.event[i] === EV.link_fail ? "MAC gave up" : M.reasons[C.reason[i]];
      dd.push({ node: nodes[n], reason, kind: M.classes[C["class"][i]], t: C.t_s[i] });
      const key = `${n}|${reason}|${C["class"][i]}`;
      const g = groups.get(key);
      if (g) g.count++; else groups.set(key, { n, reason, link: C.event[i] === EV.link_fail, kind: M.classes[C["class"][i]], count: 1 });
    }
    const rowAt = new Map();
    for (const g of groups.values()) {
      const k = rowAt.get(g.n) || 0; rowAt.set(g.n, k + 1);
      if (k >= 4) continue;
      const x = sx(pos[g.n][0]), y = sy(pos[g.n][1]);
      ctx.strokeStyle = g.link ? "#e67e22" : "#d62728"; ctx.lineWidth = 3;
      const cx = x + 13, cy = y + 11 + k * 14;
      ctx.beginPath(); ctx.moveTo(cx - 4, cy - 4); ctx.lineTo(cx + 4, cy + 4); ctx.moveTo(cx + 4, cy - 4); ctx.lineTo(cx - 4, cy + 4); ctx.stroke();
      const label = `${g.reason.replace(/_/g, " ")}${g.count > 1 ? " ×" + g.count : ""} · ${g.kind.replace("_", " ")}`;
      ctx.lineWidth = 3; ctx.strokeStyle = "rgba(255,255,255,.9)"; ctx.strokeText(label, cx + 8, cy + 4);
      ctx.fillStyle = g.link ? "#c0610f" : "#c21f1f"; ctx.fillText(label, cx + 8, cy + 4);
    }
    state.drawnDrops = dd;
  }

  // ------------------------------------------------------------------ timeline
  const tl = $("timeline");
  function tlx(t) { return (t - state.v0) / (state.v1 - state.v0) * tl.clientWidth; }
  function tlt(x) { return state.v0 + x / tl.clientWidth * (state.v1 - state.v0); }
  // How many of the sorted times `arr` fall in each pixel column of the timeline's span: the
  // timeline's decimation to the zoom.
  function perColumn(arr, cols) {
    const out = new Float64Array(cols);
    let prev = bisect(arr, state.v0, 0, arr.length, false);
    for (let c = 0; c < cols; c++) {
      const nx = bisect(arr, tlt(c + 1), prev, arr.length, false);
      out[c] = nx - prev; prev = nx;
    }
    return out;
  }
  function drawTimeline() {
    const ctx = resize(tl); const w = tl.clientWidth, h = tl.clientHeight;
    if (!C) return;
    const hh = h - 14;
    cached(tl, `${state.v0}|${state.v1}|${w}|${h}`, (ctx) => {
      // transmissions per pixel column, stacked by class
      const order = ["tcp_data", "tcp_ack", "routing", "udp", "icmp"];
      const cols = Math.max(1, Math.floor(w));
      const counts = order.map((name) => perColumn(classTx[CL[name]], cols));
      let max = 1;
      for (let c = 0; c < cols; c++) { let sum = 0; for (const k of counts) sum += k[c]; max = Math.max(max, sum); }
      const base = new Float64Array(cols);
      order.forEach((name, k) => {
        ctx.fillStyle = COLORS[name];
        for (let c = 0; c < cols; c++) {
          if (!counts[k][c]) continue;
          const y0 = hh - base[c] / max * (hh - 6), y1 = hh - (base[c] + counts[k][c]) / max * (hh - 6);
          ctx.fillRect(c, y1, 1, y0 - y1); base[c] += counts[k][c];
        }
      });
      // drops and link failures: a red tick on each column that has any
      ctx.fillStyle = "#d62728";
      perColumn(dropT, cols).forEach((n, c) => { if (n) ctx.fillRect(c, 0, 1, 6); });
      // axis
      ctx.fillStyle = "#5b6673"; ctx.font = "10px system-ui";
      const span = state.v1 - state.v0; const step = Math.pow(10, Math.floor(Math.log10(span / 6)));
      const st = span / step > 30 ? step * 5 : span / step > 12 ? step * 2 : step;
      for (let t = Math.ceil(state.v0 / st) * st; t <= state.v1; t += st) {
        const x = tlx(t); ctx.fillRect(x, hh, 1, 4); ctx.fillText(`${+t.toFixed(6)} s`, x + 2, h - 2);
      }
    });
    // cursor
    ctx.fillStyle = "#111"; ctx.fillRect(tlx(state.t) - 1, 0, 2, hh);
    $("tlinfo").textContent = `timeline ${state.v0.toFixed(3)}–${state.v1.toFixed(3)} s · transmissions per pixel by kind, drops in red above · wheel: zoom, drag: move the cursor, double-click: whole run`;
  }

  // ------------------------------------------------------------------ plots
  const PLOTS = [["cwnd", "cwnd", (v) => fmtBytes(v)], ["seq", "snd_nxt", (v) => fmtBytes(v)], ["goodput", "goodput", (v) => fmtRate(v)]];
  function fmtBytes(v) { return v >= 1e6 ? (v / 1e6).toFixed(3) + " MB" : v >= 1e3 ? (v / 1e3).toFixed(1) + " kB" : v.toFixed(0) + " B"; }
  function fmtRate(v) { return v >= 1e6 ? (v / 1e6).toFixed(3) + " Mb/s" : (v / 1e3).toFixed(1) + " kb/s"; }
  // snd_nxt is plotted since the first sample: rebased once per flow, not per frame.
  const rebased = new Map();
  function seriesOf(key) {
    const f = M.flows[state.flow]; if (!f) return null;
    const s = (H.series[f.name] || {})[key]; if (!s) return null;
    if (key !== "snd_nxt") return s;
    if (!rebased.has(s)) { const base = s[1][0]; rebased.set(s, [s[0], s[1].map((v) => v - base)]); }
    return rebased.get(s);
  }
  const plotY = (v, ymax, h) => h - 4 - v / ymax * (h - 14);
  function valueAt(s, t) {
    const k = bisect(s[0], t, 0, s[0].length, true);
    return k ? s[1][k - 1] : null;
  }
  function drawPlots() {
    const cur = {};
    for (const [id, key, fmt] of PLOTS) {
      const c = $("p-" + id); const ctx = resize(c); const w = c.clientWidth, h = c.clientHeight;
      const s = seriesOf(key);
      if (!s || !s[0].length) { ctx.clearRect(0, 0, w, h); $("v-" + id).textContent = "—"; ctx.fillStyle = "#9aa3ad"; ctx.fillText("no series", 8, 16); continue; }
      const [ts, vs] = s;
      const X = (t) => (t - state.v0) / (state.v1 - state.v0) * w;
      const ymax = cached(c, `${state.flow}|${state.v0}|${state.v1}|${w}|${h}`, (ctx) => {
        const a = Math.max(0, bisect(ts, state.v0, 0, ts.length, false) - 1), b = Math.min(ts.length, bisect(ts, state.v1, 0, ts.length, true) + 1);
        let ymax = 0; for (let i = a; i < b; i++) ymax = Math.max(ymax, vs[i]); ymax = ymax * 1.08 || 1;
        const Y = (v) => plotY(v, ymax, h);
        // min/max per pixel column (decimation) drawn as a step line
        ctx.strokeStyle = FLOWCOL[state.flow % FLOWCOL.length]; ctx.lineWidth = 1.3; ctx.beginPath();
        let px = -1, mn = 0, mx = 0, last = null;
        for (let i = a; i < b; i++) {
          const x = Math.round(X(ts[i])), v = vs[i];
          if (x !== px) {
            if (px >= 0) { ctx.lineTo(px, Y(mn)); ctx.lineTo(px, Y(mx)); ctx.lineTo(px, Y(last)); }
            else ctx.moveTo(Math.max(0, x), Y(v));
            px = x; mn = mx = v;
          } else { mn = Math.min(mn, v); mx = Math.max(mx, v); }
          last = v;
        }
        if (px >= 0) { ctx.lineTo(px, Y(last)); ctx.lineTo(w, Y(last)); }
        ctx.stroke();
        ctx.fillStyle = "#8a95a1"; ctx.font = "10px system-ui"; ctx.fillText(fmt(ymax / 1.08), 4, 10);
        return ymax;
      });
      const v = valueAt(s, state.t);
      cur[id] = v;
      $("v-" + id).textContent = v === null ? "—" : `${fmt(v)} at ${state.t.toFixed(3)} s`;
      ctx.fillStyle = "#111"; ctx.fillRect(X(state.t), 0, 1, h);
      if (v !== null) { ctx.beginPath(); ctx.arc(X(state.t), plotY(v, ymax, h), 3, 0, 7); ctx.fill(); }
    }
    state.cursor = cur;
  }

  // ------------------------------------------------------------------ node panel
  function countUpTo(arr, t) { return bisect(arr, t, 0, arr.length, true); }
  function drawNode() {
    const n = state.sel;
    if (n < 0 || !C) { $("nodename").textContent = "— click a node"; $("nodeinfo").innerHTML = ""; return; }
    nodeIndex();
    const t = state.t;
    const p = position(n, t);
    $("nodename").textContent = nodes[n];
    const counters = CATS.map((name, c) => [name, countUpTo(nodeCat[n][c], t)]);
    const rows = nodeRows[n];
    const lo = rowsUpTo(rows, t);
    // queue: packets waiting at the interface at its transmissions in the last 10 s
    let qlen = null; const q = [];
    for (let j = lo - 1; j >= 0 && C.t_s[rows[j]] > t - 10; j--) {
      const i = rows[j]; if (C.event[i] !== EV.tx || C.node[i] !== n || MAC.has(C["class"][i])) continue;
      if (qlen === null) qlen = C.qlen[i];
      q.push([C.t_s[i], C.qlen[i]]);
    }
    const routes = routeTable(n, t);
    state.routeTable = { node: nodes[n], t, routes };
    // next hops in use: the last transmission of each flow's packets from this node (last 5 s)
    const hops = new Map();
    for (let j = lo - 1; j >= 0 && C.t_s[rows[j]] > t - 5; j--) {
      const i = rows[j]; if (C.event[i] !== EV.tx || C.flow[i] === NONE) continue;
      const key = C.flow[i] * 16 + C["class"][i];
      if (!hops.has(key)) hops.set(key, i);
    }
    const last = [];
    for (let j = lo - 1; j >= 0 && last.length < 14; j--) {
      const i = rows[j]; if (MAC.has(C["class"][i]) && C.event[i] === EV.tx && !$("macctl").checked) continue;
      last.push(i);
    }
    const esc = (s) => String(s).replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" }[c]));
    let html = `<table><tr><td>position</td><td class="n">(${p[0].toFixed(1)}, ${p[1].toFixed(1)}) m</td></tr>`;
    html += `<tr><td>routing</td><td class="n">${esc(M.routing[n])}</td></tr>`;
    if (wlanOf[n] >= 0) html += `<tr><td>WLAN</td><td class="n">${esc(M.wlans[wlanOf[n]].name)}${isAp.has(n) ? " (AP)" : ""}</td></tr>`;
    html += `</table><table><tr><th colspan="2">counters up to the cursor</th></tr>`;
    for (const [name, v] of counters) html += `<tr><td>${name}</td><td class="n">${v.toLocaleString()}</td></tr>`;
    html += `</table><table id="rtable"><tr><th colspan="3">routing table at the cursor</th></tr>`;
    if (M.routing[n] === "static") html += `<tr><td colspan="3">static routes (they do not change)</td></tr>`;
    else if (!routes.length) html += `<tr><td colspan="3">no route</td></tr>`;
    else html += `<tr class="hd"><td>destination</td><td>next hop</td><td class="n">hops</td></tr>`;
    for (const r of routes) html += `<tr class="route"><td>${esc(r.dst)}</td><td>${esc(r.next)}</td><td class="n">${r.hops}</td></tr>`;
    html += `</table><table><tr><th>interface queue</th><td class="n">${qlen === null ? "no transmission in the last 10 s" : qlen + " packets at its last transmission"}</td></tr></table><canvas id="qspark"></canvas>`;
    html += `<table><tr><th colspan="3">next hops in use (last 5 s of the trace)</th></tr>`;
    if (!hops.size) html += `<tr><td colspan="3">none</td></tr>`;
    for (const i of hops.values()) {
      const f = M.flows[C.flow[i]];
      html += `<tr><td>${esc(f ? f.name : C.flow[i])} ${M.classes[C["class"][i]].replace("_", " ")}</td><td>→ ${C.peer[i] === NONE ? "broadcast" : esc(nodes[C.peer[i]])}</td><td class="n">${C.t_s[i].toFixed(3)} s</td></tr>`;
    }
    html += `</table><table><tr><th colspan="4">last events</th></tr>`;
    for (const i of last) {
      const e = M.events[C.event[i]], peer = C.peer[i] === NONE ? (C.event[i] === EV.tx ? "bcast" : "") : nodes[C.peer[i]];
      const why = C.event[i] === EV.drop ? " " + M.reasons[C.reason[i]] : C.retry[i] ? " retry" : "";
      html += `<tr class="ev"><td>${C.t_s[i].toFixed(6)}</td><td>${e}${esc(why)}</td><td>${M.classes[C["class"][i]]}</td><td>${esc(peer)} ${C.bytes[i]} B</td></tr>`;
    }
    html += "</table>";
    $("nodeinfo").innerHTML = html;
    const c = $("qspark"); const ctx = resize(c); const w = c.clientWidth, h = c.clientHeight;
    let qm = 1; for (const [, v] of q) qm = Math.max(qm, v);
    ctx.fillStyle = "#1f6fd1";
    for (const [tt, v] of q) { const x = w - (t - tt) / 10 * w; ctx.fillRect(x, h - 2 - v / qm * (h - 6), 2, v / qm * (h - 6) + 1); }
    ctx.fillStyle = "#8a95a1"; ctx.font = "10px system-ui"; ctx.fillText(`queue, last 10 s (max ${qm})`, 4, 10);
  }

  // ------------------------------------------------------------------ the loop
  function setTime(t) {
    state.t = Math.min(H.t_to, Math.max(H.t_from, t));
    if (state.t < state.v0 || state.t > state.v1) {
      const span = state.v1 - state.v0;
      state.v0 = Math.max(H.t_from, state.t - span / 2); state.v1 = Math.min(H.t_to, state.v0 + span);
    }
    render();
  }
  function render() {
    try {
      $("clock").textContent = state.t.toFixed(6) + " s";
      $("scrub").value = Math.round((state.t - H.t_from) / (H.t_to - H.t_from || 1) * 1e6);
      drawTopo(); drawTimeline(); drawPlots(); drawNode();
    } catch (e) { view.errors.push(String(e && e.stack || e)); throw e; }
  }
  let lastFrame = null;
  function tick(now) {
    if (!state.playing) { lastFrame = null; return; }
    if (lastFrame !== null) {
      const nt = state.t + (now - lastFrame) / 1000 * state.speed;
      if (nt >= H.t_to) { state.playing = false; $("play").textContent = "▶ play"; }
      setTime(nt);
    }
    lastFrame = now;
    requestAnimationFrame(tick);
  }
  function togglePlay() {
    state.playing = !state.playing; $("play").textContent = state.playing ? "❚❚ pause" : "▶ play";
    if (state.playing) requestAnimationFrame(tick);
  }
  function nextEvent(onlyDrops) {
    const showMac = $("macctl").checked;
    if (onlyDrops) {
      const j = bisect(dropT, state.t, 0, dropT.length, true);
      if (j < dropT.length) setTime(dropT[j]);
      return;
    }
    for (let i = bisect(C.t_s, state.t, 0, H.rows, true); i < H.rows; i++) {
      if (C.event[i] === EV.rx_ok || (!showMac && MAC.has(C["class"][i]))) continue;
      return setTime(C.t_s[i]);
    }
  }

  function setup() {
    $("title").innerHTML = "";
    $("title").append(document.createTextNode(`${H.scenario}`));
    const sm = document.createElement("small"); const f3 = (x) => +x.toFixed(3);
    sm.textContent = `seed ${H.seed} · ${f3(H.t_from)}–${f3(H.t_to)} s of ${f3(H.sim_time_s)} s · ${N} nodes`; $("title").append(sm);
    const sp = $("speed");
    for (const v of [0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 50]) { const o = document.createElement("option"); o.value = v; o.textContent = v + "×"; if (v === 1) o.selected = true; sp.append(o); }
    sp.onchange = () => { state.speed = +sp.value; render(); };
    const fs = $("flowsel");
    M.flows.forEach((f, i) => { const o = document.createElement("option"); o.value = i; o.textContent = `${f.name} (${f.kind})`; fs.append(o); });
    fs.onchange = () => { state.flow = +fs.value; render(); };
    const lg = $("legend");
    const marks = [["#ff9900", "collision"], ["#d62728", "drop (reason)"], ["#e67e22", "MAC gave up"]];
    for (const [col, name] of [...LEGEND.map(([k, n]) => [COLORS[k], n]), ...marks]) {
      const s = document.createElement("span"); s.innerHTML = `<i style="background:${col}"></i>`; s.append(name); lg.append(s);
    }
    $("play").onclick = togglePlay;
    $("next").onclick = () => nextEvent(false);
    $("nextdrop").onclick = () => nextEvent(true);
    for (const id of ["ranges", "labels", "route", "macctl"]) $(id).onchange = render;
    $("scrub").oninput = (e) => setTime(H.t_from + (+e.target.value) / 1e6 * (H.t_to - H.t_from));
    window.addEventListener("keydown", (e) => {
      if (e.target.tagName === "SELECT") return;
      if (e.code === "Space") { e.preventDefault(); togglePlay(); } else if (e.code === "ArrowRight") nextEvent(false);
    });
    // topology: drag to pan, wheel to zoom, click to select
    let drag = null;
    topo.onmousedown = (e) => { drag = { x: e.offsetX, y: e.offsetY, ox: state.ox, oy: state.oy, moved: false }; };
    topo.onmousemove = (e) => {
      if (!drag) return;
      const dx = e.offsetX - drag.x, dy = e.offsetY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      state.ox = drag.ox + dx; state.oy = drag.oy + dy; render();
    };
    topo.onmouseup = (e) => {
      if (drag && !drag.moved) {
        let best = -1, bd = 15;
        for (let n = 0; n < N; n++) { const p = position(n, state.t); const d = Math.hypot(sx(p[0]) - e.offsetX, sy(p[1]) - e.offsetY); if (d < bd) { bd = d; best = n; } }
        state.sel = best; render();
      }
      drag = null;
    };
    topo.onwheel = (e) => {
      e.preventDefault(); const f = Math.exp(-e.deltaY * 0.0015);
      state.ox = e.offsetX - (e.offsetX - state.ox) * f; state.oy = e.offsetY - (e.offsetY - state.oy) * f; state.scale *= f; render();
    };
    tl.onwheel = (e) => {
      e.preventDefault(); const at = tlt(e.offsetX), f = Math.exp(e.deltaY * 0.002);
      const span = Math.min(H.t_to - H.t_from, Math.max(1e-4, (state.v1 - state.v0) * f));
      state.v0 = Math.max(H.t_from, at - (at - state.v0) / (state.v1 - state.v0) * span); state.v1 = Math.min(H.t_to, state.v0 + span); render();
    };
    let tdrag = false;
    tl.onmousedown = (e) => { tdrag = true; setTime(tlt(e.offsetX)); };
    tl.onmousemove = (e) => { if (tdrag) setTime(tlt(e.offsetX)); };
    window.addEventListener("mouseup", () => { tdrag = false; });
    tl.ondblclick = () => { state.v0 = H.t_from; state.v1 = H.t_to; render(); };
    window.addEventListener("resize", () => { resize(topo); fit(); render(); });
  }

  // The test's hooks: set the cursor, read what is drawn.
  view.setTime = (t) => { setTime(t); return { t: state.t, positions: state.positions, drops: state.drawnDrops, cursor: state.cursor, route: state.route, tx: state.drawnTx }; };
  view.select = (name) => { state.sel = nodes.indexOf(name); render(); return state.routeTable; };

  async function main() {
    setup();
    resize(topo); computeBounds(); fit();
    const t0 = performance.now();
    const text = document.getElementById("tcplab-blob").textContent.trim();
    // The browser's own base64 decoder (a data: URL, no network) is much faster than atob; every
    // browser with DecompressionStream fetches data: URLs.
    const resp = await fetch("data:application/octet-stream;base64," + text);
    const buf = await new Response(resp.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
    C = columns(buf);
    const t1 = performance.now();
    index();
    const t2 = performance.now();
    // decoding, inflating and indexing the events (docs/viewer.md quotes it)
    const loadS = (performance.now() - t0) / 1000;
    $("status").textContent = `${H.rows.toLocaleString()} events · loaded in ${loadS.toFixed(2)} s`;
    render();
    view.phases = { startMs: t0, decodeMs: t1 - t0, indexMs: t2 - t1, firstFrameMs: performance.now() - t2 };
    // ms from navigation start (the page's time origin) to the first frame drawn with the events.
    view.readyMs = performance.now();
    view.ready = true;
  }
  // Resolves once the events are loaded and the first frame is drawn; rejects with the error that
  // stopped it (the tests wait on this promise).
  view.whenReady = main();
  view.whenReady.catch((e) => { view.errors.push(String(e && e.stack || e)); $("status").textContent = "error: " + e; console.error(e); });
})();
