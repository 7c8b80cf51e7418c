// chomp3 view: the page's script (served by `chomp3 view`, src/view/). Plain
// JavaScript, no library: it asks the server for tiles and JSON and draws them.
// The view's state lives in the URL's hash, so a link reproduces a view.
"use strict";

const $ = (id) => document.getElementById(id);
const TILE = 256;
const SLOPE = Math.SQRT2 - 1;
const info = { table: null, census: null };
const state = { tab: "table", m: "offset", z: 0, q: 0, r: 0, rr: "", from: "", to: "", r2: "",
  cls: "all", pmode: "any", p: "27", ff: "", ft: "", fy: "pre" };

function status(text) { $("status").textContent = text || ""; }

// A round step (1, 2 or 5 times a power of ten) so that `span` holds about
// `count` of them.
function niceStep(span, count) {
  const raw = Math.max(span / Math.max(count, 1), 1e-9);
  const ten = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * ten >= raw) return m * ten;
  return 10 * ten;
}

// Ticks of a linear axis: the values of `step` multiples in [lo, hi].
function ticks(lo, hi, count, whole) {
  const step = Math.max(niceStep(hi - lo, count), whole ? 1 : 0);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(Math.round(v * 1e6) / 1e6);
  return out;
}

async function getJSON(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error((await res.text()).trim());
  return res.json();
}

// ---- the URL's hash ----------------------------------------------------------

const KEYS = { table: ["m", "z", "q", "r"], rows: ["rr", "from", "to", "r2"],
  census: ["cls", "pmode", "p", "ff", "ft", "fy"] };

function writeHash() {
  const parts = ["tab=" + state.tab];
  for (const k of KEYS[state.tab]) if (state[k] !== "") parts.push(k + "=" + encodeURIComponent(state[k]));
  const hash = "#" + parts.join("&");
  history.replaceState(null, "", hash);
  $("permalink").href = hash;
}

function readHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  for (const [k, v] of h) if (k in state) state[k] = ["z", "q", "r"].includes(k) ? Number(v) : v;
  if (!KEYS[state.tab]) state.tab = "table";
}

function showTab(tab) {
  state.tab = tab;
  for (const t of Object.keys(KEYS)) $("tab-" + t).hidden = t !== tab;
  for (const b of document.querySelectorAll("nav button")) b.classList.toggle("on", b.dataset.tab === tab);
  if (tab === "table") HeatMap.open();
  if (tab === "rows") Rows.open();
  if (tab === "census") Census.open();
  writeHash();
}

// ---- the table's heat map --------------------------------------------------

