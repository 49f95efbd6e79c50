// gpusim's animated playback of recorded events (gpusim/viz/animate.py). No network, no libraries:
// mounts every .gpusim-anim element on the page; the data is in its JSON script element .gpusim-anim-data.
(function () {
  "use strict";
  const COLORS = {
    empty: "#1c1c1c", issued: "#43c463", long_scoreboard: "#e53935", short_scoreboard: "#fb8c00",
    barrier: "#ab47bc", mio_throttle: "#ff7043", lg_throttle: "#ec407a", math_pipe_throttle: "#fdd835",
    wait: "#78909c", not_selected: "#26c6da", selected: "#9ccc65", no_instruction: "#8d6e63",
    branch_resolving: "#c0ca33", membar: "#5c6bc0", dispatch_stall: "#3f51b5", drain: "#546e7a", gmma: "#00897b",
  };
  const WHERE_COLORS = ["#9ccc65", "#4fc3f7", "#ffb74d", "#b0bec5", "#f06292"];
  const TYPES = { uint8: Uint8Array, uint16: Uint16Array, int32: Int32Array, float64: Float64Array };

  async function decode(b) {
    const bin = atob(b.b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    const buf = await new Response(stream).arrayBuffer();
    return new TYPES[b.dtype](buf);
  }

  function rgba(hex) {      // "#rrggbb" -> little-endian ABGR for a Uint32 ImageData view
    const v = parseInt(hex.slice(1), 16);
    return (255 << 24 | (v & 255) << 16 | (v >> 8 & 255) << 8 | v >> 16) >>> 0;
  }

  function ctaColor(id) {
    const h = (id * 137.508) % 360;
    return `hsl(${h},65%,55%)`;
  }

  function el(tag, attrs, parent, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  async function mount(root) {
    const data = JSON.parse(root.querySelector(".gpusim-anim-data").textContent);
    const M = data.meta;
    const D = {};
    for (const k in data.blobs) D[k] = await decode(data.blobs[k]);
    const nsm = M.n_sm, wps = M.warps_per_sm, nsub = M.subpartitions, wsub = Math.ceil(wps / nsub);
    const cps = M.ctas_per_sm, nframes = M.frames, fc = M.frame_cycles;
    const stateColors = M.states.map((s) => COLORS[s] || "#999");
    const stateRGBA = stateColors.map(rgba);
    const nreq = D.req.length / 7, ncta = D.cta.length / 5;

    // ---------------------------------------------------------------- page furniture
    root.style.cssText += ";font:13px system-ui,sans-serif;color:#ddd;background:#111;padding:8px";
    el("div", { class: "gpusim-anim-title" }, root,
      `${M.kernel} on ${M.gpu || "the simulated GPU"}: ${M.cycles.toLocaleString()} cycles ` +
      `(${(M.cycles / M.clock_mhz).toFixed(2)} µs at ${M.clock_mhz} MHz), ${M.ctas_total} CTAs on ${nsm} SMs`);
    const bar = el("div", { class: "gpusim-anim-controls" }, root);
    bar.style.cssText = "display:flex;gap:8px;align-items:center;margin:6px 0";
    const playBtn = el("button", { class: "gpusim-play" }, bar, "▶ play");
    el("label", {}, bar, "speed");
    const speedSel = el("select", { class: "gpusim-speed" }, bar);
    for (const s of [5, 10, 20, 60, 180]) el("option", { value: s }, speedSel, `whole run in ${s} s`);
    speedSel.value = "20";
    const scrub = el("input", { type: "range", min: 0, max: M.cycles, step: 1, value: 0, class: "gpusim-scrub" }, bar);
    scrub.style.flex = "1";
    const clock = el("span", { class: "gpusim-clock" }, bar);
    clock.style.cssText = "font-variant-numeric:tabular-nums;min-width:17em";
    if (M.notes.length) {
      const n = el("div", { class: "gpusim-anim-notes" }, root, "Decimated: " + M.notes.join("; ") + ".");
      n.style.color = "#f0c060";
    }
    const canvas = el("canvas", { class: "gpusim-canvas" }, root);
    const info = el("div", { class: "gpusim-info" }, root, "Click an SM to see its CTAs, or a warp slot for its states.");
    info.style.cssText = "min-height:3em;margin:6px 0;white-space:pre-wrap";
    const legend = el("div", { class: "gpusim-legend" }, root);
    legend.style.cssText = "display:flex;flex-wrap:wrap;gap:4px 14px";
    const present = new Set(D.warp_state);
    M.states.forEach((s, i) => {
      if (!present.has(i) && s !== "issued") return;
      const item = el("span", {}, legend);
      const sw = el("span", {}, item);
      sw.style.cssText = `display:inline-block;width:10px;height:10px;margin-right:4px;background:${stateColors[i]}`;
      el("b", {}, item, s);
      el("span", {}, item, " " + M.plain[i]);
    });
    const reqLegend = el("div", {}, root,
      `Memory requests (1 in ${M.requests_every} of ${M.requests_seen} global memory instructions): `);
    M.where.forEach((w, i) => {
      const s = el("span", {}, reqLegend, "● " + w.replace("_", " ") + "  ");
      s.style.color = WHERE_COLORS[i];
    });

    // ---------------------------------------------------------------- layout
    const W = Math.max(900, Math.min(1400, root.clientWidth || 1200));
    const cellW = wsub + 1, cellH = nsub + 2;      // CTA row, sub-partition rows, gap
    const gridW = W * 0.62, gridH = 520;
    let cols = 1, scale = 0;
    for (let c = 1; c <= nsm; c++) {
      const s = Math.min(gridW / (c * cellW), gridH / (Math.ceil(nsm / c) * cellH), 40);
      if (s > scale) { scale = s; cols = c; }
    }
    const rows = Math.ceil(nsm / cols);
    const gx = 10, gy = 60, chartH = 110;
    const H = gy + rows * cellH * scale + 30 + chartH;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = W * dpr; canvas.height = H * dpr;
    canvas.style.width = W + "px"; canvas.style.height = H + "px";
    const ctx = canvas.getContext("2d");
    ctx.scale(dpr, dpr);
    const bmp = document.createElement("canvas");
    bmp.width = cols * cellW; bmp.height = rows * cellH;
    const bctx = bmp.getContext("2d");
    const img = bctx.createImageData(bmp.width, bmp.height);
    const px = new Uint32Array(img.data.buffer);
    const l2x = gx + cols * cellW * scale + 60, l2w = W - l2x - 150;
    const nsl = M.l2_slices, slCols = Math.max(1, Math.ceil(Math.sqrt(nsl / 2)));
    const slRows = Math.ceil(nsl / slCols);
    const slH = Math.min(16, (rows * cellH * scale) / slRows), slW = l2w / slCols;
    const dramX = W - 110, dramY = gy, dramH = rows * cellH * scale;
    const smCenter = (sm) => [gx + ((sm % cols) * cellW + wsub / 2) * scale,
                              gy + (Math.floor(sm / cols) * cellH + cellH / 2) * scale];
    const slCenter = (sl) => [l2x + ((sl % slCols) + 0.5) * slW, gy + (Math.floor(sl / slCols) + 0.5) * slH];
    const chartY = H - chartH;

    // the counter chart, drawn once
    const chart = document.createElement("canvas");
    chart.width = W * dpr; chart.height = chartH * dpr;
    const cctx = chart.getContext("2d");
    cctx.scale(dpr, dpr);
    const series = [["L2 B/cycle requested", "#4fc3f7", (k) => D.l2_bytes[k] / fc],
                    ["DRAM B/cycle requested", "#ffb74d", (k) => D.dram_bytes[k] / fc],
                    ["resident warps", "#43c463", (k) => sumSM(D.active, k)],
                    ["L1 misses in flight", "#e57373", (k) => sumSM(D.outstanding, k)]];
    function sumSM(a, k) { let s = 0; for (let i = 0; i < nsm; i++) s += a[k * nsm + i]; return s; }
    series.forEach(([name, color, f], j) => {
      let mx = 1e-9;
      for (let k = 0; k < nframes; k++) mx = Math.max(mx, f(k));
      cctx.strokeStyle = color; cctx.beginPath();
      for (let k = 0; k < nframes; k++) {
        const x = gx + (k / Math.max(1, nframes)) * (W - 2 * gx), y = chartH - 8 - (f(k) / mx) * (chartH - 24);
        k ? cctx.lineTo(x, y) : cctx.moveTo(x, y);
      }
      cctx.stroke();
      cctx.fillStyle = color; cctx.font = "11px system-ui";
      cctx.fillText(`${name} (max ${mx.toFixed(mx < 10 ? 1 : 0)})`, gx + j * 240, 11);
    });

    // ---------------------------------------------------------------- state
    let t = 0, playing = false, last = null, frame = 0, rendered = 0, fps = 0, sel = null;
    const stamps = [];
    let maxDur = 0;
    for (let i = 0; i < nreq; i++) maxDur = Math.max(maxDur, D.req[i * 7 + 6] - D.req[i * 7 + 4]);

    function firstReq(c) {       // first request issued at or after cycle c (sorted by issue)
      let lo = 0, hi = nreq;
      while (lo < hi) { const m = (lo + hi) >> 1; if (D.req[m * 7 + 4] < c) lo = m + 1; else hi = m; }
      return lo;
    }

    function paintBitmap(k) {
      px.fill(0);
      const base = k * nsm * wps;
      for (let sm = 0; sm < nsm; sm++) {
        const ox = (sm % cols) * cellW, oy = Math.floor(sm / cols) * cellH;
        for (let j = 0; j < wps; j++) {
          const p = j % nsub, i = (j / nsub) | 0;
          px[(oy + 1 + p) * bmp.width + ox + i] = stateRGBA[D.warp_state[base + sm * wps + j]];
        }
      }
      bctx.putImageData(img, 0, 0);
      for (let c = 0; c < ncta; c++) {        // resident CTAs: the top row of each SM, one part per slot
        const s = D.cta[c * 5 + 3], e = D.cta[c * 5 + 4];
        if (s > t || (e >= 0 && e <= t)) continue;
        const sm = D.cta[c * 5 + 1], slot = D.cta[c * 5 + 2] % cps;
        const x0 = Math.floor(slot * wsub / cps), x1 = Math.max(x0 + 1, Math.floor((slot + 1) * wsub / cps));
        bctx.fillStyle = ctaColor(D.cta[c * 5]);
        bctx.fillRect((sm % cols) * cellW + x0, Math.floor(sm / cols) * cellH, x1 - x0, 1);
      }
    }

    function draw() {
      frame = Math.min(nframes - 1, Math.floor(t / fc));
      ctx.fillStyle = "#111"; ctx.fillRect(0, 0, W, H);
      paintBitmap(frame);
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(bmp, gx, gy, bmp.width * scale, bmp.height * scale);
      // GigaThread engine and the CTAs it handed out lately
      ctx.fillStyle = "#333"; ctx.fillRect(gx, 8, 170, 30);
      let started = 0;
      const win = Math.max(fc, M.cycles / 200);
      ctx.lineWidth = 1;
      for (let c = 0; c < ncta; c++) {
        const s = D.cta[c * 5 + 3];
        if (s <= t) started++;
        if (s <= t && s > t - win) {
          const [x, y] = smCenter(D.cta[c * 5 + 1]);
          ctx.strokeStyle = ctaColor(D.cta[c * 5]); ctx.globalAlpha = 1 - (t - s) / win;
          ctx.beginPath(); ctx.moveTo(gx + 85, 38); ctx.lineTo(x, y); ctx.stroke();
        }
      }
      ctx.globalAlpha = 1;
      ctx.fillStyle = "#ddd"; ctx.font = "12px system-ui";
      ctx.fillText(`GigaThread: ${started} / ${M.ctas_total} CTAs`, gx + 6, 27);
      // L2 slices, DRAM
      ctx.fillStyle = "#aaa"; ctx.fillText("interconnect → L2 slices", l2x, gy - 8);
      ctx.fillStyle = "#22313a";
      for (let sl = 0; sl < nsl; sl++) {
        ctx.fillRect(l2x + (sl % slCols) * slW + 1, gy + Math.floor(sl / slCols) * slH + 1, slW - 2, slH - 2);
      }
      ctx.fillStyle = "#3a2d1c"; ctx.fillRect(dramX, dramY, 90, dramH);
      ctx.fillStyle = "#aaa"; ctx.fillText("DRAM", dramX + 28, dramY - 8);
      // requests in flight
      let drawn = 0;
      for (let i = firstReq(t - maxDur); i < nreq && drawn < 3000; i++) {
        const q = i * 7, iss = D.req[q + 4], back = D.req[q + 6];
        if (iss > t) break;
        if (back < t) continue;
        const where = D.req[q + 2], sl = D.req[q + 3], at = D.req[q + 5];
        const a = smCenter(D.req[q]);
        let x = a[0], y = a[1];
        if (sl >= 0 && at >= 0) {
          const b = slCenter(sl);
          const lerp = (p, q2, f) => [p[0] + (q2[0] - p[0]) * f, p[1] + (q2[1] - p[1]) * f];
          let pos;
          if (t < at) pos = lerp(a, b, (t - iss) / Math.max(1, at - iss));
          else {
            const f = (t - at) / Math.max(1, back - at);
            const d = [dramX + 45, b[1]];
            if (where === 2 && f < 0.7) pos = f < 0.35 ? lerp(b, d, f / 0.35) : lerp(d, b, (f - 0.35) / 0.35);
            else if (where === 2) pos = lerp(b, a, (f - 0.7) / 0.3);
            else pos = lerp(b, a, f);
          }
          x = pos[0]; y = pos[1];
        }
        ctx.fillStyle = WHERE_COLORS[where];
        ctx.fillRect(x - 1.5, y - 1.5, 3, 3);
        drawn++;
      }
      // selection
      if (sel) {
        const [cx, cy] = smCenter(sel.sm);
        ctx.strokeStyle = "#fff"; ctx.lineWidth = 2;
        ctx.strokeRect(cx - wsub * scale / 2 - 1, cy - cellH * scale / 2 - 1, wsub * scale + 2, (cellH - 1) * scale + 2);
      }
      ctx.drawImage(chart, 0, chartY, W, chartH);
      const hx = gx + (t / Math.max(1, M.cycles)) * (W - 2 * gx);
      ctx.strokeStyle = "#fff"; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(hx, chartY); ctx.lineTo(hx, H); ctx.stroke();
      clock.textContent = `cycle ${Math.floor(t).toLocaleString()} (${(t / M.clock_mhz).toFixed(3)} µs), ` +
        `frame ${frame + 1}/${nframes}`;
      scrub.value = Math.floor(t);
      if (sel) showInfo();
      rendered++;
    }

    function showInfo() {
      const sm = sel.sm;
      if (sel.warp === undefined) {
        const rowsTxt = [];
        let now = 0;
        for (let c = 0; c < ncta; c++) {
          if (D.cta[c * 5 + 1] !== sm) continue;
          const s = D.cta[c * 5 + 3], e = D.cta[c * 5 + 4];
          const on = s <= t && (e < 0 || e > t);
          if (on) now++;
          if (rowsTxt.length < 200) rowsTxt.push(`CTA ${D.cta[c * 5]} slot ${D.cta[c * 5 + 2] % cps}: cycles ${s}–${e}` + (on ? "  (running)" : ""));
        }
        info.textContent = `SM ${sm}: ${now} CTA(s) resident now, ${D.active[frame * nsm + sm]} warps, ` +
          `${D.outstanding[frame * nsm + sm]} L1 misses in flight\n` + rowsTxt.join("\n");
      } else {
        const s = D.warp_state[frame * nsm * wps + sm * wps + sel.warp];
        info.textContent = `SM ${sm}, warp slot ${sel.warp} (sub-partition ${sel.warp % nsub}): ` +
          `${M.states[s]}: ${M.plain[s]}`;
      }
    }

    function pick(ev) {
      const r = canvas.getBoundingClientRect();
      const bx = (ev.clientX - r.left - gx) / scale, by = (ev.clientY - r.top - gy) / scale;
      if (bx < 0 || by < 0 || bx >= cols * cellW || by >= rows * cellH) return;
      const sm = Math.floor(by / cellH) * cols + Math.floor(bx / cellW);
      if (sm >= nsm) return;
      const x = Math.floor(bx) % cellW, y = Math.floor(by) % cellH;
      sel = (y >= 1 && y <= nsub && x < wsub && x * nsub + y - 1 < wps) ? { sm, warp: x * nsub + y - 1 } : { sm };
      draw();
    }
    canvas.addEventListener("click", pick);

    function tick(ts) {
      stamps.push(ts);
      while (stamps.length && stamps[0] < ts - 1000) stamps.shift();
      fps = stamps.length;
      if (playing && last !== null) {
        t += (ts - last) / 1000 * M.cycles / Number(speedSel.value);
        if (t >= M.cycles) { t = M.cycles; api.pause(); }
      }
      last = ts;
      if (playing || rendered === 0) draw();
      requestAnimationFrame(tick);
    }
    const api = {
      get frame() { return frame; }, get playing() { return playing; }, get fps() { return fps; },
      get t() { return t; }, get rendered() { return rendered; }, frames: nframes, cycles: M.cycles,
      play() { if (t >= M.cycles) t = 0; playing = true; playBtn.textContent = "❚❚ pause"; },
      pause() { playing = false; playBtn.textContent = "▶ play"; },
      seek(c) { t = Math.max(0, Math.min(M.cycles, Number(c))); draw(); },
      smBox(sm) {       // page coordinates of SM sm's box; its top row (the CTA slots) selects the SM
        const r = canvas.getBoundingClientRect();
        return { x: r.left + gx + (sm % cols) * cellW * scale, y: r.top + gy + Math.floor(sm / cols) * cellH * scale,
                 w: wsub * scale, h: (cellH - 1) * scale, cell: scale };
      },
    };
    playBtn.addEventListener("click", () => (playing ? api.pause() : api.play()));
    scrub.addEventListener("input", () => api.seek(scrub.value));
    requestAnimationFrame(tick);
    return api;
  }

  function start() {
    const roots = document.querySelectorAll(".gpusim-anim");
    roots.forEach((root) => {
      mount(root).then((api) => { window.gpusimAnim = api; root.gpusimAnim = api; })
        .catch((e) => { console.error("gpusim animation:", e); });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
