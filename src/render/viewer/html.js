/* scorch's HTML flame-graph viewer. Plain browser script, no network, no
 * dependencies. Reads three inert blocks written by src/render/html.c
 * (scorch-config, scorch-names, scorch-data: see there for the format),
 * decodes the frames into typed arrays (no object per frame) and draws on
 * canvases no taller than the window: only rows in view are drawn, and
 * frames narrower than a pixel are merged as they are drawn, so the cost of
 * a redraw follows what is visible, not the size of the profile.
 * Names are data: they reach the page only through textContent and
 * canvas text, never as markup. Scripting surface: window.scorch. */
(function () {
	'use strict';
	var t0 = performance.now();
	var $ = function (id) { return document.getElementById(id); };
	var cfg = JSON.parse($('scorch-config').textContent);
	var names = JSON.parse($('scorch-names').textContent);
	var NN = names.length;
	var SCALE = cfg.scale || 1, FACTOR = cfg.factor || 1;
	var ROWH = cfg.frameheight || 16, PAD = 10;
	var FONT = Math.max(8, Math.min(cfg.fontsize || 12, ROWH - 3)) + 'px ' + (cfg.fonttype || 'Verdana') + ', sans-serif';
	var CHARW = (cfg.fontsize || 12) * 0.59;

	/* ---- decoding ---- */
	var bytes;
	if (Uint8Array.fromBase64) {
		bytes = Uint8Array.fromBase64($('scorch-data').textContent);
	} else {
		var raw = atob($('scorch-data').textContent);
		bytes = new Uint8Array(raw.length);
		for (var bi = 0; bi < raw.length; bi++) bytes[bi] = raw.charCodeAt(bi);
		raw = null;
	}
	var pos = 0;
	function varint() {
		var b = bytes[pos++];
		if (b < 128) return b;
		var v = b & 127, mul = 128;
		do {
			b = bytes[pos++];
			v += (b & 127) * mul;
			mul *= 128;
		} while (b >= 128);
		return v;
	}
	function decodeSet(meta) {
		var n = meta.frames, rows = meta.rows;
		var s = newSet(n, rows);
		var i = 0;
		for (var d = 0; d < rows; d++) {
			s.rowStart[d] = i;
			var cnt = varint(), end = 0;
			for (var k = 0; k < cnt; k++, i++) {
				var id = varint();
				s.name[i] = id >>> 1;
				var x = id & 1 ? end + varint() : end, w = varint();
				s.x[i] = x;
				s.w[i] = w;
				s.depth[i] = d;
				end = x + w;
				if (s.delta) {
					var z = varint();
					s.delta[i] = z % 2 ? -(z + 1) / 2 : z / 2;
				}
			}
		}
		s.rowStart[rows] = i;
		s.kind = meta.kind;
		link(s);
		return s;
	}
	function newSet(n, rows) {
		return {
			n: n, rows: rows, rowStart: new Uint32Array(rows + 1), name: new Uint32Array(n),
			x: new Float64Array(n), w: new Float64Array(n), depth: new Uint16Array(n),
			delta: cfg.differential ? new Float64Array(n) : null,
			parent: new Int32Array(n), cs: new Uint32Array(n), ce: new Uint32Array(n)
		};
	}
	/* Parent of each frame, and each frame's children as a range of the
	 * next row (rows are sorted by x and children nest in their parent). */
	function link(s) {
		s.parent[0] = -1;
		for (var d = 1; d < s.rows; d++) {
			var j = s.rowStart[d - 1], je = s.rowStart[d];
			for (var i = s.rowStart[d]; i < s.rowStart[d + 1]; i++) {
				while (j + 1 < je && s.x[i] >= s.x[j] + s.w[j] && s.x[j + 1] <= s.x[i]) j++;
				s.parent[i] = j;
				if (s.ce[j] === 0) s.cs[j] = i;
				s.ce[j] = i + 1;
			}
		}
		s.total = s.n ? s.w[0] : 0;
	}
	var sets = {};
	cfg.sets.forEach(function (m) { sets[m.kind] = decodeSet(m); });
	var colorPx = new Uint32Array(NN);
	for (var ci = 0; ci < NN; ci++, pos += 3)
		colorPx[ci] = (0xff000000 | bytes[pos + 2] << 16 | bytes[pos + 1] << 8 | bytes[pos]) >>> 0;
	/* time: the heat map's cells, and the lines they count (heatmap.js) */
	var TM = null;
	if (cfg.time && sets.graph && typeof scorchTime === 'object') {
		var tcells = scorchTime.decodeCells(bytes, pos, cfg.time), tlines = scorchTime.linesOf(sets.graph);
		if (tlines.n === cfg.time.lines) TM = { cells: tcells, lines: tlines, a: new Float64Array(tlines.n), b: new Float64Array(tlines.n) };
		else if (window.console) console.warn('scorch: heat map left out: ' + tlines.n + ' lines in the graph, ' + cfg.time.lines + ' in the cells');
	}
	bytes = null;
	var tDecode = performance.now() - t0;

	/* Name shown: without a trailing _[k] _[w] _[i] _[j] annotation. */
	var shown = names.map(function (s) { return /_\[[kwij]\]$/.test(s) ? s.slice(0, -4) : s; });

	/* ---- numbers ---- */
	function exact(v) { return v / SCALE * FACTOR; }
	function count(v) { return Math.round(exact(v)); }
	function commify(v) { return String(count(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
	function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(2) + '%' : '0.00%'; }
	/* flamegraph.pl's differential colours, as a packed pixel. */
	function diffPixel(i, s) {
		var nm = names[s.name[i]];
		if (nm === '--') return pack(160, 160, 160);
		if (nm === '-') return pack(200, 200, 200);
		var d = cfg.negate ? -s.delta[i] : s.delta[i], m = cfg.maxdelta;
		if (s.maxdelta) { d = s.delta[i]; m = s.maxdelta; }
		if (d > 0) { var g = Math.trunc(210 * (m - d) / m) & 255; return pack(255, g, g); }
		if (d < 0) { var v = Math.trunc(210 * (m + d) / m) & 255; return pack(v, v, 255); }
		return pack(255, 255, 255);
	}

	/* ---- page ---- */
	function el(tag, attrs, text) {
		var e = document.createElement(tag);
		for (var k in attrs) e.setAttribute(k, attrs[k]);
		if (text !== undefined) e.textContent = text;
		return e;
	}
	var header = el('header'), h1 = el('h1', { id: 'sc-title' }), sub = el('div', { id: 'sc-subtitle' });
	var bar = el('div', { id: 'sc-bar' }), crumbs = el('div', { id: 'sc-crumbs' });
	header.append(h1, sub, bar, crumbs);
	var viewButtons = {};
	['flame', 'icicle', 'chart', 'table', 'sandwich'].forEach(function (v) {
		var b = el('button', { type: 'button', id: 'sc-view-' + v, 'aria-pressed': 'false' },
			{ flame: 'Flame graph', icicle: 'Icicle', chart: 'Flame chart', table: 'Functions', sandwich: 'Sandwich' }[v]);
		b.addEventListener('click', function () { setView(v); });
		viewButtons[v] = b;
		bar.append(b);
	});
	if (!sets.chart) {
		viewButtons.chart.disabled = true;
		viewButtons.chart.title = 'the input keeps no time order (draw with --flamechart)';
	}
	var resetBtn = el('button', { type: 'button', id: 'sc-reset' }, 'Reset zoom');
	resetBtn.addEventListener('click', function () { reset(); });
	var searchBox = el('input', { type: 'search', id: 'sc-search', placeholder: 'Search (regex)  /', spellcheck: 'false', 'aria-label': 'search' });
	var caseBox = el('input', { type: 'checkbox', id: 'sc-case' });
	var caseLabel = el('label', { title: 'case sensitive' });
	caseLabel.append(caseBox, document.createTextNode(' Aa'));
	var matched = el('span', { id: 'sc-matched' });
	var darkBtn = el('button', { type: 'button', id: 'sc-dark', 'aria-pressed': 'false' }, 'Dark');
	bar.append(resetBtn, el('span', { class: 'grow' }), searchBox, caseLabel, matched, darkBtn);
	var main = el('main');
	var tableBox = el('div', { id: 'sc-table' });
	var footer = el('footer', { id: 'sc-details' }, '\u00a0');
	var tip = el('div', { id: 'sc-tip' });
	var heat = null;
	if (TM) {
		heat = new scorchTime.HeatMap({ tc: cfg.time, cells: TM.cells, el: el, tip: tip, commify: commify,
			countname: cfg.countname || 'samples', onchange: function (r) { setRanges(r, true); } });
		document.body.append(header, heat.box, main, footer, tip);
	} else document.body.append(header, main, footer, tip);

	/* ---- state ---- */
	var state = { view: sets.graph ? 'flame' : 'chart', zoom: 0, search: '', ignoreCase: true, func: -1, ranges: [] };
	if (cfg.inverted && sets.graph) state.view = 'icicle';
	if (cfg.flamechart && sets.chart) state.view = 'chart';
	var match = null;        /* Uint8Array per name id, or null */
	var matchShare = 0;
	var panes = [];

	function curSet() { return state.view === 'chart' ? sets.chart : graphSet(); }

	/* ---- time ranges: the graph of one range, or two compared ---- */
	var ranged = null; /* { set, ranges, share, before, after, scale } or null */
	function graphSet() { return ranged ? ranged.set : sets.graph; }
	function clampCells(r) {
		var c0 = Math.max(0, Math.min(r[0], TM.cells.cells)), c1 = Math.max(c0, Math.min(r[1], TM.cells.cells));
		return [c0, c1];
	}
	/* ranges: [c0, c1) cell pairs (none: the whole graph). */
	function setRanges(ranges, fromHeat) {
		if (!TM) return null;
		ranges = (ranges || []).slice(0, 2).map(clampCells).filter(function (r) { return r[1] > r[0]; });
		var all = sets.graph.total;
		if (!ranges.length) ranged = null;
		else {
			var b = scorchTime.rangeWidths(TM.cells, ranges[ranges.length - 1][0], ranges[ranges.length - 1][1], TM.b);
			var a = ranges.length > 1 ? scorchTime.rangeWidths(TM.cells, ranges[0][0], ranges[0][1], TM.a) : 0;
			var k = ranges.length > 1 ? (a > 0 ? b / a : 1) : 1;
			ranged = { ranges: ranges, after: b, before: a, scale: k, share: all > 0 ? b / all : 0,
				shareBefore: all > 0 ? a / all : 0,
				set: scorchTime.rangeSet(sets.graph, TM.lines, TM.b, ranges.length > 1 ? TM.a : null, k, newSet, null) };
		}
		if (heat && !fromHeat) { heat.ranges = ranges; heat.draw(); }
		rangeStatus();
		state.zoom = 0;
		if (state.view === 'chart') state.view = 'flame';
		var p = mainPane();
		if (p && (state.view === 'flame' || state.view === 'icicle')) {
			/* the same pane, another set: no new canvas */
			p.set = graphSet();
			p.zoom = 0;
			p.sel = -1;
			p.fit();
			p.scrollToRoot();
			crumbsFor(p);
			runSearch();
		} else setView(state.view);
		return ranged;
	}
	/* a range's first cell may start before the first sample (cells are
	 * aligned to whole seconds): it is shown from 0, not as -0.00 */
	function secs(c) { return Math.max(0, scorchTime.timeOf(c, cfg.time.first)).toFixed(2); }
	function rangeStatus() {
		if (!heat) return;
		if (!ranged) { heat.status.textContent = 'drag (or click, then shift-click) to select a range; Compare or Alt-drag: a second one'; return; }
		var r = ranged.ranges, t = '';
		if (r.length > 1)
			t = 'before ' + secs(r[0][0]) + '\u2013' + secs(r[0][1]) + ' s (' + commify(ranged.before) + ', ' + pct(ranged.before, sets.graph.total) +
				' of all, scaled \u00d7' + ranged.scale.toFixed(3) + ') vs after ';
		t += secs(r[r.length - 1][0]) + '\u2013' + secs(r[r.length - 1][1]) + ' s: ' + commify(ranged.after) + ' ' +
			(cfg.countname || 'samples') + ', ' + pct(ranged.after, sets.graph.total) + ' of all';
		heat.status.textContent = t;
	}
	function dark() { return document.documentElement.classList.contains('dark'); }

	/* ---- panes: a scrolling box with a spacer and a sticky canvas ---- */
	function Pane(set, rootTop) {
		this.set = set;
		this.rootTop = rootTop;
		this.zoom = 0;
		this.sel = -1;
		this.box = el('div', { class: 'sc-pane' });
		this.canvas = el('canvas');
		this.spacer = el('div');
		this.box.append(this.canvas, this.spacer);
		var self = this;
		this.box.addEventListener('scroll', function () { self.draw(); });
		this.canvas.addEventListener('mousemove', function (e) { self.hover(e); });
		this.canvas.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
		this.canvas.addEventListener('click', function (e) {
			var i = self.at(e);
			if (i >= 0) { self.sel = i; self.onpick(i); }
		});
		this.canvas.addEventListener('dblclick', function (e) { if (self.at(e) < 0) reset(); });
	}
	Pane.prototype.height = function () { return (this.set.rows + 1) * ROWH + 2 * PAD; };
	/* A flame graph shorter than its pane sits on the pane's bottom. */
	Pane.prototype.bottom = function () { return Math.max(this.height(), this.h || 0); };
	Pane.prototype.rowY = function (d) {
		return this.rootTop ? PAD + d * ROWH : this.bottom() - PAD - (d + 1) * ROWH;
	};
	Pane.prototype.fit = function () {
		var w = this.box.clientWidth, h = this.box.clientHeight, r = window.devicePixelRatio || 1;
		this.spacer.style.height = Math.max(0, this.height() - h) + 'px';
		this.canvas.style.width = w + 'px';
		this.canvas.style.height = h + 'px';
		this.canvas.width = Math.max(1, Math.round(w * r));
		this.canvas.height = Math.max(1, Math.round(h * r));
		this.ratio = r;
		this.w = w;
		this.h = h;
	};
	Pane.prototype.scrollToRoot = function () {
		this.box.scrollTop = this.rootTop ? 0 : this.box.scrollHeight;
	};
	/* Frames of row d, index range [lo, hi) with x in [a, b). */
	function lowerBound(s, lo, hi, x) {
		while (lo < hi) {
			var m = (lo + hi) >>> 1;
			if (s.x[m] + s.w[m] <= x && s.x[m] < x) lo = m + 1; else hi = m;
		}
		return lo;
	}
	function startAtOrAfter(s, lo, hi, x) {
		while (lo < hi) {
			var m = (lo + hi) >>> 1;
			if (s.x[m] < x) lo = m + 1; else hi = m;
		}
		return lo;
	}
	/* Drawing writes pixels into an ImageData (one Uint32 per pixel), then
	 * puts it on the canvas and writes the labels on top: a frame costs a
	 * few typed-array fills, not a canvas call. */
	function rgbOf(css) {
		var c = document.createElement('canvas').getContext('2d');
		c.fillStyle = '#000';
		c.fillStyle = css;
		var m = /^#([0-9a-f]{6})$/i.exec(c.fillStyle);
		var v = m ? parseInt(m[1], 16) : 0;
		return [v >> 16 & 255, v >> 8 & 255, v & 255];
	}
	function pack(r, g, b) { return (0xff000000 | b << 16 | g << 8 | r) >>> 0; }
	var SEARCH_RGB = rgbOf(cfg.searchcolor || 'rgb(230,0,230)');
	var SEARCH_PX = pack(SEARCH_RGB[0], SEARCH_RGB[1], SEARCH_RGB[2]);
	var BG_TOP = rgbOf(cfg.bgtop || '#eeeeee'), BG_BOTTOM = rgbOf(cfg.bgbottom || '#eeeeb0');
	function background(W, H) {
		var bg = new Uint32Array(W * H);
		for (var y = 0; y < H; y++) {
			var px;
			if (dark()) px = pack(0x1b, 0x1b, 0x1d);
			else {
				var t = Math.min(1, Math.max(0, (y / H - 0.05) / 0.9)), m = [0, 1, 2].map(function (k) {
					return Math.round(BG_TOP[k] + (BG_BOTTOM[k] - BG_TOP[k]) * t);
				});
				px = pack(m[0], m[1], m[2]);
			}
			bg.fill(px, y * W, (y + 1) * W);
		}
		return bg;
	}
	Pane.prototype.draw = function () {
		var s = this.set, c = this.canvas.getContext('2d'), r = this.ratio;
		var W = this.canvas.width, H = this.canvas.height;
		if (!this.img || this.img.width !== W || this.img.height !== H) {
			this.img = c.createImageData(W, H);
			this.buf = new Uint32Array(this.img.data.buffer);
			this.bgKey = '';
		}
		var key = (dark() ? 'd' : 'l') + W + 'x' + H;
		if (this.bgKey !== key) {
			this.bg = background(W, H);
			this.bgKey = key;
		}
		var buf = this.buf, bg = this.bg;
		buf.set(bg);
		var labels = [];
		var top = this.box.scrollTop, h = this.h, w = this.w;
		var self = this;
		/* a frame box in CSS px; faded: the zoomed frame's ancestors */
		function box(i, px, y, pw, faded) {
			var X0 = Math.max(0, Math.round(px * r)), X1 = Math.min(W, Math.round((px + pw) * r));
			if (X1 - X0 >= 3) X1--;
			if (X1 <= X0) X1 = Math.min(W, X0 + 1);
			var Y0 = Math.max(0, Math.round(y * r)), Y1 = Math.min(H, Math.round((y + ROWH - 1) * r));
			var col = self.pixel(i);
			for (var yy = Y0; yy < Y1; yy++) {
				var v = col;
				if (faded) {
					var b = bg[yy * W];
					v = pack(((col & 255) * 3 + (b & 255) * 2) / 5, ((col >> 8 & 255) * 3 + (b >> 8 & 255) * 2) / 5,
						((col >> 16 & 255) * 3 + (b >> 16 & 255) * 2) / 5);
				}
				buf.fill(v, yy * W + X0, yy * W + X1);
			}
			if (pw >= 3 * CHARW + 6 || i === self.sel) labels.push(i, px, y, pw);
		}
		if (s.n) {
			var z = this.zoom, zx = s.x[z], zw = s.w[z] || 1, zd = s.depth[z];
			var sx = (w - 2 * PAD) / zw;
			var anc = [];
			for (var a = z; a >= 0; a = s.parent[a]) anc.push(a);
			for (var d = 0; d < s.rows; d++) {
				var y = this.rowY(d) - top;
				if (y + ROWH < 0 || y > h) continue;
				if (d <= zd) {
					box(anc[zd - d], PAD, y, w - 2 * PAD, d < zd);
					continue;
				}
				var lo = s.rowStart[d], hi = s.rowStart[d + 1];
				var i = lowerBound(s, lo, hi, zx), xend = zx + zw;
				while (i < hi && s.x[i] < xend) {
					var px = PAD + (s.x[i] - zx) * sx, pw = s.w[i] * sx;
					if (pw >= 1) {
						box(i, px, y, pw, false);
						i++;
						continue;
					}
					/* narrower than a pixel: merge what starts before the next pixel */
					var nextX = zx + (Math.floor(px - PAD) + 1) / sx;
					var j = startAtOrAfter(s, i + 1, hi, nextX);
					/* only the last frame starting in this pixel can be wider
					 * than one: it is drawn on its own */
					if (j - 1 > i && s.w[j - 1] * sx >= 1) j--;
					var last = j - 1, ex = PAD + (s.x[last] + s.w[last] - zx) * sx;
					box(i, px, y, Math.max(1, ex - px), false);
					i = j;
				}
			}
		}
		c.putImageData(this.img, 0, 0);
		c.setTransform(r, 0, 0, r, 0, 0);
		c.font = FONT;
		c.textBaseline = 'middle';
		for (var k = 0; k < labels.length; k += 4) this.label(c, labels[k], labels[k + 1], labels[k + 2], labels[k + 3]);
	};
	Pane.prototype.fill = function (i) {
		var v = this.pixel(i);
		return 'rgb(' + (v & 255) + ',' + (v >> 8 & 255) + ',' + (v >>> 16 & 255) + ')';
	};
	Pane.prototype.pixel = function (i) {
		var s = this.set;
		if (match && match[s.name[i]]) return SEARCH_PX;
		if (s.delta) return diffPixel(i, s);
		return colorPx[s.name[i]];
	};
	Pane.prototype.label = function (c, i, px, y, pw) {
		if (i === this.sel) {
			c.strokeStyle = dark() ? '#fff' : '#000';
			c.lineWidth = 1.5;
			c.strokeRect(px + 0.75, y + 0.75, Math.max(pw - 2, 1), ROWH - 2.5);
		}
		var fit = Math.floor((pw - 6) / CHARW);
		if (fit >= 3) {
			var t = shown[this.set.name[i]];
			if (t.length > fit) t = cfg.truncateleft ? '..' + t.slice(t.length - fit + 2) : t.slice(0, fit - 2) + '..';
			c.fillStyle = '#000';
			c.fillText(t, px + 3, y + ROWH / 2);
		}
	};
	Pane.prototype.at = function (e) {
		var rect = this.canvas.getBoundingClientRect(), s = this.set;
		var mx = e.clientX - rect.left, my = e.clientY - rect.top + this.box.scrollTop;
		var d = this.rootTop ? Math.floor((my - PAD) / ROWH) : Math.floor((this.bottom() - PAD - my) / ROWH);
		if (d < 0 || d >= s.rows || !s.n) return -1;
		var z = this.zoom, zd = s.depth[z];
		if (d <= zd) {
			if (mx < PAD || mx > this.w - PAD) return -1;
			var a = z;
			while (s.depth[a] > d) a = s.parent[a];
			return a;
		}
		var zx = s.x[z], zw = s.w[z] || 1, sx = (this.w - 2 * PAD) / zw;
		var ux = zx + (mx - PAD) / sx;
		if (ux < zx || ux >= zx + zw) return -1;
		var lo = s.rowStart[d], hi = s.rowStart[d + 1];
		var i = startAtOrAfter(s, lo, hi, ux + 1e-9) - 1;
		if (i < lo) return -1;
		/* a merged run: the pixel belongs to its first frame */
		var px = (s.x[i] - zx) * sx;
		while (i > lo && s.w[i] * sx < 1 && Math.floor((s.x[i - 1] - zx) * sx) === Math.floor(px)) i--;
		if (ux < s.x[i] + s.w[i] || s.w[i] * sx < 1) return i;
		return -1;
	};
	Pane.prototype.describe = function (i) {
		var s = this.set, z = this.zoom;
		var name = i === 0 ? 'all' : shown[s.name[i]];
		var t = (cfg.nametype ? cfg.nametype + ' ' : '') + name + ' (' + commify(s.w[i]) + ' ' + cfg.countname + ', ' +
			pct(s.w[i], s.total) + ' of all';
		if (z !== 0 && z !== i) t += ', ' + pct(s.w[i], s.w[z]) + ' of ' + (shown[s.name[z]] || 'all');
		if (s.delta) {
			var d = cfg.negate ? -s.delta[i] : s.delta[i];
			t += '; ' + (d > 0 ? '+' : '') + (100 * d / s.total).toFixed(2) + '%';
		}
		return t + ')';
	};
	Pane.prototype.hover = function (e) {
		var i = this.at(e);
		if (i < 0) { tip.style.display = 'none'; return; }
		var t = this.describe(i);
		tip.textContent = t;
		footer.textContent = t;
		tip.style.display = 'block';
		var x = Math.min(e.clientX + 12, window.innerWidth - tip.offsetWidth - 4);
		tip.style.left = Math.max(0, x) + 'px';
		tip.style.top = (e.clientY + 16) + 'px';
	};
	Pane.prototype.onpick = function (i) { zoomTo(this, i); };

	/* ---- aggregates: per function self and total (once per stack) ---- */
	function aggregates(s) {
		if (s.agg) return s.agg;
		var self = new Float64Array(NN), total = new Float64Array(NN);
		var before = s.delta ? new Float64Array(NN) : null, selfBefore = s.delta ? new Float64Array(NN) : null;
		var onPath = new Uint32Array(NN);
		var incBefore = s.delta ? new Float64Array(s.n) : null;
		/* self and exclusive "before" per frame */
		for (var i = 0; i < s.n; i++) {
			var kids = 0;
			for (var k = s.cs[i]; k < s.ce[i]; k++) kids += s.w[k];
			var sf = s.w[i] - kids;
			if (i) self[s.name[i]] += sf;
			if (incBefore) { incBefore[i] = sf - s.delta[i]; if (i) selfBefore[s.name[i]] += sf - s.delta[i]; }
		}
		if (incBefore) for (i = s.n - 1; i > 0; i--) incBefore[s.parent[i]] += incBefore[i];
		/* totals: a frame counts unless an ancestor has its name (DFS) */
		var stack = new Int32Array(s.rows + 1), next = new Uint32Array(s.rows + 1), sp = 0;
		stack[0] = 0; next[0] = s.cs[0];
		while (sp >= 0) {
			var f = stack[sp];
			if (next[sp] < s.ce[f]) {
				var ch = next[sp]++, nm = s.name[ch];
				if (!onPath[nm]++) { total[nm] += s.w[ch]; if (before) before[nm] += incBefore[ch]; }
				sp++;
				stack[sp] = ch;
				next[sp] = s.cs[ch];
				if (s.ce[ch] === 0) next[sp] = 0;
			} else {
				if (f) onPath[s.name[f]]--;
				sp--;
			}
		}
		s.agg = { self: self, total: total, before: before, selfBefore: selfBefore,
			beforeTotal: incBefore ? incBefore[0] : 0 };
		return s.agg;
	}

	/* ---- search ---- */
	function compile(src, ignoreCase) {
		try { return new RegExp(src, ignoreCase ? 'i' : ''); } catch (e) { return null; }
	}
	/* Share of the samples under a matching frame, each sample once. */
	function matchedWithin(s, z) {
		if (!match) return 0;
		for (var a = z; a >= 0; a = s.parent[a]) if (match[s.name[a]] && a) return s.w[z];
		var covered = new Uint8Array(s.n), sum = 0, zd = s.depth[z], zx = s.x[z], ze = zx + s.w[z];
		if (z === 0) { /* every frame, in row order: parents come first */
			var par = s.parent, nm = s.name, w = s.w, n = s.n;
			for (var f = 1; f < n; f++) {
				if (covered[par[f]]) covered[f] = 1;
				else if (match[nm[f]]) { covered[f] = 1; sum += w[f]; }
			}
			return sum;
		}
		for (var d = zd + 1; d < s.rows; d++) {
			var lo = s.rowStart[d], hi = s.rowStart[d + 1];
			for (var i = lowerBound(s, lo, hi, zx); i < hi && s.x[i] < ze; i++) {
				var p = s.parent[i];
				if (covered[p]) { covered[i] = 1; continue; }
				if (match[s.name[i]]) { covered[i] = 1; sum += s.w[i]; }
			}
		}
		return sum;
	}
	/* The search again (new pattern, view or zoom); fresh: N and Shift-N
	 * start over. */
	function runSearch(keepSteps) {
		var s = curSet() || graphSet();
		match = null;
		matchShare = 0;
		matched.textContent = '';
		searchBox.style.borderColor = '';
		if (state.search) {
			var re = compile(state.search, state.ignoreCase);
			if (!re) {
				searchBox.style.borderColor = 'red';
				matched.textContent = 'bad regex';
			} else {
				match = new Uint8Array(NN);
				for (var k = 1; k < NN; k++) if (re.test(shown[k])) match[k] = 1;
				var whole = matchedWithin(s, 0);
				matchShare = s.total ? whole / s.total : 0;
				var p = mainPane(), txt = 'Matched: ' + (100 * matchShare).toFixed(1) + '%';
				if (p && p.zoom) txt += ' (' + (100 * matchedWithin(s, p.zoom) / s.w[p.zoom]).toFixed(1) + '% of zoomed)';
				matched.textContent = txt;
			}
		}
		if (!keepSteps) {
			matches = null;
			matchPos = -1;
		}
		saveHash();
		drawAll();
		return matchShare;
	}
	var matches = null, matchPos = -1;
	function stepMatch(dir) {
		var p = mainPane();
		if (!match || !p) return;
		var s = p.set;
		if (!matches) {
			matches = [];
			var covered = new Uint8Array(s.n);
			for (var i = 1; i < s.n; i++) {
				if (covered[s.parent[i]]) { covered[i] = 1; continue; }
				if (match[s.name[i]]) { covered[i] = 1; matches.push(i); }
			}
		}
		if (!matches.length) return;
		matchPos = (matchPos + dir + matches.length) % matches.length;
		p.sel = matches[matchPos];
		zoomTo(p, matches[matchPos]);
	}

	/* ---- views ---- */
	function mainPane() { return panes.length === 1 ? panes[0] : null; }
	function drawAll() {
		panes.forEach(function (p) { p.draw(); });
		if (state.view === 'table') fillTable();
	}
	function setView(v, keepZoom) {
		if (v === 'chart' && !sets.chart) return false;
		if (['flame', 'icicle', 'chart', 'table', 'sandwich'].indexOf(v) < 0) return false;
		if (v === 'sandwich' && state.func < 0) state.func = widestFunction();
		state.view = v;
		if (!keepZoom) state.zoom = 0;
		for (var k in viewButtons) viewButtons[k].setAttribute('aria-pressed', String(k === v));
		build();
		runSearch();
		return true;
	}
	function widestFunction() {
		var a = aggregates(graphSet()), best = -1;
		for (var k = 1; k < NN; k++) if (best < 0 || a.total[k] > a.total[best]) best = k;
		return best;
	}
	function build() {
		main.textContent = '';
		panes = [];
		tip.style.display = 'none';
		var v = state.view;
		h1.textContent = cfg.title || (v === 'chart' ? 'Flame Chart' : v === 'icicle' ? 'Icicle Graph' : 'Flame Graph');
		sub.textContent = cfg.subtitle || '';
		sub.style.display = cfg.subtitle ? '' : 'none';
		if (v === 'table') {
			main.append(tableBox);
			tableBox.style.display = 'block';
			crumbs.textContent = '';
			fillTable();
			return;
		}
		if (v === 'sandwich') {
			var sw = sandwich(graphSet(), state.func);
			var up = new Pane(sw.callers, false), down = new Pane(sw.callees, true);
			up.onpick = down.onpick = function (i) { openSandwich(this.set.name[i]); };
			panes = [up, down];
		} else {
			var p = new Pane(curSet(), v === 'icicle');
			if (state.zoom > 0 && state.zoom < p.set.n) p.zoom = state.zoom;
			panes = [p];
		}
		panes.forEach(function (p) { main.append(p.box); });
		panes.forEach(function (p) { p.fit(); p.scrollToRoot(); });
		if (v === 'sandwich') crumbsFor(null); else crumbsFor(panes[0]);
	}
	function crumbsFor(p) {
		crumbs.textContent = '';
		if (!p) {
			crumbs.append(el('span', {}, 'Sandwich: '), el('b', {}, shown[state.func] || ''),
				el('span', {}, ' \u2014 callers above, callees below; click a frame to centre on it'));
			return;
		}
		var s = p.set, chain = [];
		for (var a = p.zoom; a >= 0; a = s.parent[a]) chain.unshift(a);
		chain.forEach(function (i, k) {
			if (k) crumbs.append(el('span', { class: 'sep' }, ' \u203a '));
			var b = el('button', { type: 'button' }, i === 0 ? 'all' : shown[s.name[i]]);
			b.addEventListener('click', function () { zoomTo(p, i); });
			crumbs.append(b);
		});
		if (p.zoom) {
			crumbs.append(el('span', { class: 'sep' }, '  \u2014 ' + pct(s.w[p.zoom], s.total) + ' of all'));
		}
	}
	function zoomTo(p, i) {
		if (!p || i < 0) return;
		if (state.view === 'sandwich') return;
		p.zoom = i;
		p.sel = i;
		state.zoom = i;
		crumbsFor(p);
		footer.textContent = p.describe(i);
		if (match) runSearch(true); else { saveHash(); p.draw(); }
	}
	function reset() {
		var p = mainPane();
		if (p) zoomTo(p, 0);
	}
	function openSandwich(nameId) {
		state.func = nameId;
		setView('sandwich');
	}

	/* ---- sandwich: callers above, callees below one function ---- */
	function Trie() {
		this.parent = [-1]; this.name = [0]; this.w = [0]; this.kids = new Map();
	}
	Trie.prototype.child = function (p, nm) {
		var key = p * NN + nm, c = this.kids.get(key);
		if (c === undefined) {
			c = this.name.length;
			this.kids.set(key, c);
			this.parent.push(p); this.name.push(nm); this.w.push(0);
		}
		return c;
	};
	/* A frame set from a trie: children by name as the SVG sorts them. */
	Trie.prototype.layout = function () {
		var n = this.name.length, kids = new Array(n), i;
		for (i = 0; i < n; i++) kids[i] = [];
		for (i = 1; i < n; i++) kids[this.parent[i]].push(i);
		var self = this, rowsOf = [], xs = new Float64Array(n), depthOf = new Uint16Array(n);
		var stack = [0];
		xs[0] = 0;
		while (stack.length) {
			var f = stack.pop(), d = depthOf[f];
			(rowsOf[d] = rowsOf[d] || []).push(f);
			var k = kids[f].sort(function (a, b) {
				var A = names[self.name[a]], B = names[self.name[b]];
				return A < B ? -1 : A > B ? 1 : 0;
			});
			var x = xs[f];
			for (var j = 0; j < k.length; j++) { xs[k[j]] = x; depthOf[k[j]] = d + 1; x += self.w[k[j]]; }
			for (j = k.length - 1; j >= 0; j--) stack.push(k[j]);
		}
		var s = newSet(n, rowsOf.length);
		s.delta = null;
		var o = 0;
		for (d = 0; d < rowsOf.length; d++) {
			s.rowStart[d] = o;
			rowsOf[d].sort(function (a, b) { return xs[a] - xs[b]; });
			for (j = 0; j < rowsOf[d].length; j++, o++) {
				var t = rowsOf[d][j];
				s.name[o] = this.name[t]; s.x[o] = xs[t]; s.w[o] = this.w[t]; s.depth[o] = d;
			}
		}
		s.rowStart[rowsOf.length] = o;
		link(s);
		return s;
	};
	function sandwich(s, fn) {
		var callers = new Trie(), callees = new Trie(), tops = [];
		callers.name[0] = callees.name[0] = fn;
		var covered = new Uint8Array(s.n);
		for (var i = 1; i < s.n; i++) {
			if (covered[s.parent[i]]) { covered[i] = 1; continue; }
			if (s.name[i] === fn) { covered[i] = 1; tops.push(i); }
		}
		tops.forEach(function (f) {
			callers.w[0] += s.w[f];
			callees.w[0] += s.w[f];
			var t = 0;
			for (var a = s.parent[f]; a > 0; a = s.parent[a]) { t = callers.child(t, s.name[a]); callers.w[t] += s.w[f]; }
			/* the subtree, row by row: each frame's trie node from its parent's */
			var map = new Map();
			map.set(f, 0);
			var lo = f, hi = f + 1;
			for (var d = s.depth[f] + 1; d < s.rows && hi > lo; d++) {
				var nlo = s.cs[lo], nhi = 0, k;
				for (k = lo; k < hi; k++) if (s.ce[k]) { if (!nhi) nlo = s.cs[k]; nhi = s.ce[k]; }
				if (!nhi) break;
				for (k = nlo; k < nhi; k++) {
					var tn = callees.child(map.get(s.parent[k]), s.name[k]);
					callees.w[tn] += s.w[k];
					map.set(k, tn);
				}
				lo = nlo; hi = nhi;
			}
		});
		var up = callers.layout(), down = callees.layout();
		up.total = down.total = s.total;
		return { callers: up, callees: down };
	}

	/* ---- table ---- */
	var sortKey = 'total', sortDesc = true, tableFilter = '';
	var filterBox = el('input', { type: 'search', id: 'sc-table-filter', placeholder: 'Filter functions (regex)', spellcheck: 'false' });
	filterBox.addEventListener('input', function () { tableFilter = filterBox.value; fillTable(); });
	function fillTable() {
		var s = graphSet(), a = aggregates(s);
		var cols = [['name', 'Function'], ['self', 'Self'], ['total', 'Total']];
		if (s.delta) cols.push(['before', 'Before'], ['after', 'After'], ['delta', 'Delta']);
		var re = compile(tableFilter, true), ids = [];
		for (var k = 1; k < NN; k++) if (a.total[k] > 0 && (!re || re.test(shown[k]))) ids.push(k);
		function val(id, key) {
			switch (key) {
			case 'self': return a.self[id];
			case 'total': case 'after': return a.total[id];
			case 'before': return a.before[id];
			case 'delta': return a.total[id] - a.before[id];
			}
			return 0;
		}
		ids.sort(function (x, y) {
			var r = sortKey === 'name' ? (shown[x] < shown[y] ? -1 : shown[x] > shown[y] ? 1 : 0) : val(x, sortKey) - val(y, sortKey);
			return (sortDesc ? -r : r) || x - y;
		});
		var LIMIT = 2000, table = el('table', { id: 'sc-functions' }), thead = el('tr');
		cols.forEach(function (c) {
			var th = el('th', { 'data-key': c[0], class: c[0] === 'name' ? 'name' : '' },
				c[1] + (sortKey === c[0] ? (sortDesc ? ' \u25bc' : ' \u25b2') : ''));
			th.addEventListener('click', function () {
				if (sortKey === c[0]) sortDesc = !sortDesc; else { sortKey = c[0]; sortDesc = c[0] !== 'name'; }
				fillTable();
			});
			thead.append(th);
		});
		table.append(thead);
		ids.slice(0, LIMIT).forEach(function (id) {
			var tr = el('tr', { 'data-id': String(id) });
			cols.forEach(function (c) {
				var td;
				if (c[0] === 'name') td = el('td', { class: 'name' }, shown[id]);
				else {
					var v = val(id, c[0]);
					td = el('td', { 'data-value': String(exact(v)) },
						c[0] === 'delta' ? (v > 0 ? '+' : '') + commify(v) :
						commify(v) + ' (' + pct(v, c[0] === 'before' ? a.beforeTotal : s.total) + ')');
				}
				tr.append(td);
			});
			tr.addEventListener('click', function () { openSandwich(id); });
			table.append(tr);
		});
		var note = el('div', { id: 'sc-table-note' }, ids.length + ' functions' +
			(ids.length > LIMIT ? ', first ' + LIMIT + ' shown (filter to see others)' : '') +
			'; click a row for its sandwich view');
		tableBox.textContent = '';
		tableBox.append(filterBox, note, table);
	}

	/* ---- URL state ---- */
	var lastHash = '';
	function saveHash() {
		var q = new URLSearchParams();
		q.set('view', state.view);
		if (state.view === 'sandwich') q.set('fn', names[state.func] || '');
		var p = mainPane();
		if (p && p.zoom) q.set('zoom', String(p.zoom));
		if (state.search) q.set('s', state.search);
		if (!state.ignoreCase) q.set('case', '1');
		if (ranged) q.set('t', ranged.ranges.map(function (r) {
			return scorchTime.timeOf(r[0], cfg.time.first).toFixed(6) + ',' + scorchTime.timeOf(r[1], cfg.time.first).toFixed(6);
		}).join(';'));
		var h = '#' + q.toString();
		lastHash = h;
		if (location.hash !== h) history.replaceState(null, '', h);
	}
	function loadHash() {
		var q = new URLSearchParams(location.hash.slice(1));
		if (q.get('s')) state.search = q.get('s');
		if (q.get('case') === '1') state.ignoreCase = false;
		var v = q.get('view');
		if (v === 'sandwich' && q.get('fn') !== null) {
			var id = names.indexOf(q.get('fn'));
			if (id > 0) state.func = id; else v = null;
		}
		if (v === 'chart' && !sets.chart) v = null;
		if (v && ['flame', 'icicle', 'chart', 'table', 'sandwich'].indexOf(v) >= 0) state.view = v;
		var z = Number(q.get('zoom'));
		state.zoom = z > 0 && Number.isInteger(z) ? z : 0;
		state.ranges = [];
		if (TM && q.get('t')) q.get('t').split(';').slice(0, 2).forEach(function (r) {
			var t = r.split(',').map(Number);
			if (t.length === 2 && isFinite(t[0]) && isFinite(t[1]) && t[1] > t[0])
				state.ranges.push(scorchTime.cellsOf(t[0], t[1], cfg.time.first));
		});
		searchBox.value = state.search;
		caseBox.checked = !state.ignoreCase;
	}

	/* ---- input ---- */
	searchBox.addEventListener('input', function () { state.search = searchBox.value; runSearch(); });
	caseBox.addEventListener('change', function () { state.ignoreCase = !caseBox.checked; runSearch(); });
	darkBtn.addEventListener('click', function () { setDark(!dark()); });
	function setDark(on) {
		document.documentElement.classList.toggle('dark', on);
		darkBtn.setAttribute('aria-pressed', String(on));
		drawAll();
		if (heat) heat.draw();
	}
	document.addEventListener('keydown', function (e) {
		var inInput = e.target && (e.target.tagName === 'INPUT');
		if ((e.key === 'f' && (e.ctrlKey || e.metaKey)) || (e.key === '/' && !inInput)) {
			e.preventDefault();
			searchBox.focus();
			searchBox.select();
			return;
		}
		if (e.key === 'Escape') {
			if (state.search) { state.search = ''; searchBox.value = ''; runSearch(); }
			else reset();
			if (inInput) e.target.blur();
			return;
		}
		if (inInput) {
			if (e.key === 'Enter' && e.target === searchBox) { e.preventDefault(); searchBox.blur(); stepMatch(1); }
			return;
		}
		var p = mainPane();
		if (!p) return;
		var s = p.set, i = p.sel < 0 ? p.zoom : p.sel, j = -1;
		var towardLeaf = p.rootTop ? 'ArrowDown' : 'ArrowUp', towardRoot = p.rootTop ? 'ArrowUp' : 'ArrowDown';
		if (e.key === towardRoot) j = s.parent[i];
		else if (e.key === towardLeaf) {
			for (var k = s.cs[i]; k < s.ce[i]; k++) if (j < 0 || s.w[k] > s.w[j]) j = k;
		} else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
			var d = s.depth[i], n = e.key === 'ArrowLeft' ? i - 1 : i + 1;
			if (n >= s.rowStart[d] && n < s.rowStart[d + 1]) j = n;
		} else if (e.key === 'Enter') {
			e.preventDefault();
			zoomTo(p, i);
			return;
		} else if (e.key === 'n' || e.key === 'N') {
			stepMatch(e.shiftKey || e.key === 'N' ? -1 : 1);
			return;
		} else return;
		e.preventDefault();
		if (j >= 0) {
			p.sel = j;
			footer.textContent = p.describe(j);
			p.draw();
		}
	});
	/* A link opened in the same page (only the hash changed). */
	window.addEventListener('hashchange', function () {
		if (location.hash === lastHash) return;
		loadHash();
		if (TM) setRanges(state.ranges);
		setView(state.view, true);
	});
	var resizeTimer = 0;
	window.addEventListener('resize', function () {
		clearTimeout(resizeTimer);
		resizeTimer = setTimeout(function () {
			if (heat) { heat.fit(); heat.draw(); }
			panes.forEach(function (p) { p.fit(); p.draw(); });
		}, 50);
	});

	/* ---- start ---- */
	loadHash();
	if (window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches) {
		document.documentElement.classList.add('dark');
		darkBtn.setAttribute('aria-pressed', 'true');
	}
	if (heat) {
		heat.fit();
		heat.draw();
		rangeStatus();
	}
	var keepZoom = state.zoom;
	if (TM && state.ranges.length) setRanges(state.ranges);
	state.zoom = keepZoom;
	setView(state.view, true);
	var tFirst = performance.now() - t0;

	/* ---- scripting surface (README: "HTML viewer") ---- */
	function findWidest(name) {
		var s = curSet() || graphSet(), best = -1;
		for (var i = 1; i < s.n; i++) {
			var nm = s.name[i];
			if ((shown[nm] === name || names[nm] === name) && (best < 0 || s.w[i] > s.w[best])) best = i;
		}
		return best;
	}
	window.scorch = {
		ready: Promise.resolve(),
		timing: { decodeMs: tDecode, firstDrawMs: tFirst },
		zoomTo: function (name) {
			if (state.view !== 'flame' && state.view !== 'icicle' && state.view !== 'chart') setView(sets.graph ? 'flame' : 'chart');
			var i = findWidest(name);
			if (i >= 0) zoomTo(mainPane(), i);
			return i >= 0;
		},
		search: function (re, opts) {
			state.search = re instanceof RegExp ? re.source : String(re || '');
			if (re instanceof RegExp) state.ignoreCase = re.ignoreCase;
			else if (opts && 'ignoreCase' in opts) state.ignoreCase = !!opts.ignoreCase;
			searchBox.value = state.search;
			caseBox.checked = !state.ignoreCase;
			return runSearch();
		},
		reset: function () { reset(); },
		view: function (v, fn) {
			if (v === 'sandwich' && fn !== undefined) {
				var id = names.indexOf(fn);
				if (id < 0) id = shown.indexOf(fn);
				if (id <= 0) return false;
				state.func = id;
			}
			return setView(v);
		},
		/* The frames of pane k (0: the graph, or the callers in the
		 * sandwich; 1: the callees): name, depth, start, width (counts),
		 * fill colour, for tests and tools. */
		frames: function (k) {
			var p = panes[k || 0];
			if (!p) return [];
			var s = p.set, out = [];
			for (var i = 0; i < s.n; i++)
				out.push({ name: shown[s.name[i]], depth: s.depth[i],
					x: exact(s.x[i]), w: exact(s.w[i]), fill: p.fill(i) });
			return out;
		},
		dark: function (on) { setDark(on === undefined ? !dark() : !!on); },
		/* Time (doc/time.md): seconds from the first sample. The heat
		 * map's samples per cell, counts[column][row] (row 0: the
		 * second's first 20 ms), or null without time. */
		heatmap: function () {
			if (!TM) return null;
			var cols = cfg.time.seconds, counts = [];
			for (var c = 0; c < cols; c++) {
				var col = [];
				for (var r = 0; r < 50; r++) {
					var cell = c * 50 + r;
					col.push(cell < TM.cells.cells ? exact(TM.cells.total[cell]) : 0);
				}
				counts.push(col);
			}
			return { seconds: cols, rows: 50, counts: counts, first: cfg.time.first, origin: cfg.time.origin };
		},
		/* Select [t0, t1) (the cells it overlaps): the share of all samples
		 * in it; range(null) clears (1). */
		range: function (t0, t1) {
			if (!TM) return null;
			if (t0 === null || t0 === undefined) { setRanges([]); return 1; }
			var r = setRanges([scorchTime.cellsOf(+t0, +t1, cfg.time.first)]);
			return r ? r.share : 0;
		},
		/* The differential of range b against range a (a's counts scaled to
		 * b's total): { before, after } shares of all, and the scale. */
		compare: function (a, b) {
			if (!TM || !a || !b) return null;
			var r = setRanges([scorchTime.cellsOf(+a[0], +a[1], cfg.time.first), scorchTime.cellsOf(+b[0], +b[1], cfg.time.first)]);
			return r && r.ranges.length === 2 ? { before: r.shareBefore, after: r.share, scale: r.scale } : null;
		},
		state: function () {
			var p = mainPane(), s = p ? p.set : null;
			return {
				view: state.view, search: state.search, matched: matchShare,
				zoom: p && p.zoom ? shown[s.name[p.zoom]] : null,
				zoomShare: p ? s.w[p.zoom] / s.total : 1,
				selected: p && p.sel > 0 ? shown[s.name[p.sel]] : null,
				frames: (sets.graph || sets.chart).n,
				time: !!TM,
				ranges: ranged ? ranged.ranges.map(function (r) {
					return [scorchTime.timeOf(r[0], cfg.time.first), scorchTime.timeOf(r[1], cfg.time.first)];
				}) : null,
				rangeShare: ranged ? ranged.share : null
			};
		}
	};
})();