const HeatMap = {
  tiles: new Map(), drag: null, hoverAt: null, hoverTimer: 0, ready: false,
  // The axes' bands: q along the top, r down the left.
  TOP: 18, LEFT: 52,

  open() {
    if (!info.table) { status("No table was given to chomp3 view: the heat map needs --table."); return; }
    if (!this.ready) this.init();
    $("measure").value = state.m;
    this.resize();
  },

  init() {
    this.ready = true;
    const c = $("map");
    c.addEventListener("mousedown", (e) => { this.drag = { x: e.clientX, y: e.clientY, q: state.q, r: state.r }; });
    window.addEventListener("mouseup", () => { if (this.drag) { this.drag = null; writeHash(); } });
    c.addEventListener("mousemove", (e) => this.move(e));
    c.addEventListener("mouseleave", () => { $("hover").hidden = true; this.hoverAt = null; });
    c.addEventListener("wheel", (e) => { e.preventDefault(); this.zoomAt(e.deltaY < 0 ? 1 : -1, e); }, { passive: false });
    window.addEventListener("resize", () => { if (state.tab === "table") this.resize(); });
    $("zoom-in").onclick = () => this.zoomAt(1);
    $("zoom-out").onclick = () => this.zoomAt(-1);
    $("zoom-all").onclick = () => { this.fit(); this.draw(); writeHash(); };
    $("measure").onchange = () => { state.m = $("measure").value; this.draw(); writeHash(); };
    $("go").onclick = () => {
      state.q = Number($("go-q").value) || 0; state.r = Number($("go-r").value) || 0;
      state.z = Math.max(state.z, 3); this.draw(); writeHash();
    };
    if (!location.hash.includes("z=")) this.fit();
  },

  fit() {
    const c = $("map"), n = info.table.columns;
    // Fractional: the table fills the canvas's shorter side (tiles are drawn
    // from the power-of-two scale just finer than the view).
    const fitZ = Math.log2(Math.min(c.clientWidth - 2 * this.LEFT, c.clientHeight - 2 * this.TOP) / Math.max(n, 1));
    state.z = Math.max(-24, Math.min(5, Math.floor(fitZ * 1000) / 1000));
    state.q = Math.floor(n / 2); state.r = Math.floor(n / 2);
  },

  // Numbered ticks of q (top) and r (left) over the drawn map; what they say
  // is kept in window.chompAxes (the browser test reads it).
  axes(ctx) {
    const c = $("map"), p = this.ppc(), lo = this.cellAt(this.LEFT, this.TOP), hi = this.cellAt(c.width, c.height);
    ctx.fillStyle = "rgba(255,255,255,0.85)";
    ctx.fillRect(0, 0, c.width, this.TOP); ctx.fillRect(0, 0, this.LEFT, c.height);
    ctx.fillStyle = "#333"; ctx.strokeStyle = "#333"; ctx.font = "11px sans-serif";
    const n = info.table.columns - 1;
    const qs = ticks(Math.max(0, lo.q), Math.min(n, hi.q), Math.max(2, (c.width - this.LEFT) / 90), true);
    const rs = ticks(Math.max(0, lo.r), Math.min(n, hi.r), Math.max(2, (c.height - this.TOP) / 60), true);
    ctx.textAlign = "center"; ctx.textBaseline = "alphabetic";
    for (const q of qs) {
      const x = this.LEFT + (q - lo.q) * p;
      ctx.beginPath(); ctx.moveTo(x, this.TOP - 4); ctx.lineTo(x, this.TOP); ctx.stroke();
      ctx.fillText(String(q), x, this.TOP - 6);
    }
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    for (const r of rs) {
      const y = this.TOP + (r - lo.r) * p;
      ctx.beginPath(); ctx.moveTo(this.LEFT - 4, y); ctx.lineTo(this.LEFT, y); ctx.stroke();
      ctx.fillText(String(r), this.LEFT - 6, y);
    }
    ctx.textAlign = "left"; ctx.textBaseline = "alphabetic";
    ctx.fillText("q \u2192", 4, this.TOP - 5);
    ctx.fillText("r \u2193", 4, this.TOP + 14);
    window.chompAxes = { q: qs, r: rs };
  },

  resize() {
    const c = $("map");
    c.width = c.clientWidth; c.height = c.clientHeight;
    this.draw();
  },

  ppc() { return Math.pow(2, state.z); },

  // The cell coordinates (fractional) under canvas pixel (x, y); the view's
  // centre is the middle of cell (state.q, state.r).
  cellAt(x, y) {
    const c = $("map"), p = this.ppc();
    return { q: state.q + 0.5 + (x - c.width / 2) / p, r: state.r + 0.5 + (y - c.height / 2) / p };
  },

  zoomAt(dz, e) {
    const c = $("map");
    const x = e ? e.offsetX : c.width / 2, y = e ? e.offsetY : c.height / 2;
    const before = this.cellAt(x, y);
    state.z = Math.max(-24, Math.min(5, state.z + dz));
    const after = this.cellAt(x, y);
    state.q = Math.floor(state.q + before.q - after.q);
    state.r = Math.floor(state.r + before.r - after.r);
    this.draw(); writeHash();
  },

  tile(scale, x, y) {
    const key = state.m + "/" + scale + "/" + x + "/" + y;
    let t = this.tiles.get(key);
    if (!t) {
      t = new Image();
      t.onload = () => this.draw();
      t.onerror = () => status("a tile failed to load: " + key);
      t.src = `/api/tile?measure=${state.m}&scale=${scale}&x=${x}&y=${y}`;
      this.tiles.set(key, t);
      if (this.tiles.size > 600) this.tiles.delete(this.tiles.keys().next().value);
    }
    return t;
  },

  draw() {
    if (!info.table) return;
    const c = $("map"), ctx = c.getContext("2d"), n = info.table.columns;
    ctx.imageSmoothingEnabled = false;
    ctx.fillStyle = "#f3f1ea"; ctx.fillRect(0, 0, c.width, c.height);
    const scale = Math.max(0, Math.floor(-state.z)), cells = TILE * Math.pow(2, scale);
    const side = cells * this.ppc();
    const lo = this.cellAt(0, 0), hi = this.cellAt(c.width, c.height);
    const last = Math.floor((n - 1) / cells);
    for (let ty = Math.max(0, Math.floor(lo.r / cells)); ty <= Math.min(last, Math.floor(hi.r / cells)); ty++) {
      for (let tx = Math.max(ty, Math.floor(lo.q / cells)); tx <= Math.min(last, Math.floor(hi.q / cells)); tx++) {
        const img = this.tile(scale, tx, ty);
        if (!img.complete || !img.naturalWidth) continue;
        const x0 = (tx * cells - lo.q) * this.ppc(), y0 = (ty * cells - lo.r) * this.ppc();
        ctx.drawImage(img, x0, y0, side, side);
      }
    }
    this.axes(ctx);
    this.legend();
    const p = this.ppc(), round = (x) => Number.isInteger(x) ? String(x) : x.toFixed(2);
    $("zoom-note").textContent = p >= 1 ? `${round(p)} pixel${p > 1 ? "s" : ""} per cell`
      : `1 pixel per ${round(1 / p)} x ${round(1 / p)} cells (sampled)`;
  },

  legend() {
    const n = info.table.columns, words = {
      offset: ["1", String(n), "f(q,r) - q, log scale; grey: dead (f < q), red: the row dies (f = q)"],
      dead: ["", "", "light: alive (f > q); dark: dead (f <= q)"],
      settle: ["0", String(n), "columns until the row's proved start, log scale; pale green: settled; grey: open"],
    }[state.m];
    $("legend-lo").textContent = words[0]; $("legend-hi").textContent = words[1];
    $("legend-bar").hidden = state.m === "dead";
    $("legend-text").textContent = words[2];
  },

  move(e) {
    if (this.drag) {
      const p = this.ppc();
      state.q = Math.round(this.drag.q - (e.clientX - this.drag.x) / p);
      state.r = Math.round(this.drag.r - (e.clientY - this.drag.y) / p);
      this.draw();
      return;
    }
    const at = this.cellAt(e.offsetX, e.offsetY), q = Math.floor(at.q), r = Math.floor(at.r);
    const h = $("hover");
    h.style.left = (e.offsetX + 14) + "px"; h.style.top = (e.offsetY + 14) + "px";
    if (q < 0 || r < 0 || r > q || q >= info.table.columns) { h.hidden = true; this.hoverAt = null; return; }
    if (this.hoverAt && this.hoverAt.q === q && this.hoverAt.r === r) return;
    this.hoverAt = { q, r };
    clearTimeout(this.hoverTimer);
    this.hoverTimer = setTimeout(() => this.hover(q, r), 40);
  },

  async hover(q, r) {
    try {
      const cell = await getJSON(`/api/cell?q=${q}&r=${r}`);
      if (!this.hoverAt || this.hoverAt.q !== q || this.hoverAt.r !== r) return;
      const h = $("hover");
      h.dataset.q = q; h.dataset.r = r; h.dataset.f = cell.f ?? "";
      h.textContent = cell.f === null ? `q = ${q}, r = ${r}: ${cell.why}`
        : `f(${q},${r}) = ${cell.f}\nP-position [${cell.position.join(", ")}]\n`
          + `row ${r}: ${fateText(cell.fate)}\nfrom the ${cell.source}`;
      h.hidden = false;
    } catch (err) { status(err.message); }
  },
};

