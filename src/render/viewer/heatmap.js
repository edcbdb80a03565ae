/* scorch's HTML viewer: time. A sub-second heat map (FlameScope's layout:
 * a column per second, 50 rows of 20 ms, the bottom row the second's
 * start), ranges selected on it, and the flame graph of a range or the
 * differential of two. Read by html.js (scorchTime), which owns the page.
 *
 * The file's cells (render/html_time.h) name lines: the stacks with a
 * count of their own, numbered by x in the whole graph. A frame covers a
 * run of lines, so the graph of a range is the whole graph's frames with
 * widths summed from that range's line counts (prefix sums), without
 * building a tree: the cost is the range's (cell, line) counts plus one
 * pass over frames and lines. Times are seconds from the first sample;
 * cell c starts at c / 50 - first. Names are data: none reach markup.
 * Plain ES5, ASCII only. */
var scorchTime = (function () {
	'use strict';

	/* ---- pure logic ---- */

	/* Cells from the varints at bytes[pos...] (see html_time.h). */
	function decodeCells(bytes, pos, tc) {
		var ncell = tc.cells, n = tc.entries;
		var start = new Uint32Array(ncell + 1), line = new Uint32Array(n), count = new Float64Array(n);
		var total = new Float64Array(ncell);
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
		var cell = 0, i = 0, filled = 0, max = 0;
		while (i < n) {
			cell += varint();
			var k = varint(), l = 0, sum = 0;
			for (; filled <= cell; filled++) start[filled] = i;
			for (var j = 0; j < k; j++, i++) {
				l += varint();
				line[i] = l;
				count[i] = varint();
				sum += count[i];
			}
			total[cell] = sum;
			if (sum > max) max = sum;
		}
		for (; filled <= ncell; filled++) start[filled] = i;
		return { cells: ncell, start: start, line: line, count: count, total: total, max: max, pos: pos };
	}

	/* The lines of a frame set (x, w, cs, ce per frame): the frames whose
	 * children leave part of them, in x order (a pre-order walk: a frame's
	 * own line is at its start). Also each frame's run of lines [l0, l1)
	 * and the frame holding each line. */
	function linesOf(s) {
		var n = s.n, i, k;
		var frameOf = new Uint32Array(n), l0 = new Uint32Array(n), l1 = new Uint32Array(n), lineOfFrame = new Int32Array(n);
		var stack = new Int32Array(s.rows + 1), next = new Uint32Array(s.rows + 1), sp = 0, nl = 0;
		function enter(f) {
			var kids = 0;
			for (k = s.cs[f]; k < s.ce[f]; k++) kids += s.w[k];
			l0[f] = nl;
			lineOfFrame[f] = -1;
			if (s.w[f] - kids > 0) { lineOfFrame[f] = nl; frameOf[nl++] = f; }
		}
		if (n) { enter(0); stack[0] = 0; next[0] = s.cs[0]; }
		else sp = -1;
		while (sp >= 0) {
			var f = stack[sp];
			if (next[sp] < s.ce[f]) {
				var c = next[sp]++;
				enter(c);
				stack[++sp] = c;
				next[sp] = s.cs[c];
			} else {
				l1[f] = nl;
				sp--;
			}
		}
		return { n: nl, frameOf: frameOf.subarray(0, nl), l0: l0, l1: l1, lineOfFrame: lineOfFrame };
	}

	/* Per line, the counts of cells [c0, c1) into out (length lines). */
	function rangeWidths(cells, c0, c1, out) {
		out.fill(0);
		c0 = Math.max(0, c0);
		c1 = Math.min(cells.cells, c1);
		if (c1 <= c0) return 0;
		var line = cells.line, count = cells.count, sum = 0;
		for (var i = cells.start[c0], e = cells.start[c1]; i < e; i++) {
			out[line[i]] += count[i];
			sum += count[i];
		}
		return sum;
	}

	function prefix(w) {
		var p = new Float64Array(w.length + 1);
		for (var i = 0; i < w.length; i++) p[i + 1] = p[i] + w[i];
		return p;
	}

	/* The frames of set G drawn with line widths `after` (and, compared,
	 * the differential against `before` scaled by k): frames of no width
	 * are left out. make(n, rows) gives an empty set (zeroed typed
	 * arrays); parents and child runs come from G's; then after(s), when
	 * given, sees the set. */
	function rangeSet(G, L, after, before, k, make, done) {
		var P = prefix(after), n = G.n, keep = 0, rows = 0, i;
		var to = new Int32Array(n); /* G's frame -> the set's, or -1 */
		for (i = 0; i < n; i++) {
			if (i === 0 || P[L.l1[i]] > P[L.l0[i]]) {
				to[i] = keep++;
				if (G.depth[i] + 1 > rows) rows = G.depth[i] + 1;
			} else to[i] = -1;
		}
		var s = make(keep, rows);
		var maxdelta = 1, o = 0, d = 0;
		if (before) {
			s.delta = new Float64Array(keep);
			for (i = 0; i < L.n; i++) {
				var dl = Math.abs(after[i] - k * before[i]);
				if (dl > maxdelta) maxdelta = dl;
			}
		} else s.delta = null;
		s.parent[0] = -1;
		for (i = 0; i < n; i++) {
			if (to[i] < 0) continue;
			while (d < G.depth[i]) s.rowStart[++d] = o;
			s.name[o] = G.name[i];
			s.depth[o] = G.depth[i];
			s.x[o] = P[L.l0[i]];
			s.w[o] = P[L.l1[i]] - P[L.l0[i]];
			if (before) {
				var ln = L.lineOfFrame[i];
				s.delta[o] = ln >= 0 ? after[ln] - k * before[ln] : 0;
			}
			/* a kept frame's parent is kept (it is at least as wide), and
			 * its children are a run of the next row, as in G */
			if (i) {
				var p = to[G.parent[i]];
				s.parent[o] = p;
				if (s.ce[p] === 0) s.cs[p] = o;
				s.ce[p] = o + 1;
			}
			o++;
		}
		while (d < rows) s.rowStart[++d] = o;
		s.kind = 'graph';
		s.maxdelta = maxdelta;
		s.total = keep ? s.w[0] : 0;
		if (done) done(s);
		return s;
	}

	/* Cells [c0, c1) from API times [t0, t1): the cells the range
	 * overlaps (a thousandth of a cell of slack for rounded times). */
	function cellsOf(t0, t1, first) {
		return [Math.floor((t0 + first) * 50 + 1e-3), Math.ceil((t1 + first) * 50 - 1e-3)];
	}
	function timeOf(c, first) { return c / 50 - first; }

	var pure = { decodeCells: decodeCells, linesOf: linesOf, rangeWidths: rangeWidths, rangeSet: rangeSet,
		cellsOf: cellsOf, timeOf: timeOf };

	/* ---- the heat map on the page ---- */

	var ROWS = 50, CELLH = 3, AXIS = 16;
	var RANGE_RGB = [[0, 90, 255], [0, 160, 60]];

	/* env: cfg.time, cells, el, tip, onchange(ranges), commify(count),
	 * countname. Ranges are [c0, c1) cell pairs, at most two. */
	function HeatMap(env) {
		var self = this;
		this.env = env;
		this.tc = env.tc;
		this.cells = env.cells;
		this.ranges = [];
		this.anchor = -1;
		this.drag = null;
		this.compareNext = false;
		var el = env.el;
		this.box = el('section', { id: 'sc-heat' });
		var bar = el('div', { id: 'sc-heat-bar' });
		this.status = el('span', { id: 'sc-range' });
		this.compareBtn = el('button', { type: 'button', id: 'sc-compare', 'aria-pressed': 'false',
			title: 'the next range selected is compared with the first (or Alt-drag)' }, 'Compare');
		this.clearBtn = el('button', { type: 'button', id: 'sc-clear-range' }, 'Clear range');
		this.legend = el('canvas', { id: 'sc-legend', width: '120', height: '10' });
		this.legendMax = el('span', { id: 'sc-legend-max' });
		bar.append(el('b', {}, (env.countname === 'samples' ? 'Samples' : env.countname) + ' per 20 ms'), this.legendWrap(), this.compareBtn, this.clearBtn, this.status);
		this.scroller = el('div', { id: 'sc-heat-scroll' });
		this.canvas = el('canvas', { id: 'sc-heat-canvas' });
		this.spacer = el('div', { class: 'sc-heat-spacer' });
		this.scroller.append(this.canvas, this.spacer);
		this.box.append(bar, this.scroller);
		this.compareBtn.addEventListener('click', function () {
			self.compareNext = !self.compareNext;
			self.compareBtn.setAttribute('aria-pressed', String(self.compareNext));
		});
		this.clearBtn.addEventListener('click', function () { self.set([]); });
		this.scroller.addEventListener('scroll', function () { self.draw(); });
		this.canvas.addEventListener('mousedown', function (e) { self.down(e); });
		this.canvas.addEventListener('mousemove', function (e) { self.move(e); });
		this.canvas.addEventListener('mouseleave', function () { env.tip.style.display = 'none'; });
		window.addEventListener('mouseup', function (e) { self.up(e); });
	}
	HeatMap.prototype.legendWrap = function () {
		var w = this.env.el('span', { class: 'sc-legend' });
		w.append(this.env.el('span', {}, '0 '), this.legend, this.legendMax);
		var c = this.legend.getContext('2d');
		for (var x = 0; x < 120; x++) {
			var g = Math.round(255 * (1 - x / 119));
			c.fillStyle = 'rgb(255,' + g + ',' + g + ')';
			c.fillRect(x, 0, 1, 10);
		}
		this.legendMax.textContent = ' ' + this.env.commify(this.cells.max);
		return w;
	};
	HeatMap.prototype.columns = function () { return this.tc.seconds; };
	HeatMap.prototype.fit = function () {
		var w = this.scroller.clientWidth || 800, r = window.devicePixelRatio || 1;
		this.colw = Math.max(4, Math.min(24, Math.floor((w - 2) / Math.max(1, this.columns()))));
		var full = this.colw * this.columns();
		this.spacer.style.width = Math.max(0, full - w) + 'px';
		this.h = ROWS * CELLH + AXIS;
		this.w = w;
		this.canvas.style.width = w + 'px';
		this.canvas.style.height = this.h + 'px';
		this.canvas.width = Math.max(1, Math.round(w * r));
		this.canvas.height = Math.round(this.h * r);
		this.ratio = r;
	};
	HeatMap.prototype.cellAt = function (e) {
		var rect = this.canvas.getBoundingClientRect();
		var x = e.clientX - rect.left + this.scroller.scrollLeft, y = e.clientY - rect.top;
		var col = Math.floor(x / this.colw), row = ROWS - 1 - Math.floor(y / CELLH);
		if (col < 0 || col >= this.columns()) return -1;
		row = Math.max(0, Math.min(ROWS - 1, row));
		return col * ROWS + row;
	};
	HeatMap.prototype.inRange = function (c) {
		for (var k = this.ranges.length - 1; k >= 0; k--)
			if (c >= this.ranges[k][0] && c < this.ranges[k][1]) return k;
		return -1;
	};
	HeatMap.prototype.draw = function () {
		var c = this.canvas.getContext('2d'), r = this.ratio, W = this.canvas.width, H = this.canvas.height;
		var img = c.createImageData(W, H), buf = new Uint32Array(img.data.buffer);
		var dark = document.documentElement.classList.contains('dark');
		buf.fill(dark ? 0xff1d1b1b : 0xffffffff);
		var left = this.scroller.scrollLeft, cw = this.colw, cells = this.cells, max = cells.max || 1;
		var col0 = Math.max(0, Math.floor(left / cw)), col1 = Math.min(this.columns(), Math.ceil((left + this.w) / cw));
		var drag = this.drag && this.drag.moved ? this.dragCells() : null;
		for (var col = col0; col < col1; col++) {
			var X0 = Math.max(0, Math.round((col * cw - left) * r)), X1 = Math.min(W, Math.round(((col + 1) * cw - left) * r));
			if (cw >= 6) X1--; /* a gap between columns */
			for (var row = 0; row < ROWS; row++) {
				var cell = col * ROWS + row, v = cell < cells.cells ? cells.total[cell] : 0;
				var red = 255, g = v > 0 ? Math.round(235 * (1 - v / max)) : 255, b = g;
				if (!(v > 0) && dark) { red = 0x1b; g = 0x1b; b = 0x1d; }
				var k = drag && cell >= drag[0] && cell < drag[1] ? this.dragWhich() : this.inRange(cell);
				if (k >= 0) {
					var t = RANGE_RGB[k];
					red = Math.round(red * 0.45 + t[0] * 0.55);
					g = Math.round(g * 0.45 + t[1] * 0.55);
					b = Math.round(b * 0.45 + t[2] * 0.55);
				}
				var px = (0xff000000 | b << 16 | g << 8 | red) >>> 0;
				var Y1 = Math.round((ROWS - row) * CELLH * r), Y0 = Math.round((ROWS - row - 1) * CELLH * r);
				for (var y = Y0; y < Y1; y++) buf.fill(px, y * W + X0, y * W + X1);
			}
		}
		c.putImageData(img, 0, 0);
		c.setTransform(r, 0, 0, r, 0, 0);
		c.font = '10px Verdana, sans-serif';
		c.textBaseline = 'top';
		c.fillStyle = dark ? '#e8e8e8' : '#000';
		var step = Math.max(1, Math.ceil(40 / cw));
		step = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600].filter(function (s) { return s >= step; })[0] || step;
		for (col = col0 - col0 % step; col < col1; col += step) {
			var x = col * cw - left;
			c.fillRect(x, ROWS * CELLH, 1, 4);
			c.fillText(String(col), x + 2, ROWS * CELLH + 3);
		}
		c.setTransform(1, 0, 0, 1, 0, 0);
	};
	HeatMap.prototype.dragCells = function () {
		var a = this.drag.from, b = this.drag.to;
		return [Math.min(a, b), Math.max(a, b) + 1];
	};
	HeatMap.prototype.dragWhich = function () { return this.drag.second ? 1 : 0; };
	HeatMap.prototype.down = function (e) {
		var c = this.cellAt(e);
		if (c < 0 || e.button !== 0) return;
		e.preventDefault();
		var second = (this.compareNext || e.altKey) && this.ranges.length > 0;
		if (e.shiftKey && this.anchor >= 0) {
			this.pick(Math.min(this.anchor, c), Math.max(this.anchor, c) + 1, this.anchorSecond);
			return;
		}
		this.drag = { from: c, to: c, second: second, moved: false };
	};
	HeatMap.prototype.move = function (e) {
		var c = this.cellAt(e);
		if (this.drag) {
			if (c >= 0 && c !== this.drag.to) { this.drag.to = c; this.drag.moved = true; this.draw(); }
			return;
		}
		this.hover(e, c);
	};
	HeatMap.prototype.up = function () {
		if (!this.drag) return;
		var d = this.dragCells(), second = this.drag.second;
		this.anchor = this.drag.from;
		this.anchorSecond = second;
		this.drag = null;
		this.pick(d[0], d[1], second);
	};
	HeatMap.prototype.pick = function (c0, c1, second) {
		var r = second && this.ranges.length ? [this.ranges[0], [c0, c1]] : [[c0, c1]];
		if (second) { this.compareNext = false; this.compareBtn.setAttribute('aria-pressed', 'false'); }
		this.set(r);
	};
	HeatMap.prototype.set = function (ranges) {
		this.ranges = ranges;
		this.draw();
		this.env.onchange(ranges);
	};
	HeatMap.prototype.hover = function (e, c) {
		var tip = this.env.tip;
		if (c < 0) { tip.style.display = 'none'; return; }
		var v = c < this.cells.cells ? this.cells.total[c] : 0;
		var t = timeOf(c, this.tc.first);
		tip.textContent = 'second ' + Math.floor(c / ROWS) + ', +' + (c % ROWS) * 20 + ' ms (' + t.toFixed(2) + ' s from the first sample): ' +
			this.env.commify(v) + ' ' + this.env.countname;
		tip.style.display = 'block';
		tip.style.left = Math.max(0, Math.min(e.clientX + 12, window.innerWidth - tip.offsetWidth - 4)) + 'px';
		tip.style.top = (e.clientY + 16) + 'px';
	};

	pure.HeatMap = HeatMap;
	return pure;
})();
if (typeof module === 'object' && module && typeof module.exports === 'object' && typeof window === 'undefined')
	module.exports = scorchTime;
