/*
 * scorch flame-graph viewer: the script embedded in every SVG that
 * `scorch flamegraph` writes.
 *
 * The renderer emits `var scorchConfig = {...};` just before this file, inside
 * a CDATA section, and calls init(evt) from the root element's onload. The
 * SVG has flamegraph.pl's structure: #title, #details, #unzoom, #search,
 * #ignorecase, #matched, and <g id="frames"> with one <g> (or <a>) per frame
 * holding <title>, <rect> and <text>.
 *
 * Features: click to zoom (percentages of the whole and of the zoomed frame),
 * ancestors dimmed and clickable, Reset Zoom, labels refitted with the font's
 * real glyph widths, icicle layouts, regex search with the matched share
 * (nested matches counted once), case toggle, Ctrl-F / F3 / Escape, a details
 * line on hover, Shift-click to search every occurrence of a function, and
 * the state in the URL (?x=&y=&s=&i=1) so a view can be shared.
 *
 * Rules for this file:
 *  - it must never contain the CDATA terminator (square brackets twice, then
 *    a greater-than sign); tests/browser/unit checks this;
 *  - names from the profile are untrusted: they are read and written with
 *    textContent / setAttribute only, never as markup;
 *  - plain ES5, ASCII only, so old viewers and any --encoding work;
 *  - pure logic lives in plain functions exported for node's test runner by
 *    the guarded footer.
 */