function fateText(f, withPattern = true) {
  if (!f || !f.known) return f ? f.why : "unknown";
  const bound = f.start_is_bound ? " (at most; an upper bound)" : "";
  if (f.class === "constant") return `constant: dies at q = ${f.start}`;
  return `periodic from q = ${f.start}${bound}, period ${f.period}`
    + (withPattern && f.period <= 40 ? `, pattern [${f.pattern.join(",")}]` : "");
}

// ---- one row (or two) over a range --------------------------------------------

// The Rows tab draws in JavaScript numbers, exact to 2^53: it takes `q` and
// `r` up to 2^32 - 1 (doc/viewer.md), where every value it draws is exact,
// and refuses more rather than draw rounded columns.
const ROWS_MOST = 4294967295;
function rowsNumber(text, what) {
  if (!/^[0-9]+$/.test(text) || Number(text) > ROWS_MOST)
    throw new Error(`${what} must be a whole number 0..${ROWS_MOST} in the Rows tab ` +
                    "(chomp3 row answers past it)");
  return Number(text);
}

const Rows = {
  ready: false,

  open() {
    if (!this.ready) {
      this.ready = true;
      $("row-show").onclick = () => {
        state.rr = $("row-r").value; state.from = $("row-from").value;
        state.to = $("row-to").value; state.r2 = $("row-r2").value;
        this.show(); writeHash();
      };
    }
    if (state.rr === "") state.rr = "100";
    $("row-r").value = state.rr; $("row-from").value = state.from;
    $("row-to").value = state.to; $("row-r2").value = state.r2;
    this.show();
  },

  // The range to show when none is given: from the first column that a source
  // answers for every row shown (r inside the table, else the census's start),
  // over three periods or 200 columns, whichever is longer.
  async range(rows) {
    if (state.from !== "" && state.to !== "")
      return [rowsNumber(state.from, "from"), rowsNumber(state.to, "to")];
    let from = 0, span = 200;
    for (const r of rows) {
      const f = (await getJSON(`/api/row?r=${r}&from=${r}&to=${r}`)).fate;
      const inTable = info.table && r < info.table.columns;
      from = Math.max(from, f.known && !inTable ? f.start : r);
      if (f.known && f.period) span = Math.max(span, 3 * f.period);
    }
    if (state.from !== "") from = rowsNumber(state.from, "from");
    const to = state.to !== "" ? rowsNumber(state.to, "to") : from + Math.min(span, 65535);
    return [from, Math.min(to, ROWS_MOST)];
  },

  async show() {
    try {
      status("");
      const wanted = [rowsNumber(state.rr, "r")]
        .concat(state.r2 === "" ? [] : [rowsNumber(state.r2, "the second r")]);
      const [from, to] = await this.range(wanted);
      const rows = [];
      for (const r of wanted) rows.push(await getJSON(`/api/row?r=${r}&from=${from}&to=${to}`));
      this.plot(rows);
      $("row-info").textContent = rows.map((d) => describeRow(d)).join("\n\n");
    } catch (err) { status(err.message); }
  },

  // One panel per row, each with its own vertical scale: f(q,r) - q as dots,
  // the row's start as a red line, alternate periods shaded.
  plot(rows) {
    const c = $("rowplot"), ctx = c.getContext("2d");
    c.width = c.clientWidth; c.height = c.clientHeight;
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, c.width, c.height);
    const from = rows[0].from, to = rows[0].to, L = 60, R = 10, B = 24;
    const w = c.width - L - R, panel = (c.height - B) / rows.length;
    const X = (q) => L + (q - from + 0.5) / (to - from + 1) * w;
    ctx.font = "12px sans-serif";
    rows.forEach((d, k) => {
      const T = k * panel + 8, h = panel - 16;
      let lo = Infinity, hi = -Infinity;
      d.values.forEach((v, i) => { if (v !== null) { const y = v - (from + i); lo = Math.min(lo, y); hi = Math.max(hi, y); } });
      ctx.fillStyle = "#333";
      if (lo === Infinity) { ctx.fillText(`row ${d.r}: no source gives q ${from}..${to}`, L, T + h / 2); return; }
      if (hi === lo) { hi += 1; lo -= 1; }
      const Y = (y) => T + (hi - y) / (hi - lo) * h, f = d.fate;
      if (f.known && f.start <= to) {
        ctx.fillStyle = "#f1f4fb";
        for (let j = 0, q = f.start; q <= to && j < 4000; j++, q += f.period) {
          if (j % 2 === 1) ctx.fillRect(X(q - 0.5), T, X(q + f.period - 0.5) - X(q - 0.5), h);
        }
        ctx.strokeStyle = "#c00"; ctx.beginPath(); ctx.moveTo(X(f.start - 0.5), T); ctx.lineTo(X(f.start - 0.5), T + h); ctx.stroke();
      }
      ctx.fillStyle = ["#1f4e9c", "#e07b00"][k];
      const dot = Math.max(1.5, Math.min(4, w / (to - from + 1) / 2));
      d.values.forEach((v, i) => { if (v !== null) ctx.fillRect(X(from + i) - dot / 2, Y(v - (from + i)) - dot / 2, dot, dot); });
      ctx.fillStyle = "#333";
      ctx.fillText(String(hi), 4, T + 10); ctx.fillText(String(lo), 4, T + h);
      ctx.fillText(`row ${d.r}`, 4, T + h / 2);
    });
    ctx.fillText(`q = ${from}`, L, c.height - 6);
    ctx.fillText(`q = ${to}`, c.width - R - 80, c.height - 6);
  },
};

