'use strict';
/*
 * Hand-built SVG fixture with flamegraph.pl's structure (see
 * shared/reference/flamegraph-pl.md 2.3 and 2.6), carrying the viewer script
 * the way the renderer embeds it: a `var scorchConfig = {...};` line, then
 * src/render/viewer/flamegraph.js, inside CDATA. Used when the scorch binary
 * cannot draw flame graphs, and for layouts the tests want to pin down.
 */
const fs = require('fs');
const path = require('path');

/* VIEWER_JS: another copy of the viewer (to check that the tests catch a broken one) */
const VIEWER = process.env.VIEWER_JS || path.join(__dirname, '..', '..', '..', 'src', 'render', 'viewer', 'flamegraph.js');

function esc(s) {
	return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function commas(n) {
	return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/* opts: width, height, fontsize, fontwidth, inverted, countname, title, truncateLeft */
function buildSvg(foldedText, opts = {}) {
	const W = opts.width || 1200, H = opts.height || 16, fs_ = opts.fontsize || 12;
	const fw = opts.fontwidth || 0.59, xpad = 10, countname = opts.countname || 'samples';
	const inverted = !!opts.inverted;
	const raw = [];
	for (const line of foldedText.split('\n')) {
		const m = /^(.*)\s+?(\d+(?:\.\d*)?)$/.exec(line);
		if (m) raw.push({ line, stack: m[1], count: parseFloat(m[2]) });
	}
	raw.sort((a, b) => (a.line < b.line ? -1 : a.line > b.line ? 1 : 0));
	/* merge adjacent prefixes (flamegraph.pl's flow) */
	const nodes = [];
	let last = [''], open = [{ func: '', stime: 0 }], T = 0;
	for (const r of raw) {
		const stack = [''].concat(r.stack.split(';'));
		let same = 0;
		while (same < last.length && same < stack.length && last[same] === stack[same]) same++;
		for (let i = last.length - 1; i >= same; i--) nodes.push({ func: last[i], depth: i, stime: open[i].stime, etime: T });
		open.length = same;
		for (let i = same; i < stack.length; i++) open[i] = { func: stack[i], stime: T };
		last = stack;
		T += r.count;
	}
	for (let i = last.length - 1; i >= 0; i--) nodes.push({ func: last[i], depth: i, stime: open[i].stime, etime: T });
	const wpt = (W - 2 * xpad) / T;
	const kept = nodes.filter((n) => (n.etime - n.stime) * wpt >= 0.1);
	const depthmax = Math.max(...kept.map((n) => n.depth));
	const ypad1 = fs_ * 3, ypad2 = fs_ * 2 + 10;
	const imgH = (depthmax + 1) * H + ypad1 + ypad2;
	const title = opts.title || (inverted ? 'Icicle Graph' : 'Flame Graph');
	const config = {
		nametype: 'Function:', fontsize: fs_, fontwidth: fw, xpad, inverted,
		searchcolor: 'rgb(230,0,230)', countname, factor: 1, total: T,
		differential: false, truncateRight: !opts.truncateLeft
	};
	const out = [];
	out.push('<?xml version="1.0" standalone="no"?>');
	out.push('<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">');
	out.push(`<svg version="1.1" width="${W}" height="${imgH}" onload="init(evt)" viewBox="0 0 ${W} ${imgH}" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">`);
	out.push('<!-- test fixture -->');
	out.push('<defs>\n\t<linearGradient id="background" y1="0" y2="1" x1="0" x2="0" >\n\t\t<stop stop-color="#eeeeee" offset="5%" />\n\t\t<stop stop-color="#eeeeb0" offset="95%" />\n\t</linearGradient>\n</defs>');
	out.push(`<style type="text/css">
text { font-family:Verdana; font-size:${fs_}px; fill:rgb(0,0,0); }
#search, #ignorecase { opacity:0.1; cursor:pointer; }
#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }
#title { text-anchor:middle; font-size:${fs_ + 5}px}
#unzoom { cursor:pointer; }
#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }
.hide { display:none; }
.parent { opacity:0.5; }
</style>`);
	out.push('<script type="text/ecmascript">\n<![CDATA[');
	out.push('var scorchConfig = ' + JSON.stringify(config) + ';');
	out.push(fs.readFileSync(VIEWER, 'utf8'));
	out.push(']]>\n</script>');
	out.push(`<rect x="0.0" y="0" width="${W}.0" height="${imgH}.0" fill="url(#background)"  />`);
	out.push(`<text id="title" x="${(Math.floor(W / 2)).toFixed(2)}" y="${fs_ * 2}" >${esc(title)}</text>`);
	const detY = inverted ? fs_ * 2 : imgH - ypad2 / 2;
	out.push(`<text id="details" x="${xpad.toFixed(2)}" y="${detY}" > </text>`);
	out.push(`<text id="unzoom" x="${xpad.toFixed(2)}" y="${fs_ * 2}" class="hide">Reset Zoom</text>`);
	out.push(`<text id="search" x="${(W - 110).toFixed(2)}" y="${fs_ * 2}" >Search</text>`);
	out.push(`<text id="ignorecase" x="${(W - 26).toFixed(2)}" y="${fs_ * 2}" >ic</text>`);
	out.push(`<text id="matched" x="${(W - 110).toFixed(2)}" y="${detY}" > </text>`);
	out.push('<g id="frames">');
	for (const n of kept) {
		const x1 = xpad + n.stime * wpt, x2 = xpad + n.etime * wpt;
		const y1 = inverted ? ypad1 + n.depth * H : imgH - ypad2 - (n.depth + 1) * H + 1;
		const y2 = inverted ? ypad1 + (n.depth + 1) * H - 1 : imgH - ypad2 - n.depth * H;
		const name = n.depth === 0 ? 'all' : n.func;
		const samples = n.etime - n.stime;
		const t = n.depth === 0 ? `all (${commas(samples)} ${countname}, 100%)`
			: `${name} (${commas(samples)} ${countname}, ${(100 * samples / T).toFixed(2)}%)`;
		const chars = Math.floor((x2 - x1) / (fs_ * fw));
		let label = '';
		if (n.depth > 0 && chars >= 3) {
			label = [...name].slice(0, chars).join('');
			if (label.length < name.length) label = label.slice(0, -2) + '..';
		}
		const rx = Number(x1.toFixed(1)), rw = (Number(x2.toFixed(1)) - rx).toFixed(1);
		out.push('<g >');
		out.push(`<title>${esc(t)}</title><rect x="${x1.toFixed(1)}" y="${y1}" width="${rw}" height="${(H - 1).toFixed(1)}" fill="rgb(${200 + (n.depth * 7) % 55},${(n.stime * 13) % 200},40)" rx="2" ry="2" />`);
		out.push(`<text  x="${(x1 + 3).toFixed(2)}" y="${3 + (y1 + y2) / 2}" >${esc(label)}</text>`);
		out.push('</g>');
	}
	out.push('</g>');
	out.push('</svg>');
	return out.join('\n') + '\n';
}

module.exports = { buildSvg };

if (require.main === module) {
	const args = process.argv.slice(2);
	const opts = {};
	const files = [];
	for (const a of args) {
		if (a === '--inverted') opts.inverted = true;
		else files.push(a);
	}
	process.stdout.write(buildSvg(fs.readFileSync(files[0] || 0, 'utf8'), opts));
}
