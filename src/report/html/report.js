// SPDX-License-Identifier: MIT
// memprism visual report: draws the JSON in #mp-data (report_html.c) with
// plain DOM and canvas. No library, no network. #status says "ok ..." when
// everything was drawn, or lists the errors (the browser test reads it).
"use strict";
(function () {
	const t_start = performance.now();
	const errors = [];
	const status = document.getElementById("status");
	const origError = console.error;
	console.error = function (...a) {
		errors.push(a.join(" "));
		origError.apply(console, a);
	};
	window.addEventListener("error", (e) => {
		errors.push(String(e.message));
		status.textContent = "error: " + errors.join("; ");
	});

	const D = JSON.parse(document.getElementById("mp-data").textContent);
	const app = document.getElementById("app");
	const T = D.time.T, A = D.time.A;
	const COL_LOAD = [31, 119, 180], COL_DRAM = [255, 127, 14], COL_STORE = [214, 39, 40];

	function el(tag, attrs, ...kids) {
		const e = document.createElement(tag);
		for (const k in attrs || {}) {
			if (k === "text") e.textContent = attrs[k];
			else if (k.startsWith("on")) e.addEventListener(k.slice(2), attrs[k]);
			else e.setAttribute(k, attrs[k]);
		}
		for (const c of kids) if (c !== null && c !== undefined) e.append(c);
		return e;
	}
	const fmt = (n) => Number(n).toLocaleString("en-US");
	function human(b) {
		const u = ["B", "KiB", "MiB", "GiB", "TiB"];
		let i = 0;
		while (b >= 1024 && i < 4) { b /= 1024; i++; }
		return i ? b.toFixed(1) + " " + u[i] : b + " B";
	}
	const pct = (a, b) => (b ? ((100 * a) / b).toFixed(1) + "%" : "-");
	const acc = (o) => o.loads + o.stores;
	const short = (s, n) => (s.length > n ? s.slice(0, n - 1) + "\u2026" : s);
	const total = D.total.accesses;
	const objById = new Map(D.objects.map((o) => [o.id, o]));
	const patText = (o) => (o.pattern ? o.pattern.text : "-");
	// a row standing for several objects (a site over its contexts): what
	// adds up added, the largest size, every thread, one kind or "mixed"
	function sumOf(objs, label) {
		const g = { label, loads: 0, stores: 0, size: 0, instances: 0, bytes: 0, threads: [], kind: objs[0].kind, pattern: null };
		const threads = new Set();
		for (const o of objs) {
			g.loads += o.loads; g.stores += o.stores; g.instances += o.instances; g.bytes += o.bytes;
			g.size = Math.max(g.size, o.size);
			o.threads.forEach((t) => threads.add(t));
			if (o.kind !== g.kind) g.kind = "mixed";
			if (o.mem) {
				g.mem = g.mem || { dram_reads: 0, dram_writes: 0, dram: 0, refs: 0, walks: 0 };
				for (const k of Object.keys(g.mem)) g.mem[k] += o.mem[k] || 0;
			}
		}
		g.threads = [...threads].sort((a, b) => a - b);
		return g;
	}

	// --- summary -------------------------------------------------------
	function summary() {
		const dl = el("dl", { class: "sum" });
		const row = (k, v) => dl.append(el("dt", { text: k }), el("dd", {}, v));
		row("command", el("code", { text: D.command || "?" }));
		row("data file", D.data || "memprism.data");
		row("processes", D.processes.map((p) => p.pid + " " + (p.exe || "?") + (p.instrumented ? "" : " (not instrumented)")).join(", "));
		row("threads", String(D.threads.length));
		const what = D.source === "valgrind" ? "valgrind: every load and store of every instruction, program and libraries "
			: "inst: every load and store of memprism cc/gcc code ";
		row("source", el("span", {}, what, el("span", { class: "measured", text: "(measured counts)" })));
		for (const u of D.unseen || []) row("unseen", u);
		if (D.mem_origin === "modelled")
			row("model", el("span", {}, D.machine + ": cache, TLB and DRAM figures are ", el("span", { class: "modelled", text: "MODELLED" })));
		else if (D.mem_origin === "measured")
			row("memory levels", el("span", { class: "measured", text: "measured (PMU samples)" }));
		else row("memory levels", "none (no model: run report --model MACHINE --html ...)");
		let a = fmt(total) + " (loads " + fmt(D.total.loads) + ", stores " + fmt(D.total.stores) + ", " + human(D.total.bytes) + ")";
		if (D.roi) a += " inside region '" + D.roi + "'; " + fmt(D.total.outside_roi) + " outside";
		row("accesses", a);
		if (D.mem)
			row("modelled DRAM", "reads " + fmt(D.mem.dram_reads) + ", writes " + fmt(D.mem.dram_writes) + ", page walks " + fmt(D.mem.walks));
		row("allocations", fmt(D.allocations) + " (frees " + fmt(D.frees) + ")");
		if (D.sample_factor !== 1) row("sampling", "counts are estimates: recorded x " + D.sample_factor.toFixed(2));
		row("exit status", D.exit_status >= 256 ? "killed by signal " + (D.exit_status - 256) : String(D.exit_status));
		app.append(dl);
		for (const w of D.warnings) app.append(el("div", { class: "warn", text: "warning: " + w }));
	}

	// --- grids -----------------------------------------------------------
	// Decoded lazily: [loads, stores, dram|null, max cell count]
	const decoded = new Map();
	function grid(gi) {
		if (decoded.has(gi)) return decoded.get(gi);
		const g = D.grids[gi], n = T * A, w = g.dram ? 4 : 3;
		const L = new Uint32Array(n), S = new Uint32Array(n), R = g.dram ? new Uint32Array(n) : null;
		let max = 0;
		for (let i = 0; i < g.cells.length; i += w) {
			const c = g.cells[i];
			L[c] = g.cells[i + 1];
			S[c] = g.cells[i + 2];
			if (R) R[c] = g.cells[i + 3];
			max = Math.max(max, L[c] + S[c]);
		}
		const r = [L, S, R, max];
		decoded.set(gi, r);
		return r;
	}
	// Colour of a cell: stores red, loads blue (orange as a growing share
	// of them was served by DRAM, with a model); log intensity.
	function paint(px, i, l, s, d, max) {
		const n = l + s;
		if (!n) return;
		const k = 0.3 + (0.7 * Math.log1p(n)) / Math.log1p(max);
		const q = d === null || !l ? 0 : d / l, ls = l / n;
		const lc = COL_LOAD.map((c, j) => c + (COL_DRAM[j] - c) * q);
		for (let j = 0; j < 3; j++) {
			const c = lc[j] * ls + COL_STORE[j] * (1 - ls);
			px[i + j] = 255 - (255 - c) * k;
		}
		px[i + 3] = 255;
	}
	function timeAxis(ctx, x0, y0, w) {
		const span = (D.time.t1 - D.time.t0) / 1e6;
		ctx.fillStyle = "#333";
		ctx.font = "11px sans-serif";
		ctx.textAlign = "center";
		for (let i = 0; i <= 4; i++) {
			const x = x0 + (w * i) / 4;
			ctx.fillRect(x, y0, 1, 4);
			ctx.fillText(((span * i) / 4).toFixed(span < 10 ? 2 : 0) + " ms", Math.min(x, x0 + w - 20), y0 + 15);
		}
		ctx.fillText("time since first access", x0 + w / 2, y0 + 28);
	}
	const PL = 78, PT = 8;
	function objectPlot(gi) {
		const g = D.grids[gi], o = objById.get(g.obj);
		const [L, S, R, max] = grid(gi);
		const cv = el("canvas", { width: PL + T + 10, height: PT + A + 36, "data-grid": gi });
		const ctx = cv.getContext("2d");
		ctx.fillStyle = "#fff";
		ctx.fillRect(0, 0, cv.width, cv.height);
		const img = ctx.createImageData(T, A);
		img.data.fill(255);
		for (let t = 0; t < T; t++)
			for (let a = 0; a < A; a++) {
				const c = t * A + a;
				if (L[c] || S[c]) paint(img.data, ((A - 1 - a) * T + t) * 4, L[c], S[c], R ? R[c] : null, max);
			}
		ctx.putImageData(img, PL, PT);
		ctx.strokeStyle = "#999";
		ctx.strokeRect(PL - 0.5, PT - 0.5, T + 1, A + 1);
		ctx.fillStyle = "#333";
		ctx.font = "11px sans-serif";
		ctx.textAlign = "right";
		for (let i = 0; i <= 4; i++) {
			const y = PT + A - (A * i) / 4;
			ctx.fillRect(PL - 4, y, 4, 1);
			ctx.fillText("+" + human(Math.round((g.span * i) / 4)), PL - 6, Math.max(y + 4, PT + 8));
		}
		// where a gap between the accessed addresses was left out
		ctx.fillStyle = "#888";
		for (let k = 1; k < g.segs.length; k++) {
			const y = Math.round(PT + A - (A * g.segs[k][2]) / g.span);
			for (let x = 0; x < T; x += 6) ctx.fillRect(PL + x, y, 3, 1);
		}
		timeAxis(ctx, PL, PT + A + 2, T);
		const p = o.pattern;
		const ev = p && p.kind !== "few"
			? " \u2014 dominant delta " + p.stride + " B explains " + (100 * p.share).toFixed(1) + "% of moves, top 4 " +
				(100 * p.top_share).toFixed(1) + "%, forward " + (100 * p.forward).toFixed(0) + "% / backward " +
				(100 * p.backward).toFixed(0) + "%, " + p.streams + " thread stream" + (p.streams === 1 ? "" : "s")
			: "";
		return el("div", { class: "plot", id: "plot-" + o.id },
			el("h3", { text: o.label, title: o.label }),
			el("div", { class: "pat" }, el("b", { text: "pattern: " + patText(o) }), ev),
			el("div", { class: "pat", text: (g.segs.length > 1
				? "addresses in " + g.segs.length + " ranges laid end to end (the gaps between them left out, dashed): " +
					g.segs.map(sg => sg[0] + " (" + human(sg[1]) + ")").join(", ")
				: "address " + g.lo + " + offset") + "; " + fmt(g.binned) + " accesses binned, " + fmt(acc(o)) + " counted" }),
			cv);
	}
	// All plotted objects as bands of one address axis (the BSC tools paper's Figure 3).
	function overview() {
		const n = D.grids.length;
		const bh = Math.max(28, Math.min(72, Math.floor(560 / n))), LW = 300;
		const cv = el("canvas", { width: LW + T + 10, height: PT + n * bh + 36, id: "overview" });
		const ctx = cv.getContext("2d");
		ctx.fillStyle = "#fff";
		ctx.fillRect(0, 0, cv.width, cv.height);
		const img = ctx.createImageData(T, n * bh);
		img.data.fill(255);
		for (let gi = 0; gi < n; gi++) {
			const [L, S, R] = grid(gi);
			// fold A address bins into bh rows
			const l = new Float64Array(T * bh), s = new Float64Array(T * bh), d = new Float64Array(T * bh);
			let max = 0;
			for (let t = 0; t < T; t++)
				for (let a = 0; a < A; a++) {
					const c = t * A + a;
					if (!L[c] && !S[c]) continue;
					const y = t * bh + Math.floor((a * bh) / A);
					l[y] += L[c];
					s[y] += S[c];
					if (R) d[y] += R[c];
					max = Math.max(max, l[y] + s[y]);
				}
			for (let t = 0; t < T; t++)
				for (let y = 0; y < bh; y++) {
					const c = t * bh + y;
					if (l[c] || s[c]) paint(img.data, ((gi * bh + bh - 1 - y) * T + t) * 4, l[c], s[c], R ? d[c] : null, max);
				}
		}
		ctx.putImageData(img, LW, PT);
		ctx.font = "11px sans-serif";
		for (let gi = 0; gi < n; gi++) {
			const o = objById.get(D.grids[gi].obj), y = PT + gi * bh;
			ctx.strokeStyle = "#bbb";
			ctx.strokeRect(LW - 0.5, y - 0.5, T + 1, bh);
			ctx.fillStyle = "#333";
			ctx.textAlign = "right";
			ctx.fillText(short(o.label, 44), LW - 6, y + bh / 2);
			ctx.fillStyle = "#777";
			ctx.fillText(patText(o), LW - 6, y + bh / 2 + 13);
		}
		timeAxis(ctx, LW, PT + n * bh + 2, T);
		return cv;
	}
	function legend() {
		const sw = (c) => el("span", { style: "background: rgb(" + c.join(",") + ")" });
		return el("div", { class: "legend" }, sw(COL_LOAD), "loads", D.grids.some((g) => g.dram) ? sw(COL_DRAM) : null,
			D.grids.some((g) => g.dram) ? "loads served by DRAM (modelled)" : null, sw(COL_STORE), "stores",
			" \u2014 darker: more accesses (log scale); time is interpolated between the trace's time stamps");
	}

	// --- object table ----------------------------------------------------
	function objectTable() {
		const mem = D.mem_origin !== "none";
		const cols = [
			["accesses", (o) => acc(o), true], ["share", (o) => acc(o), true, (o) => pct(acc(o), total)],
			["loads", (o) => o.loads, true], ["stores", (o) => o.stores, true],
			["size", (o) => o.size, true, (o) => (o.size ? human(o.size) : "-")],
			["instances", (o) => o.instances, true], ["threads", (o) => o.threads.length, true, (o) => o.threads.slice(0, 3).join(",") + (o.threads.length > 3 ? ",+" + (o.threads.length - 3) : "")],
			["kind", (o) => o.kind, false], ["pattern", patText, false],
		];
		if (mem)
			cols.push(["DRAM reads", (o) => o.mem.dram_reads, true], ["DRAM writes", (o) => o.mem.dram_writes, true],
				["DRAM%", (o) => (o.mem.refs ? o.mem.dram / o.mem.refs : 0), true, (o) => pct(o.mem.dram, o.mem.refs)],
				["walks", (o) => o.mem.walks, true]);
		cols.push(["object", (o) => o.label, false]);
		const tbody = el("tbody");
		const heads = cols.map((c, i) => el("th", { class: c[2] ? "" : "l", text: c[0], onclick: () => sortBy(i) }));
		const table = el("table", { id: "objects" }, el("thead", {}, el("tr", {}, ...heads)), tbody);
		let key = 0, asc = false;
		function detail(o) {
			const d = el("td", { colspan: cols.length });
			if (o.pattern && o.pattern.kind !== "few")
				d.append(el("div", { text: "pattern " + o.pattern.text + ": dominant delta " + o.pattern.stride + " B, " +
					(100 * o.pattern.share).toFixed(1) + "% of moves; " + (100 * o.pattern.reuse).toFixed(1) + "% same address again; " + o.pattern.streams + " stream(s)" }));
			d.append(el("div", { text: "threads: " + (o.threads.join(", ") || "none") + "; bytes moved " + human(o.bytes) }));
			if (o.stack.length) {
				const ol = el("ol");
				o.stack.forEach((f, k) =>
					ol.append(el("li", { text: (f[0] || "??") + (f[1] ? " (" + f[1] + ":" + f[2] + ")" : "") + (f[3] ? "  [" + f[3] + "]" : "") + (f[4] ? " inlined" : "") + (k === o.site_frame ? "  \u2190 site" : "") })));
				d.append(el("div", { text: "allocation stack (innermost first):" }), ol);
			}
			if (o.grid >= 0) d.append(el("a", { href: "#plot-" + o.id, text: "time \u00d7 address plot" }));
			return el("tr", { class: "detail" }, d);
		}
		const order = (a, b) => {
			const x = cols[key][1](a), y = cols[key][1](b);
			const r = x < y ? -1 : x > y ? 1 : 0;
			return asc ? r : -r;
		};
		function cells(tr, o, label, depth) {
			for (const c of cols) {
				const lab = c[0] === "object";
				const td = el("td", { class: c[2] ? "" : lab ? "l lab" : "l", text: lab ? label : c[3] ? c[3](o) : c[2] ? fmt(c[1](o)) : c[1](o), title: lab ? o.label : "" });
				if (lab && depth) td.style.paddingLeft = 1.2 * depth + 0.4 + "em";
				tr.append(td);
			}
		}
		function objectRow(o, label, depth, under) {
			const tr = el("tr", { class: "obj", "data-id": o.id });
			if (under) tr.dataset.under = under;
			cells(tr, o, label, depth);
			tr.addEventListener("click", () => {
				const nx = tr.nextSibling;
				if (nx && nx.classList.contains("detail")) nx.remove();
				else tr.after(detail(o));
			});
			tbody.append(tr);
		}
		// A site whose blocks came from several calling contexts ("site <-
		// caller <- ..."): a row of the sums over them, its contexts below
		// it as a tree (DHAT's and heaptrack's), folded by a click.
		function render() {
			tbody.textContent = "";
			let groups = 0;
			function node(n, depth, under) {
				if (n.objs.length === 1 && !n.kids.size) {
					objectRow(n.objs[0], depth ? "\u2190 " + n.name : n.objs[0].label, depth, under);
					return;
				}
				const g = sumOf(n.objs, depth ? "\u2190 " + n.name : n.name);
				const id = "g" + groups++;
				const tr = el("tr", { class: "grp", "data-group": id });
				if (under) tr.dataset.under = under;
				cells(tr, g, "\u25be " + g.label + " (" + n.objs.length + " contexts)", depth);
				tr.addEventListener("click", () => fold(tr, id));
				tbody.append(tr);
				const inner = (under ? under + " " : "") + id;
				if (n.leaf)
					objectRow(n.leaf, "\u2190 (no caller recorded)", depth + 1, inner);
				for (const k of [...n.kids.values()].sort((a, b) => order(a.sum, b.sum)))
					node(k, depth + 1, inner);
			}
			for (const n of [...tree().values()].sort((a, b) => order(a.sum, b.sum)))
				node(n, 0, "");
			tbody.dataset.groups = groups;
			heads.forEach((h, i) => h.className = (cols[i][2] ? "" : "l") + (i === key ? " sorted" + (asc ? " asc" : "") : ""));
		}
		function tree() {
			const root = new Map();
			for (const o of D.objects) {
				let level = root, n = null;
				for (const p of o.label.split(" <- ")) {
					if (!level.has(p)) level.set(p, { name: p, kids: new Map(), objs: [], leaf: null });
					n = level.get(p);
					n.objs.push(o);
					level = n.kids;
				}
				n.leaf = o;
			}
			(function sums(level) {
				for (const n of level.values()) {
					n.sum = n.objs.length === 1 ? n.objs[0] : sumOf(n.objs, n.name);
					if (n.leaf && !n.kids.size && n.objs.length === 1) n.leaf = null;
					sums(n.kids);
				}
			})(root);
			return root;
		}
		function fold(tr, id) {
			const open = tr.classList.toggle("folded");
			tr.querySelector("td.lab").textContent = tr.querySelector("td.lab").textContent.replace(/^\S/, open ? "\u25b8" : "\u25be");
			const folded = new Set([...tbody.querySelectorAll("tr.grp.folded")].map((g) => g.dataset.group));
			for (const r of tbody.querySelectorAll("tr[data-under]"))
				if (r.dataset.under.split(" ").includes(id)) r.hidden = r.dataset.under.split(" ").some((g) => folded.has(g));
			for (const r of tbody.querySelectorAll("tr.detail")) r.remove();
		}
		function sortBy(i) {
			if (key === i) asc = !asc;
			else { key = i; asc = !cols[i][2]; }
			render();
		}
		render();
		return table;
	}

	// --- the hottest functions' source, a <details> each --------------------
	function sources() {
		const mem = D.mem_origin !== "none";
		// the 10 hottest lines of the page are marked
		const all = D.sources.flatMap((s) => s.files.flatMap((f) => f.lines.filter((l) => l.length > 2).map((l) => l[2])));
		all.sort((a, b) => b - a);
		const sum = all.reduce((a, b) => a + b, 0);
		const hot = Math.max(all.length ? all[Math.min(9, all.length - 1)] : Infinity, sum / 100); // and 1% of them
		const box = el("div", { id: "sources" });
		for (const s of D.sources) {
			const d = el("details", D.sources[0] === s ? { class: "src", open: "" } : { class: "src" }, el("summary", { text: s.function + " — " + fmt(s.accesses) + " accesses" }));
			for (const f of s.files) {
				d.append(el("div", { class: "pat", text: f.file + (f.found ? "" : " (source not found: the lines alone)") }));
				const t = el("table", { class: "src" }, el("thead", {}, el("tr", {}, el("th", { text: "accesses" }), el("th", { text: "loads" }),
					el("th", { text: "stores" }), mem ? el("th", { text: "DRAM reads" }) : null, el("th", { text: "line" }), el("th", { class: "l", text: "source" }))));
				const tb = el("tbody");
				let last = 0;
				for (const l of f.lines) {
					if (last && l[0] > last + 1) tb.append(el("tr", {}, el("td", { class: "gap", colspan: mem ? 6 : 5, text: "⋮" })));
					last = l[0];
					const has = l.length > 2;
					const tr = el("tr", has && l[2] >= hot ? { class: "hot" } : {}, el("td", { text: has ? fmt(l[2]) : "" }), el("td", { text: has ? fmt(l[3]) : "" }),
						el("td", { text: has ? fmt(l[4]) : "" }), mem ? el("td", { text: has ? fmt(l[5]) : "" }) : null, el("td", { text: String(l[0]) }),
						el("td", { class: "l code", text: l[1] }));
					tb.append(tr);
				}
				t.append(tb);
				d.append(t);
			}
			box.append(d);
		}
		return box;
	}

	// --- memory levels per function (model or PMU) ------------------------
	function functions() {
		const lv = [["L1", "l1", "#4c9f38"], ["LFB", "lfb", "#9acd32"], ["L2", "l2", "#f2c200"], ["L3", "l3", "#f28e2b"], ["DRAM", "dram", "#d62728"]];
		const t = el("table", { id: "functions" }, el("thead", {}, el("tr", {}, el("th", { class: "l", text: "function" }), el("th", { text: "accesses" }), el("th", { text: "refs" }),
			...lv.map((l) => el("th", { text: l[0] + "%" })), el("th", { class: "l", text: "shares" }))));
		const tb = el("tbody");
		for (const f of D.functions) {
			const m = f.mem, bar = el("div", { class: "bar" });
			for (const l of lv) bar.append(el("div", { style: "width:" + (m.refs ? (100 * m[l[1]]) / m.refs : 0) + "%;background:" + l[2], title: l[0] }));
			tb.append(el("tr", {}, el("td", { class: "l lab", text: f.name, title: f.name + " [" + (f.module || "?") + "]" }), el("td", { text: fmt(f.accesses) }), el("td", { text: fmt(m.refs) }),
				...lv.map((l) => el("td", { text: pct(m[l[1]], m.refs) })), el("td", { class: "l" }, bar)));
		}
		t.append(tb);
		return el("div", {}, el("div", { class: "legend" }, ...lv.flatMap((l) => [el("span", { style: "background:" + l[2] }), l[0]])), t);
	}

	// --- page walk CDF (the PTAT paper) ----------------------------------
	function walkCdf() {
		const w = D.page_walks, n = w.length, sum = w.reduce((a, b) => a + b, 0);
		const W = 480, H = 260, L = 50, B = 34;
		const cv = el("canvas", { width: L + W + 10, height: H + B + 10, id: "walk-cdf" });
		const ctx = cv.getContext("2d");
		ctx.fillStyle = "#fff";
		ctx.fillRect(0, 0, cv.width, cv.height);
		ctx.strokeStyle = "#999";
		ctx.strokeRect(L - 0.5, 9.5, W + 1, H + 1);
		ctx.strokeStyle = "#1f77b4";
		ctx.lineWidth = 2;
		ctx.beginPath();
		ctx.moveTo(L, 10 + H);
		let c = 0;
		const marks = [];
		for (let i = 0; i < n; i++) {
			c += w[i];
			const x = L + (W * (i + 1)) / n, y = 10 + H - (sum ? (H * c) / sum : 0);
			ctx.lineTo(x, y);
			for (const q of [0.5, 0.8, 0.9]) if (sum && c >= q * sum && c - w[i] < q * sum) marks.push([q, (i + 1) / n]);
		}
		ctx.stroke();
		ctx.fillStyle = "#333";
		ctx.font = "11px sans-serif";
		ctx.textAlign = "center";
		for (let i = 0; i <= 4; i++) {
			ctx.fillText((25 * i) + "%", L + (W * i) / 4, 10 + H + 14);
			ctx.textAlign = "right";
			ctx.fillText((25 * i) + "%", L - 4, 10 + H - (H * i) / 4 + 4);
			ctx.textAlign = "center";
		}
		ctx.fillText("pages with DTLB misses, most walks first (" + fmt(n) + ")", L + W / 2, 10 + H + 28);
		const txt = marks.map((m) => (100 * m[1]).toFixed(1) + "% of pages hold " + 100 * m[0] + "% of walks").join("; ");
		return el("div", {}, el("div", { class: "pat", text: fmt(sum) + " page walks (modelled). " + txt }), cv);
	}

	// --- NUMA: node x node matrix, objects' timelines (MemProf) -----------
	function numa() {
		const N = D.numa, n = N.nodes;
		const box = el("div", {});
		box.append(el("div", { class: "pat", text: fmt(N.remote) + " of " + fmt(N.accesses) + " accesses remote (" +
			(N.accesses ? (100 * N.remote / N.accesses).toFixed(1) : "0") + "%) [" + (N.origin === "measured" ?
			"measured: PMU samples' data source, scaled by their period" : "modelled: page placement; threads: " + N.threads +
			"; pages: " + N.pages) + "]" }));
		const t = el("table", { id: "numa-matrix" });
		const unknown = N.elsewhere.some((v) => v > 0);
		const hr = el("tr", {}, el("th", { text: "thread's node \u2192 " + (N.origin === "measured" ? "serving node" : "page's node") }));
		for (let j = 0; j < n; j++) hr.append(el("th", { text: "node " + j }));
		if (unknown) hr.append(el("th", { text: "remote, node unknown" }));
		t.append(hr);
		const max = Math.max(1, ...N.matrix);
		for (let i = 0; i < n; i++) {
			const tr = el("tr", {}, el("th", { text: "node " + i }));
			for (let j = 0; j < n; j++) {
				const v = N.matrix[i * n + j], a = v ? 0.15 + (0.85 * v) / max : 0;
				tr.append(el("td", { text: fmt(v), style: "background:" + (i === j ? "rgba(31,119,180," : "rgba(214,39,40,") + a + ")" }));
			}
			if (unknown) tr.append(el("td", { text: fmt(N.elsewhere[i]) }));
			t.append(tr);
		}
		box.append(t);
		// per object: one lane per thread, its runs as bars over time; red: mostly remote
		const objs = N.objects.filter((o) => o.runs.length);
		for (const o of objs) {
			const tids = [...new Set(o.runs.map((r) => r[0]))];
			const t0 = Math.min(...o.runs.map((r) => r[2])), t1 = Math.max(...o.runs.map((r) => r[3]), t0 + 1);
			const W = 640, lane = 14, L = 90;
			const cv = el("canvas", { width: L + W + 10, height: tids.length * lane + 24, class: "numa-timeline" });
			const ctx = cv.getContext("2d");
			ctx.font = "11px sans-serif";
			tids.forEach((tid, k) => { ctx.fillStyle = "#333"; ctx.fillText("tid " + tid, 4, 12 + k * lane); });
			for (const r of o.runs) {
				const k = tids.indexOf(r[0]), x = L + (W * (r[2] - t0)) / (t1 - t0), w = Math.max(2, (W * (r[3] - r[2])) / (t1 - t0));
				ctx.fillStyle = r[5] * 2 > r[4] ? "#d62728" : "#1f77b4";
				ctx.fillRect(x, 3 + k * lane, w, lane - 4);
			}
			ctx.fillStyle = "#333";
			ctx.fillText(((t1 - t0) / 1e6).toFixed(1) + " ms", L + W - 50, tids.length * lane + 18);
			box.append(el("div", { class: "pat", text: o.label + ": " + fmt(o.remote) + " of " + fmt(o.accesses) +
				" remote, home node " + o.home + " (runs of each thread; red: mostly remote)" }), cv);
		}
		if (N.findings.length) {
			const ul = el("ul", { id: "numa-findings" });
			for (const f of N.findings) ul.append(el("li", { text: f.pattern + ": " + f.object + " (node " + f.node + ", " + (100 * f.share).toFixed(1) + "% remote)" }));
			box.append(el("div", { text: "Findings (memprism numa gives the evidence and the fix):" }), ul);
		}
		return box;
	}

	summary();
	app.append(el("h2", { text: "Objects over time (" + D.grids.length + " most accessed; bands on one address axis)" }));
	if (D.grids.length) app.append(legend(), overview());
	else app.append(el("div", { text: "no accesses to plot" }));
	app.append(el("h2", { text: "Objects (" + D.objects.length + "; click a header to sort, a row for its allocation stack)" }), objectTable());
	if (D.findings) {
		/* what to change (report --model has them as text, with the same words) */
		const ul = el("ul", { id: "findings" });
		for (const f of D.findings) {
			const li = el("li", { class: "finding" });
			li.append(el("b", { text: f.kind + ": " + f.object }), el("div", { text: "evidence: " + f.evidence }),
				el("div", { text: "change: " + f.fix }));
			ul.append(li);
		}
		if (!D.findings.length)
			ul.append(el("li", {
				text : "none: no object has page walks, DRAM passes, line use, store fills or set conflicts worth a change"
			}));
		app.append(el("h2", { text: "What to change (from the modelled figures)" }), ul);
	}
	app.append(el("h2", { text: "Time \u00d7 address per object" }), legend());
	const plots = el("div", { id: "plots" });
	for (let gi = 0; gi < D.grids.length; gi++) plots.append(objectPlot(gi));
	app.append(plots);
	if (D.functions && D.functions.length)
		app.append(el("h2", { text: "Memory levels per function (" + D.mem_origin + ", shares of line references)" }), functions());
	if (D.sources && D.sources.length)
		app.append(el("h2", { text: "Source of the hottest functions (click one: its lines' accesses, as memprism annotate shows them)" }), sources());
	if (D.page_walks && D.page_walks.length)
		app.append(el("h2", { text: "Page walks over pages (CDF, modelled)" }), walkCdf());
	if (D.numa) app.append(el("h2", { text: "NUMA: where accesses went (" + D.numa.nodes + " nodes, " + D.numa.origin + ")" }), numa());
	const ms = (performance.now() - t_start).toFixed(0);
	if (errors.length) status.textContent = "error: " + errors.join("; ");
	else
		status.textContent = "ok objects=" + D.objects.length + " rows=" + document.querySelectorAll("#objects tr.obj").length +
			" plots=" + document.querySelectorAll("#plots canvas").length + " overview=" + (document.getElementById("overview") ? 1 : 0) +
			" functions=" + (D.functions ? D.functions.length : 0) + " cdf=" + (document.getElementById("walk-cdf") ? 1 : 0) +
			" numa=" + (document.getElementById("numa-matrix") ? document.querySelectorAll(".numa-timeline").length : -1) +
			" findings=" + (D.findings ? document.querySelectorAll("#findings li.finding").length : -1) +
			" sources=" + document.querySelectorAll("#sources details").length +
			" groups=" + document.querySelectorAll("#objects tr.grp").length + " render_ms=" + ms;
})();