function describeRow(d) {
  const src = d.sources.map((s) => `q ${s.from}..${s.to}: ${s.source === "none" ? "no source (" + s.why + ")" : "from the " + s.source}`);
  let text = `row ${d.r}: ${fateText(d.fate, false)}\n${src.join("; ")}`;
  if (d.fate.known && d.fate.class === "periodic") {
    text += `\npattern of f(q,${d.r}) - q from q = ${d.fate.start} (period ${d.fate.period}):\n[${d.fate.pattern.join(", ")}]`;
    if (d.fate.closed_at !== null) text += `\ncertificate closed at q = ${d.fate.closed_at}`;
  }
  return text;
}

// ---- the census: filter, figure, list -----------------------------------------

const FILTERS = [["f-class", "cls"], ["f-pmode", "pmode"], ["f-p", "p"], ["f-from", "ff"], ["f-to", "ft"], ["f-y", "fy"]];

const Census = {
  data: null, match: new Int32Array(0), ready: false, ROW: 20,

  async open() {
    if (!info.census) { status("No census was given to chomp3 view: the census list needs --census."); return; }
    if (!this.ready) this.init();
    for (const [id, k] of FILTERS) $(id).value = state[k];
    if (!this.data) {
      status("loading the census...");
      const d = await getJSON("/api/census");
      this.data = { rows: d.rows, cls: d.class, start: Int32Array.from(d.start), period: Int32Array.from(d.period) };
      status("");
    }
    this.filter();
  },

  init() {
    this.ready = true;
    for (const [id, k] of FILTERS) {
      $(id).addEventListener("input", () => { state[k] = $(id).value; this.filter(); writeHash(); });
    }
    $("list").addEventListener("scroll", () => this.list());
    $("list").addEventListener("click", (e) => {
      const line = e.target.closest(".line"); if (line) openRow(Number(line.dataset.r));
    });
    $("scatter").addEventListener("click", (e) => this.pick(e));
  },

  // The rows that pass the filter, in increasing order; its time is kept in
  // window.chompFilterMs (the browser test reads it).
  filter() {
    const d = this.data; if (!d) return;
    const t0 = performance.now();
    const cls = state.cls, mode = state.pmode, p = Number(state.p);
    const from = state.ff === "" ? 0 : Number(state.ff), to = state.ft === "" ? d.rows - 1 : Math.min(Number(state.ft), d.rows - 1);
    const out = new Int32Array(Math.max(0, to - from + 1));
    let k = 0;
    for (let r = from; r <= to; r++) {
      const c = d.cls.charCodeAt(r);
      if (cls !== "all" && c !== cls.charCodeAt(0)) continue;
      const per = d.period[r];
      if (mode === "gt1" && !(c === 112 && per > 1)) continue;
      if (mode === "eq" && !(c === 112 && per === p)) continue;
      out[k++] = r;
    }
    this.match = out.subarray(0, k);
    window.chompFilterMs = performance.now() - t0;
    $("f-count").textContent = `${k} of ${d.rows} rows (filtered in ${window.chompFilterMs.toFixed(1)} ms)`;
    $("list-spacer").style.height = (k * this.ROW) + "px";
    this.list();
    this.scatter();
  },

  list() {
    const box = $("list"), d = this.data, first = Math.floor(box.scrollTop / this.ROW);
    const spacer = $("list-spacer");
    spacer.replaceChildren();
    const names = { c: "constant", p: "periodic", o: "open" };
    for (let i = first; i < Math.min(this.match.length, first + Math.ceil(box.clientHeight / this.ROW) + 1); i++) {
      const r = this.match[i], c = d.cls[r], line = document.createElement("div");
      line.className = "line census-row"; line.dataset.r = r; line.style.top = (i * this.ROW) + "px";
      for (const text of [r, names[c], c === "o" ? "-" : d.start[r], c === "p" ? d.period[r] : "-"]) {
        const s = document.createElement("span"); s.textContent = text; line.appendChild(s);
      }
      spacer.appendChild(line);
    }
  },

  // Pixel of row r in the figure: r across; up, either the preperiod less the
  // line (sqrt 2 - 1) r that it follows, or log2 of the period.
  geometry() {
    const c = $("scatter"), d = this.data, byPeriod = state.fy === "period";
    const y = (r) => byPeriod ? Math.log2(d.period[r]) : d.start[r] - r - SLOPE * r;
    // A row is placed where it has the value shown: only a periodic row has a period.
    const shown = (r) => byPeriod ? d.cls[r] === "p" : d.cls[r] !== "o";
    if (!d.range || d.range.fy !== state.fy) {
      let lo = Infinity, hi = -Infinity;
      for (let r = 0; r < d.rows; r++) if (shown(r)) { const v = y(r); lo = Math.min(lo, v); hi = Math.max(hi, v); }
      d.range = { fy: state.fy, lo, hi: hi > lo ? hi : lo + 1 };
    }
    const { lo, hi } = d.range;
    // Margins for the axes: values on the left, rows along the bottom.
    const L = 56, T = 18, B = 20, R = 8;
    const xr = (r) => L + Math.floor(r / d.rows * (c.width - L - R));
    const yv = (v) => T + Math.floor((hi - v) / (hi - lo) * (c.height - T - B));
    return { w: c.width, h: c.height, L, T, B, R, lo, hi, byPeriod, xr, yv, shown, x: xr, y: (r) => yv(y(r)) };
  },

  // Numbered ticks: the value up the left (a power of two per step in the
  // period view), rows along the bottom; kept in window.chompCensusAxes.
  axes(ctx, g) {
    const d = this.data;
    ctx.fillStyle = "#333"; ctx.strokeStyle = "#333"; ctx.font = "11px sans-serif";
    ctx.beginPath(); ctx.moveTo(g.L, g.T); ctx.lineTo(g.L, g.h - g.B); ctx.lineTo(g.w - g.R, g.h - g.B); ctx.stroke();
    const vs = g.byPeriod ? ticks(Math.ceil(g.lo), Math.floor(g.hi), Math.min(8, g.hi - g.lo + 1), true)
      : ticks(g.lo, g.hi, Math.max(2, (g.h - g.T - g.B) / 40), false);
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    for (const v of vs) {
      const y = g.yv(v);
      ctx.beginPath(); ctx.moveTo(g.L - 4, y); ctx.lineTo(g.L, y); ctx.stroke();
      ctx.fillText(g.byPeriod ? String(Math.pow(2, v)) : String(v), g.L - 6, y);
    }
    const rs = ticks(0, d.rows - 1, Math.max(2, (g.w - g.L - g.R) / 90), true);
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    for (const r of rs) {
      const x = g.xr(r);
      ctx.beginPath(); ctx.moveTo(x, g.h - g.B); ctx.lineTo(x, g.h - g.B + 4); ctx.stroke();
      const label = String(r), half = ctx.measureText(label).width / 2;
      ctx.fillText(label, Math.min(x, g.w - 2 - half), g.h - g.B + 5);
    }
    ctx.textAlign = "left"; ctx.textBaseline = "alphabetic";
    window.chompCensusAxes = { value: vs.map((v) => g.byPeriod ? Math.pow(2, v) : v), r: rs };
  },

  scatter() {
    const c = $("scatter"), d = this.data;
    c.width = c.clientWidth; c.height = c.clientHeight;
    const ctx = c.getContext("2d"), g = this.geometry();
    const img = ctx.createImageData(c.width, c.height), px = img.data;
    const put = (r, rgb, size) => {
      const x0 = g.x(r), y0 = g.y(r), k = size >> 1;
      for (let dy = -k; dy <= k; dy++) for (let dx = -k; dx <= k; dx++) {
        const at = 4 * ((y0 + dy) * g.w + x0 + dx);
        px[at] = rgb[0]; px[at + 1] = rgb[1]; px[at + 2] = rgb[2]; px[at + 3] = 255;
      }
    };
    for (let r = 0; r < d.rows; r++) if (g.shown(r)) put(r, [215, 215, 215], 1);
    const colour = { c: [31, 78, 156], p: [224, 123, 0], o: [200, 0, 0] }, size = this.match.length <= 5000 ? 3 : 1;
    for (const r of this.match) if (g.shown(r)) put(r, colour[d.cls[r]], size);
    ctx.putImageData(img, 0, 0);
    this.axes(ctx, g);
    ctx.fillStyle = "#333"; ctx.font = "12px sans-serif";
    ctx.fillText(state.fy === "period" ? "period (log scale)" : "start - r - (\u221a2 - 1) r", g.L + 6, 13);
    ctx.textAlign = "right"; ctx.fillText("row r", g.w - g.R, g.h - g.B - 4); ctx.textAlign = "left";
  },

  pick(e) {
    const g = this.geometry();
    let best = -1, dist = 64;
    for (const r of this.match) {
      if (!g.shown(r)) continue;
      const dx = g.x(r) - e.offsetX, dy = g.y(r) - e.offsetY, dd = dx * dx + dy * dy;
      if (dd < dist) { dist = dd; best = r; }
    }
    if (best >= 0) openRow(best);
  },
};

function openRow(r) {
  state.rr = String(r); state.from = ""; state.to = ""; state.r2 = "";
  showTab("rows");
}

// ---- start ---------------------------------------------------------------------

async function start() {
  try {
    const i = await getJSON("/api/info");
    info.table = i.table; info.census = i.census;
    const words = [];
    if (i.table) words.push(`table ${i.table.path} (N = ${i.table.columns - 1})`);
    if (i.census) words.push(`census ${i.census.path} (rows 0..${i.census.rows - 1})`);
    const rule = i.table && i.census ? "; the table first, the census beyond it"
      : i.table ? " (no census: rows' fates unknown)" : " (no table: values where the census proves them)";
    $("sources").textContent = "values from: " + words.join("; ") + rule;
  } catch (err) { status(err.message); return; }
  for (const b of document.querySelectorAll("nav button")) b.onclick = () => showTab(b.dataset.tab);
  readHash();
  if (!location.hash) state.tab = info.table ? "table" : "census";
  window.addEventListener("hashchange", () => { readHash(); showTab(state.tab); });
  showTab(state.tab);
  document.body.dataset.ready = "1";
}

start();