var scorchViewer = (function () {
	'use strict';

	var SVGNS = 'http://www.w3.org/2000/svg';
	var XHTMLNS = 'http://www.w3.org/1999/xhtml';
	var EPS = 1e-3;

	/* ---------------------------------------------------------------- */
	/* Pure logic (no DOM). Exported for tests.                          */
	/* ---------------------------------------------------------------- */

	/* 1234567 -> "1,234,567"; non-integers are rounded first. */
	function formatCount(n) {
		var neg = n < 0, s = Math.round(Math.abs(n)).toString(), out = '';
		if (!isFinite(n)) return String(n);
		while (s.length > 3) {
			out = ',' + s.slice(-3) + out;
			s = s.slice(0, -3);
		}
		return (neg ? '-' : '') + s + out;
	}

	/* "1,234" -> 1234; NaN when it is not a count. */
	function parseCount(s) {
		if (!/^[0-9][0-9,]*(\.[0-9]*)?$/.test(s)) return NaN;
		return parseFloat(s.replace(/,/g, ''));
	}

	/* Percentage of part in whole, 0 when whole is not positive. */
	function percentOf(part, whole) {
		return whole > 0 ? 100 * part / whole : 0;
	}

	function formatPercent(p) {
		return p.toFixed(2);
	}

	/* The share shown after "Matched:": one decimal, "100" when whole. */
	function formatMatched(p) {
		return p === 100 ? '100' : p.toFixed(1);
	}

	function escapeRegExp(s) {
		return s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
	}

	/*
	 * Split a frame tooltip "NAME (1,234 samples, 12.34%)" or, for a
	 * differential graph, "NAME (1,234 samples, 12.34%; +5.00%)" into its
	 * parts. The suffix is matched at the end, so names may contain
	 * parentheses. countname is the unit the renderer used (any text when
	 * not given). A title that does not have this shape (a --nameattr title)
	 * comes back as {name: title, count: NaN}.
	 */
	function parseTitle(title, countname) {
		var unit = countname ? escapeRegExp(countname) : '[^,]*?';
		var re = new RegExp('^([\\s\\S]*) \\(([0-9][0-9,]*(?:\\.[0-9]*)?) (' + unit +
			'), ([0-9.]+)%(?:; ([+-]?[0-9.]+%))?\\)$');
		var m = re.exec(title);
		if (!m) return { name: title, count: NaN, countText: '', unit: '', pct: '', delta: '' };
		return {
			name: m[1],
			count: parseCount(m[2]),
			countText: m[2],
			unit: m[3],
			pct: m[4],
			delta: m[5] || ''
		};
	}

	/*
	 * The details line for a frame. info is parseTitle's result (plus the
	 * raw title); zoomCount is the zoomed frame's count, or 0 when the view
	 * is not zoomed or the frame is an ancestor of the zoomed frame.
	 */
	function detailsText(nametype, title, info, total, zoomCount) {
		var prefix = nametype ? nametype + ' ' : '';
		if (!(zoomCount > 0) || isNaN(info.count)) return prefix + title;
		var all = total > 0 ? formatPercent(percentOf(info.count, total)) : info.pct;
		var s = prefix + info.name + ' (' + info.countText + ' ' + info.unit + ', ' +
			all + '% of all, ' + formatPercent(percentOf(info.count, zoomCount)) + '% of zoomed';
		if (info.delta) s += '; ' + info.delta;
		return s + ')';
	}

	/*
	 * Sum of the counts of the matched frames without counting a frame
	 * nested in another matched frame. items: [{x, w, count}] in one
	 * coordinate system. A frame is nested when it starts before the end of
	 * the last kept frame; frames are visited left to right, widest first.
	 */
	function matchedSum(items) {
		var sorted = items.slice().sort(function (a, b) {
			return a.x - b.x || b.w - a.w;
		});
		var sum = 0, end = -Infinity, i;
		for (i = 0; i < sorted.length; i++) {
			if (sorted[i].x >= end - EPS) {
				sum += sorted[i].count;
				end = sorted[i].x + sorted[i].w;
			}
		}
		return sum;
	}

	/* "Matched: 12.3%" or, zoomed, "Matched: 12.3% of all, 45.6% of zoomed". */
	function matchedText(pctAll, pctZoom) {
		var s = 'Matched: ' + formatMatched(pctAll) + '%';
		if (pctZoom !== null && pctZoom !== undefined) s += ' of all, ' + formatMatched(pctZoom) + '% of zoomed';
		return s;
	}

	/* The search term that matches exactly this text. */
	function exactSearch(text) {
		return '^' + escapeRegExp(text) + '$';
	}

	/* Compile a search term; an invalid pattern gives {error} instead of throwing. */
	function compileSearch(term, ignoreCase) {
		try {
			return { re: new RegExp(term, ignoreCase ? 'i' : ''), error: null };
		} catch (e) {
			return { re: null, error: String(e && e.message ? e.message : e) };
		}
	}

	function decodeParam(s) {
		s = s.replace(/\+/g, ' ');
		try {
			return decodeURIComponent(s);
		} catch (e) {
			return s; /* a malformed %-escape is kept as typed */
		}
	}

	/* "?a=1&b=x%20y" -> [["a","1"],["b","x y"]] (order kept, "+" is a space). */
	function parseParams(query) {
		var out = [], parts, i, eq;
		query = String(query || '').replace(/^\?/, '');
		if (!query) return out;
		parts = query.split('&');
		for (i = 0; i < parts.length; i++) {
			if (!parts[i]) continue;
			eq = parts[i].indexOf('=');
			if (eq < 0) out.push([decodeParam(parts[i]), '']);
			else out.push([decodeParam(parts[i].slice(0, eq)), decodeParam(parts[i].slice(eq + 1))]);
		}
		return out;
	}

	/* The last value of key in parsed params, or null. */
	function getParam(params, key) {
		var v = null, i;
		for (i = 0; i < params.length; i++)
			if (params[i][0] === key) v = params[i][1];
		return v;
	}

	function buildQuery(params) {
		var parts = [], i;
		for (i = 0; i < params.length; i++)
			parts.push(encodeURIComponent(params[i][0]) + '=' + encodeURIComponent(params[i][1]));
		return parts.length ? '?' + parts.join('&') : '';
	}

	/*
	 * A query string with updates applied: updates maps key -> string (set,
	 * in place when present, else appended) or null (removed). Other
	 * parameters are kept in their order.
	 */
	function updateQuery(query, updates) {
		var params = parseParams(query), out = [], done = {}, i, k;
		for (i = 0; i < params.length; i++) {
			k = params[i][0];
			if (!Object.prototype.hasOwnProperty.call(updates, k)) {
				out.push(params[i]);
			} else if (updates[k] !== null && !done[k]) {
				out.push([k, String(updates[k])]);
				done[k] = true;
			}
		}
		for (k in updates) {
			if (Object.prototype.hasOwnProperty.call(updates, k) && updates[k] !== null && !done[k])
				out.push([k, String(updates[k])]);
		}
		return buildQuery(out);
	}

	/*
	 * Where a frame goes when target is zoomed. Frames are {x, w, y} in the
	 * original geometry; width is the SVG width, xpad the side margin.
	 * Rows on the root side of the target that span it are its ancestors
	 * ("parent": stretched to full width); frames in the target's range on
	 * its row or beyond are its subtree ("shown": rescaled); the rest are
	 * hidden.
	 */
	function zoomLayout(f, t, width, xpad, inverted) {
		var full = width - 2 * xpad, ratio, sameRow, rootSide;
		sameRow = Math.abs(f.y - t.y) < 0.5;
		rootSide = !sameRow && (inverted ? f.y < t.y : f.y > t.y);
		if (rootSide) {
			if (f.x <= t.x + EPS && f.x + f.w >= t.x + t.w - EPS)
				return { kind: 'parent', x: xpad, w: full };
			return { kind: 'hidden', x: f.x, w: f.w };
		}
		if (t.w > 0 && f.x >= t.x - EPS && f.x + f.w <= t.x + t.w + EPS) {
			ratio = full / t.w;
			return { kind: 'shown', x: (f.x - t.x) * ratio + xpad, w: f.w * ratio };
		}
		return { kind: 'hidden', x: f.x, w: f.w };
	}

	/* Split a string into code points, so cuts never halve a surrogate pair. */
	function codePoints(s) {
		var out = [], i, c;
		for (i = 0; i < s.length; i++) {
			c = s.charCodeAt(i);
			if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
				var d = s.charCodeAt(i + 1);
				if (d >= 0xdc00 && d <= 0xdfff) {
					out.push(s.slice(i, i + 2));
					i++;
					continue;
				}
			}
			out.push(s.charAt(i));
		}
		return out;
	}

	/*
	 * The label that fits in avail pixels. measure(s) gives the rendered
	 * width of s. Below minWidth there is no label. A name that does not fit
	 * is cut to the longest piece that fits with "..": its head when
	 * truncateRight, else its tail ("..tail", where C++ and Java names keep
	 * the method).
	 */
	function fitLabel(name, avail, measure, minWidth, truncateRight) {
		var cps, lo, hi, mid, best, piece;
		if (!name || avail < minWidth || avail <= 0) return '';
		if (measure(name) <= avail) return name;
		cps = codePoints(name);
		piece = function (k) {
			return truncateRight ? cps.slice(0, k).join('') + '..' : '..' + cps.slice(cps.length - k).join('');
		};
		/* largest k in [1, n-1] whose piece fits (width grows with k) */
		lo = 1;
		hi = cps.length - 1;
		best = 0;
		while (lo <= hi) {
			mid = (lo + hi) >> 1;
			if (measure(piece(mid)) <= avail) {
				best = mid;
				lo = mid + 1;
			} else {
				hi = mid - 1;
			}
		}
		return best ? piece(best) : '';
	}

	/* Numbers written into attributes: at most two decimals, no "-0". */
	function fmtNum(v) {
		var r = Math.round(v * 100) / 100;
		return String(r === 0 ? 0 : r);
	}

	/* ---------------------------------------------------------------- */
	/* The viewer (DOM).                                                 */
	/* ---------------------------------------------------------------- */

	function childByName(el, name) {
		for (var c = el.firstChild; c; c = c.nextSibling)
			if (c.nodeType === 1 && (c.localName || c.nodeName) === name) return c;
		return null;
	}

	function setClass(el, c, on) {
		var cur = el.getAttribute('class') || '', list = cur.split(/\s+/), out = [], i, found = false;
		for (i = 0; i < list.length; i++) {
			if (!list[i]) continue;
			if (list[i] === c) {
				found = true;
				if (!on) continue;
			}
			out.push(list[i]);
		}
		if (on && !found) out.push(c);
		if (out.join(' ') !== cur) {
			if (out.length) el.setAttribute('class', out.join(' '));
			else el.removeAttribute('class');
		}
	}

	function numOr(v, dflt) {
		var n = typeof v === 'number' ? v : parseFloat(v);
		return isFinite(n) ? n : dflt;
	}

	/* A text-width function using the font of el: canvas metrics when there
	 * is a canvas (fast, no layout), else the SVG text layout of a hidden
	 * probe element (also when noCanvas, or when the canvas rejects the
	 * font). */
	function makeMeasure(doc, svg, el, noCanvas) {
		var cache = {}, ctx = null, probe = null, cs, canvas;
		try {
			canvas = noCanvas ? null : doc.createElementNS(XHTMLNS, 'canvas');
			ctx = canvas && canvas.getContext ? canvas.getContext('2d') : null;
			if (ctx && el && doc.defaultView && doc.defaultView.getComputedStyle) {
				cs = doc.defaultView.getComputedStyle(el, null);
				ctx.font = [cs.fontStyle, cs.fontWeight, cs.fontSize, cs.fontFamily].join(' ');
				/* an invalid font string is ignored, leaving the default */
				if (ctx.font.indexOf(cs.fontSize) < 0) ctx = null;
			} else {
				ctx = null;
			}
		} catch (e) {
			ctx = null;
		}
		if (!ctx) {
			probe = doc.createElementNS(SVGNS, 'text');
			probe.setAttribute('x', '0');
			probe.setAttribute('y', '-100');
			probe.setAttribute('visibility', 'hidden');
			if (el && el.parentNode) el.parentNode.appendChild(probe);
			else svg.appendChild(probe);
		}
		return function (s) {
			var w;
			if (Object.prototype.hasOwnProperty.call(cache, s)) return cache[s];
			if (ctx) {
				w = ctx.measureText(s).width;
			} else {
				probe.textContent = s;
				w = probe.getComputedTextLength();
			}
			cache[s] = w;
			return w;
		};
	}

	function Viewer(doc, win, config) {
		var framesEl = doc.getElementById('frames');
		this.doc = doc;
		this.win = win;
		this.config = config;
		this.svg = (framesEl && framesEl.ownerSVGElement) || doc.documentElement;
		this.framesEl = framesEl;
		this.details = doc.getElementById('details');
		this.unzoomBtn = doc.getElementById('unzoom');
		this.searchBtn = doc.getElementById('search');
		this.icBtn = doc.getElementById('ignorecase');
		this.matched = doc.getElementById('matched');
		this.nametype = config.nametype === undefined ? 'Function:' : String(config.nametype);
		this.fontsize = numOr(config.fontsize, 12);
		this.fontwidth = numOr(config.fontwidth, 0.59);
		this.xpad = numOr(config.xpad, 10);
		this.inverted = !!config.inverted;
		this.searchcolor = config.searchcolor ? String(config.searchcolor) : 'rgb(230,0,230)';
		this.countname = config.countname === undefined ? '' : String(config.countname);
		this.truncateRight = config.truncateRight === undefined ? true : !!config.truncateRight;
		this.minLabel = 2 * this.fontsize * this.fontwidth;
		this.frames = [];
		this.hovered = null;
		this.zoomed = null;
		this.term = null;
		this.ignoreCase = false;
		this.matches = [];
	}

	Viewer.prototype.load = function () {
		var svg = this.svg, el, rect, text, titleEl, rec, i, info, root = null;
		this.width = numOr(svg.getAttribute('width'), 0);
		if (!(this.width > 0) && svg.viewBox && svg.viewBox.baseVal) this.width = svg.viewBox.baseVal.width;
		for (el = this.framesEl ? this.framesEl.firstChild : null; el; el = el.nextSibling) {
			if (el.nodeType !== 1) continue;
			rect = childByName(el, 'rect');
			if (!rect) continue;
			text = childByName(el, 'text');
			titleEl = childByName(el, 'title');
			rec = {
				el: el,
				rect: rect,
				text: text,
				title: titleEl ? titleEl.textContent : '',
				xAttr: rect.getAttribute('x'),
				wAttr: rect.getAttribute('width'),
				tx: text ? text.getAttribute('x') : null,
				x: numOr(rect.getAttribute('x'), 0),
				w: numOr(rect.getAttribute('width'), 0),
				y: numOr(rect.getAttribute('y'), 0),
				fill: rect.getAttribute('fill'),
				index: this.frames.length
			};
			info = parseTitle(rec.title, this.countname);
			rec.info = info;
			rec.name = info.name;
			el.scorchFrame = rec;
			this.frames.push(rec);
			if (!root || rec.w > root.w || (rec.w === root.w && (this.inverted ? rec.y < root.y : rec.y > root.y)))
				root = rec;
		}
		this.root = root;
		if (!(this.width > 0)) this.width = root ? root.x + root.w + this.xpad : 0;
		/* Counts: the tooltip's, or estimated from the width when a
		 * --nameattr title replaced it. */
		var full = this.width - 2 * this.xpad;
		var total = numOr(this.config.total, NaN) * numOr(this.config.factor, 1);
		if (!(total > 0) && root && root.info.count > 0) total = root.info.count;
		this.total = total > 0 ? total : full;
		for (i = 0; i < this.frames.length; i++) {
			rec = this.frames[i];
			rec.count = !isNaN(rec.info.count) ? rec.info.count : (full > 0 ? rec.w / full * this.total : 0);
		}
		this.measure = makeMeasure(this.doc, svg, this.frames.length ? this.frames[0].text : this.details);
		for (i = 0; i < this.frames.length; i++) {
			rec = this.frames[i];
			this.refit(rec, rec.w);
			rec.label0 = rec.text ? rec.text.textContent : '';
		}
		if (this.matched) {
			/* long "Matched: ..% of all, ..% of zoomed" text stays inside */
			this.matched.setAttribute('text-anchor', 'end');
			this.matched.setAttribute('x', fmtNum(this.width - this.xpad));
		}
	};

	Viewer.prototype.refit = function (rec, w) {
		if (!rec.text) return;
		var label = fitLabel(rec.name, w - 6, this.measure, this.minLabel, this.truncateRight);
		if (rec.text.textContent !== label) rec.text.textContent = label;
	};

	Viewer.prototype.frameOf = function (node) {
		while (node && node !== this.framesEl) {
			if (node.parentNode === this.framesEl) return node.scorchFrame || null;
			node = node.parentNode;
		}
		return null;
	};

	Viewer.prototype.zoom = function (rec) {
		var i, f, lay, t = rec;
		if (!rec || rec === this.root || !(rec.w > 0)) {
			this.unzoom();
			return;
		}
		this.zoomed = rec;
		for (i = 0; i < this.frames.length; i++) {
			f = this.frames[i];
			lay = zoomLayout(f, t, this.width, this.xpad, this.inverted);
			f.kind = lay.kind;
			setClass(f.el, 'parent', lay.kind === 'parent');
			setClass(f.el, 'hide', lay.kind === 'hidden');
			if (lay.kind === 'hidden') continue;
			f.rect.setAttribute('x', fmtNum(lay.x));
			f.rect.setAttribute('width', fmtNum(lay.w));
			if (f.text) f.text.setAttribute('x', fmtNum(lay.x + 3));
			this.refit(f, lay.w);
		}
		if (this.unzoomBtn) setClass(this.unzoomBtn, 'hide', false);
		this.setUrl({ x: rec.xAttr, y: rec.rect.getAttribute('y') });
		this.research();
		this.refreshDetails();
	};

	Viewer.prototype.unzoom = function () {
		var i, f;
		this.zoomed = null;
		for (i = 0; i < this.frames.length; i++) {
			f = this.frames[i];
			f.kind = null;
			setClass(f.el, 'parent', false);
			setClass(f.el, 'hide', false);
			f.rect.setAttribute('x', f.xAttr);
			f.rect.setAttribute('width', f.wAttr);
			if (f.text) {
				if (f.tx !== null) f.text.setAttribute('x', f.tx);
				if (f.text.textContent !== f.label0) f.text.textContent = f.label0;
			}
		}
		if (this.unzoomBtn) setClass(this.unzoomBtn, 'hide', true);
		this.setUrl({ x: null, y: null });
		this.research();
		this.refreshDetails();
	};

	Viewer.prototype.showDetails = function (rec) {
		var zc, s, avail;
		this.hovered = rec;
		if (!this.details) return;
		zc = this.zoomed && rec.kind !== 'parent' ? this.zoomed.count : 0;
		s = detailsText(this.nametype, rec.title, rec.info, this.total, zc);
		/* keep clear of the matched text at the other end of the line */
		avail = this.width - 2 * this.xpad;
		if (this.matched && /\S/.test(this.matched.textContent)) avail -= this.measure(this.matched.textContent) + 20;
		this.details.textContent = fitLabel(s, avail, this.measure, 0, true);
	};

	Viewer.prototype.clearDetails = function () {
		this.hovered = null;
		if (this.details) this.details.textContent = ' ';
	};

	/* After a zoom or a search the frame under the pointer stays the same
	 * element, so no mouseover comes: redraw its details line. */
	Viewer.prototype.refreshDetails = function () {
		var rec = this.hovered;
		if (!rec) return;
		if (rec.kind === 'hidden') this.clearDetails();
		else this.showDetails(rec);
	};

	/* The text a search pattern is tested against: the frame's name, or the
	 * whole tooltip when it has no count suffix (--nameattr title). */
	function searchText(rec) {
		return isNaN(rec.info.count) ? rec.title : rec.name;
	}

	Viewer.prototype.clearHighlight = function () {
		for (var i = 0; i < this.matches.length; i++) this.matches[i].rect.setAttribute('fill', this.matches[i].fill);
		this.matches = [];
	};

	Viewer.prototype.search = function (term) {
		var c, i, f, items, pctAll, pctZoom = null, z, zsum;
		if (term === null || term === undefined || term === '') return;
		term = String(term);
		this.clearHighlight();
		this.term = term;
		if (this.searchBtn) {
			this.searchBtn.textContent = 'Reset Search';
			setClass(this.searchBtn, 'show', true);
		}
		this.setUrl({ s: term });
		c = compileSearch(term, this.ignoreCase);
		if (c.error) {
			this.setMatched('Invalid regex: ' + c.error);
			return;
		}
		for (i = 0; i < this.frames.length; i++) {
			f = this.frames[i];
			if (c.re.test(searchText(f))) {
				this.matches.push(f);
				f.rect.setAttribute('fill', this.searchcolor);
			}
		}
		items = [];
		for (i = 0; i < this.matches.length; i++) items.push(this.matches[i]);
		pctAll = Math.min(100, percentOf(matchedSum(items), this.total));
		z = this.zoomed;
		if (z) {
			zsum = 0;
			items = [];
			for (i = 0; i < this.matches.length; i++) {
				f = this.matches[i];
				if (f === z || f.kind === 'parent') {
					zsum = z.count; /* the whole zoomed frame is under a match */
					break;
				}
				if (f.kind === 'shown') items.push(f);
			}
			if (i === this.matches.length) zsum = matchedSum(items);
			pctZoom = Math.min(100, percentOf(zsum, z.count));
		}
		this.setMatched(matchedText(pctAll, pctZoom));
	};

	/* Re-apply the current search (after a zoom or a case toggle). */
	Viewer.prototype.research = function () {
		if (this.term !== null) this.search(this.term);
	};

	Viewer.prototype.setMatched = function (s) {
		if (this.matched) this.matched.textContent = s;
		this.refreshDetails(); /* its room depends on the matched text */
	};

	Viewer.prototype.resetSearch = function () {
		this.clearHighlight();
		this.term = null;
		if (this.searchBtn) {
			this.searchBtn.textContent = 'Search';
			setClass(this.searchBtn, 'show', false);
		}
		this.setMatched(' ');
		this.setUrl({ s: null });
	};

	Viewer.prototype.prompt = function () {
		var msg = 'Search frame names with a regular expression (for example ^ext4_)' +
			(this.ignoreCase ? ', ignoring case.' : ', case-sensitive.') +
			'\nCtrl-I toggles case sensitivity, Escape clears the search.';
		var term = this.win.prompt(msg, this.term === null ? '' : this.term);
		if (term) this.search(term);
	};

	Viewer.prototype.toggleIgnoreCase = function () {
		this.ignoreCase = !this.ignoreCase;
		if (this.icBtn) setClass(this.icBtn, 'show', this.ignoreCase);
		this.setUrl({ i: this.ignoreCase ? '1' : null });
		this.research();
	};

	Viewer.prototype.setUrl = function (updates) {
		var loc = this.win.location, hist = this.win.history, q, url;
		if (this.restoring || !hist || !hist.replaceState || !loc) return;
		q = updateQuery(loc.search, updates);
		if (q === loc.search) return;
		url = loc.href.replace(/[?#].*$/, '') + q + loc.hash;
		try {
			hist.replaceState(hist.state, '', url);
		} catch (e) {
			/* some viewers refuse history changes (sandboxed, data: URLs) */
		}
	};

	Viewer.prototype.findFrame = function (x, y) {
		var nx = parseFloat(x), ny = parseFloat(y), i, f, best = null;
		if (!isFinite(nx) || !isFinite(ny)) return null;
		for (i = 0; i < this.frames.length; i++) {
			f = this.frames[i];
			if (Math.abs(f.x - nx) < 0.05 && Math.abs(f.y - ny) < 0.05 && (!best || f.w > best.w)) best = f;
		}
		return best;
	};

	/* Apply ?x=&y=&s=&i=1 from the page address. */
	Viewer.prototype.restore = function () {
		var params = parseParams(this.win.location ? this.win.location.search : ''), rec, s;
		this.restoring = true;
		try {
			if (getParam(params, 'i') === '1') this.toggleIgnoreCase();
			rec = this.findFrame(getParam(params, 'x'), getParam(params, 'y'));
			if (rec) this.zoom(rec);
			s = getParam(params, 's');
			if (s) this.search(s);
		} finally {
			this.restoring = false;
		}
	};

	Viewer.prototype.onClick = function (e) {
		var rec, t = e.target, id;
		if (e.button !== undefined && e.button !== 0) return;
		rec = this.frameOf(t);
		if (rec && e.shiftKey) {
			/* Shift-click: every occurrence of this function, wherever it is */
			if (e.preventDefault) e.preventDefault();
			this.search(exactSearch(searchText(rec)));
			return;
		}
		if (rec) {
			/* a --nameattr link: a plain click follows it, Ctrl-click zooms */
			if ((rec.el.localName || rec.el.nodeName) === 'a' && !(e.ctrlKey || e.metaKey)) return;
			if (e.preventDefault) e.preventDefault();
			this.zoom(rec);
			return;
		}
		for (; t && t.getAttribute; t = t.parentNode) {
			id = t.getAttribute('id');
			if (id === 'unzoom') return this.unzoom();
			if (id === 'search') return this.term === null ? this.prompt() : this.resetSearch();
			if (id === 'ignorecase') return this.toggleIgnoreCase();
		}
	};

	Viewer.prototype.onKey = function (e) {
		var key = e.key || '', ctrl = e.ctrlKey || e.metaKey;
		if ((ctrl && (key === 'f' || key === 'F' || e.keyCode === 70)) || key === 'F3' || e.keyCode === 114) {
			e.preventDefault();
			this.prompt();
		} else if (ctrl && (key === 'i' || key === 'I' || e.keyCode === 73)) {
			e.preventDefault();
			this.toggleIgnoreCase();
		} else if (key === 'Escape' || key === 'Esc' || e.keyCode === 27) {
			if (this.term !== null) this.resetSearch();
		}
	};

	Viewer.prototype.bind = function () {
		var self = this, doc = this.doc, style;
		/* what zooming relies on, in case the stylesheet lacks it */
		style = doc.createElementNS(SVGNS, 'style');
		style.textContent = '.hide { display: none; } .parent { opacity: 0.5; }';
		this.svg.insertBefore(style, this.svg.firstChild);
		this.win.addEventListener('click', function (e) {
			self.onClick(e);
		}, false);
		this.win.addEventListener('keydown', function (e) {
			self.onKey(e);
		}, false);
		if (this.framesEl) {
			this.framesEl.addEventListener('mouseover', function (e) {
				var rec = self.frameOf(e.target);
				if (rec) self.showDetails(rec);
			}, false);
			this.framesEl.addEventListener('mouseout', function (e) {
				var rec = self.frameOf(e.target);
				if (rec && self.frameOf(e.relatedTarget) !== rec) self.clearDetails();
			}, false);
		}
	};

	var current = null;

	function start(evt) {
		var doc = (evt && evt.target && evt.target.ownerDocument) || document;
		var win = doc.defaultView || window;
		var config = typeof scorchConfig === 'object' && scorchConfig ? scorchConfig : {};
		if (current) return current; /* onload fires once, but be safe */
		current = new Viewer(doc, win, config);
		current.load();
		current.bind();
		current.restore();
		return current;
	}

	return {
		init: start,
		viewer: function () {
			return current;
		},
		formatCount: formatCount,
		parseCount: parseCount,
		percentOf: percentOf,
		formatPercent: formatPercent,
		formatMatched: formatMatched,
		parseTitle: parseTitle,
		detailsText: detailsText,
		matchedSum: matchedSum,
		matchedText: matchedText,
		compileSearch: compileSearch,
		exactSearch: exactSearch,
		parseParams: parseParams,
		getParam: getParam,
		buildQuery: buildQuery,
		updateQuery: updateQuery,
		zoomLayout: zoomLayout,
		codePoints: codePoints,
		fitLabel: fitLabel,
		fmtNum: fmtNum,
		makeMeasure: makeMeasure
	};
})();

/* Called by the root element's onload="init(evt)". */
function init(evt) {
	scorchViewer.init(evt);
}

/* node's test runner loads this file as a module; in a browser `module` is
 * undefined (or a DOM element named "module", which has no exports). */
if (typeof module !== 'undefined' && module && typeof module.exports === 'object') {
	module.exports = scorchViewer;
}
