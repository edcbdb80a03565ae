'use strict';
/*
 * Browser tests of the HTML viewer (`scorch flamegraph -o FILE.html`):
 * files drawn by $SCORCH from small folded inputs, loaded from file:// in
 * headless chromium. Every expectation is computed here from the folded
 * text (lib/folded.js and the helpers below), not from scorch's C code or
 * the viewer's own arrays. The harness fails a page on any console error,
 * page error or dialog.
 *
 *   node html.js                  (tests/browser/run sets SCORCH and TMPDIR)
 *   SCREENSHOT=dir node html.js   also saves dir/html-{light,dark,zoomed}.png
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { pathToFileURL } = require('url');
const { runAll } = require('./lib/harness');
const F = require('./lib/folded');

const WORK = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'html-'));
const SCORCH = process.env.SCORCH;

/* Total 1000. "write" under io and log; "Compute_Fast" differs from
 * "compute" by case; "rec" calls itself. */
const FOLDED = [
	'main;init;load_config 40',
	'main;init;parse_args 10',
	'main;run;compute;kernel_a 300',
	'main;run;compute;kernel_b 150',
	'main;run;compute 50',
	'main;run;io;read 100',
	'main;run;io;write 60',
	'main;run;log;write 20',
	'main;rec;rec;rec;leaf 20',
	'main;cleanup 10',
	'idle 200',
	'Worker;Compute_Fast 40',
	''
].join('\n');
const LINES = F.parseFolded(FOLDED);
const TOTAL = F.total(LINES);

const HOSTILE_NAMES = [
	'<script>window.__pwned=1</script>',
	'" onload="window.__pwned=2" x="',
	"' onmouseover='window.__pwned=3",
	']]><script>window.__pwned=4</script>',
	'<svg onload="alert(5)"/>',
	'<img src=x onerror="alert(6)">',
	'&amp &#60 &lt "double" \'single\' (a, b)',
	'javascript:alert(7)',
	'<![CDATA[ x ]]>',
	'</script><script>window.__pwned=8</script>'
];
const HOSTILE = HOSTILE_NAMES.map((n, i) => `${n};${n}child${i} ${10 + i}`).join('\n') + '\n';

let made = 0;
function html(folded, args = []) {
	const base = path.join(WORK, `g${++made}`);
	fs.writeFileSync(base + '.folded', folded);
	const r = spawnSync(SCORCH, ['flamegraph', ...args, '-o', base + '.html', base + '.folded'], { encoding: 'utf8', timeout: 20000 });
	if (r.status !== 0) throw new Error(`scorch flamegraph ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
	return base + '.html';
}
const cache = {};
function file(key, folded, args) {
	if (!cache[key]) cache[key] = html(folded, args);
	return cache[key];
}
async function open(c, f, hash = '') {
	await c.page.goto(pathToFileURL(f).href + hash);
	await c.page.evaluate(() => window.scorch.ready);
}
const api = (c, fn, ...args) => c.page.evaluate(([f, a]) => window.scorch[f](...a), [fn, args]);

/* Independent model: per function, self (lines ending in it) and total
 * (lines containing it, each line once). */
function functions(lines) {
	const m = new Map();
	const get = (n) => { if (!m.has(n)) m.set(n, { self: 0, total: 0 }); return m.get(n); };
	for (const l of lines) {
		get(l.stack[l.stack.length - 1]).self += l.count;
		for (const n of new Set(l.stack)) get(n).total += l.count;
	}
	return m;
}
/* Merged tree of paths -> {name: {w, kids}}. */
function tree(paths) {
	const root = { w: 0, kids: new Map() };
	for (const { path: p, count } of paths) {
		root.w += count;
		let t = root;
		for (const n of p) {
			if (!t.kids.has(n)) t.kids.set(n, { w: 0, kids: new Map() });
			t = t.kids.get(n);
			t.w += count;
		}
	}
	return root;
}
/* Flatten to "depth:name:width" strings (root at depth 0 named rootName). */
function flat(t, rootName) {
	const out = [];
	(function walk(node, name, d) {
		out.push(`${d}:${name}:${node.w}`);
		for (const [k, v] of node.kids) walk(v, k, d + 1);
	})(t, rootName, 0);
	return out;
}
/* Sandwich of fn from the folded lines: callers (path from fn's first
 * occurrence up to the root) and callees (path below it). */
function sandwich(lines, fn) {
	const up = [], down = [];
	for (const l of lines) {
		const i = l.stack.indexOf(fn);
		if (i < 0) continue;
		up.push({ path: l.stack.slice(0, i).reverse(), count: l.count });
		down.push({ path: l.stack.slice(i + 1), count: l.count });
	}
	return { callers: flat(tree(up), fn), callees: flat(tree(down), fn) };
}
/* flamegraph.pl's differential colour (independent of render/palette.c). */
function diffFill(delta, maxdelta) {
	if (delta > 0) { const g = Math.floor(210 * (maxdelta - delta) / maxdelta); return `rgb(255,${g},${g})`; }
	if (delta < 0) { const v = Math.floor(210 * (maxdelta + delta) / maxdelta); return `rgb(${v},${v},255)`; }
	return 'rgb(255,255,255)';
}

const tests = [];
const test = (name, fn) => tests.push({ name: 'html/' + name, fn });

test('every frame of the folded input, with its width', async (c) => {
	await open(c, file('main', FOLDED));
	const got = (await api(c, 'frames')).filter((f) => f.depth > 0).map((f) => `${f.depth}:${f.name}:${f.w}`);
	const want = F.framePaths(LINES).map((p) => `${p.length}:${p[p.length - 1]}:${F.countOf(LINES, p)}`);
	c.sameSet(got, want, 'frames');
	const root = (await api(c, 'frames')).filter((f) => f.depth === 0);
	c.equal(root.length, 1, 'one root');
	c.equal(root[0].w, TOTAL, 'root width');
});

test('fractional counts keep their value', async (c) => {
	const T = 'a;b 1.5\na;c 2.25\nd 0.001\n', lines = F.parseFolded(T);
	await open(c, file('frac', T));
	for (const f of (await api(c, 'frames')).filter((x) => x.depth > 0)) {
		const p = F.framePaths(lines).find((q) => q.length === f.depth && q[q.length - 1] === f.name);
		c.near(f.w, F.countOf(lines, p), 1e-9, `width of ${f.name}`);
	}
	c.near(await api(c, 'search', '^c$'), 2.25 / F.total(lines), 1e-9, 'share');
});

test('zoom: share of the whole, breadcrumbs, percentages', async (c) => {
	await open(c, file('main', FOLDED));
	c.check(await api(c, 'zoomTo', 'compute'), 'zoomTo finds compute');
	const st = await api(c, 'state');
	c.near(st.zoomShare, F.countOf(LINES, ['main', 'run', 'compute']) / TOTAL, 1e-12, 'zoomed share');
	const crumbs = await c.page.textContent('#sc-crumbs');
	c.check(crumbs.startsWith('all › main › run › compute'), `breadcrumbs: ${crumbs}`);
	c.check(crumbs.includes((100 * 500 / TOTAL).toFixed(2) + '% of all'), `percentage in ${crumbs}`);
	/* kernel_a's share of the zoomed frame, in the details line on hover */
	const details = await c.page.evaluate(() => document.getElementById('sc-details').textContent);
	c.check(details.includes('compute (500 samples, 50.00% of all'), `details: ${details}`);
	await api(c, 'reset');
	c.equal((await api(c, 'state')).zoom, null, 'reset');
});

test('click zooms (icicle geometry: 10 px margins, 16 px rows)', async (c) => {
	await open(c, file('main', FOLDED), '#view=icicle');
	const box = await c.page.locator('.sc-pane').boundingBox();
	/* root children sorted by name: Worker [0,40), idle [40,240), main [240,1000) */
	const w = box.width - 20;
	await c.page.mouse.move(box.x + 10 + w * 140 / TOTAL, box.y + 10 + 16 + 8);
	const tip = await c.page.textContent('#sc-tip');
	c.equal(tip, `Function: idle (200 samples, ${(100 * 200 / TOTAL).toFixed(2)}% of all)`, 'tooltip');
	await c.page.mouse.click(box.x + 10 + w * 140 / TOTAL, box.y + 10 + 16 + 8);
	const st = await api(c, 'state');
	c.equal(st.zoom, 'idle', 'zoomed by click');
	/* under main, at depth 2: children of main sorted: cleanup init rec run */
	await api(c, 'reset');
	const x = 240 + 10 + 50 + 20 + 10; /* inside run: main [240..), cleanup 10, init 50, rec 20 */
	await c.page.mouse.move(box.x + 10 + w * (x + 100) / TOTAL, box.y + 10 + 2 * 16 + 8);
	c.check((await c.page.textContent('#sc-tip')).startsWith('Function: run (680 samples'), 'hover on run');
});

test('search: matched share counted once per sample, case toggle', async (c) => {
	await open(c, file('main', FOLDED));
	const share = (re, ci = true) => F.matchedCount(LINES, new RegExp(re, ci ? 'i' : '')) / TOTAL;
	c.near(await api(c, 'search', 'write'), share('write'), 1e-12, 'write');
	c.near(await api(c, 'search', 'run|compute'), share('run|compute'), 1e-12, 'nested matches once');
	c.near(await api(c, 'search', 'rec'), share('rec'), 1e-12, 'recursion once');
	c.near(await api(c, 'search', 'compute'), share('compute'), 1e-12, 'case-insensitive by default');
	c.near(await api(c, 'search', 'compute', { ignoreCase: false }), share('compute', false), 1e-12, 'case-sensitive');
	c.check(share('compute') !== share('compute', false), 'the input tells the cases apart');
	const label = await c.page.textContent('#sc-matched');
	c.equal(label, `Matched: ${(100 * share('compute', false)).toFixed(1)}%`, 'label');
	/* the case checkbox drives the same state */
	await c.page.fill('#sc-search', 'compute');
	await c.page.uncheck('#sc-case');
	c.near((await api(c, 'state')).matched, share('compute'), 1e-12, 'checkbox off: insensitive');
	c.equal(await api(c, 'search', '('), 0, 'a bad regex matches nothing');
	c.equal(await c.page.textContent('#sc-matched'), 'bad regex', 'and says so');
});

test('search share within a zoomed frame', async (c) => {
	await open(c, file('main', FOLDED));
	await api(c, 'zoomTo', 'run');
	await api(c, 'search', 'write');
	const inRun = F.matchedCount(LINES, /write/i, ['main', 'run']) / F.countOf(LINES, ['main', 'run']);
	const label = await c.page.textContent('#sc-matched');
	c.check(label.includes(`(${(100 * inRun).toFixed(1)}% of zoomed)`), `label ${label}`);
});

test('function table: self and total, sorted, filtered', async (c) => {
	await open(c, file('main', FOLDED));
	await api(c, 'view', 'table');
	const rows = () => c.page.evaluate(() => [...document.querySelectorAll('#sc-functions tr[data-id]')].map((tr) => {
		const td = tr.querySelectorAll('td');
		return { name: td[0].textContent, self: Number(td[1].dataset.value), total: Number(td[2].dataset.value) };
	}));
	const want = functions(LINES);
	let got = await rows();
	c.equal(got.length, want.size, 'one row per function');
	for (const r of got) {
		const w = want.get(r.name);
		c.check(w, `unknown function ${r.name}`);
		c.equal(r.self, w.self, `self of ${r.name}`);
		c.equal(r.total, w.total, `total of ${r.name}`);
	}
	const totals = got.map((r) => r.total);
	c.equal(JSON.stringify(totals), JSON.stringify([...totals].sort((a, b) => b - a)), 'sorted by total');
	await c.page.click('#sc-functions th[data-key="self"]');
	got = await rows();
	const selfs = got.map((r) => r.self);
	c.equal(JSON.stringify(selfs), JSON.stringify([...selfs].sort((a, b) => b - a)), 'sorted by self');
	await c.page.fill('#sc-table-filter', 'kernel_');
	got = await rows();
	c.sameSet(got.map((r) => r.name), ['kernel_a', 'kernel_b'], 'filtered');
	/* a row opens its sandwich */
	await c.page.click('#sc-functions tr[data-id] td');
	c.equal((await api(c, 'state')).view, 'sandwich', 'row click opens the sandwich');
});

test('sandwich: callers above, callees below, merged', async (c) => {
	await open(c, file('main', FOLDED));
	for (const fn of ['write', 'compute', 'rec', 'main']) {
		c.check(await api(c, 'view', 'sandwich', fn), `sandwich ${fn}`);
		const want = sandwich(LINES, fn);
		const up = (await api(c, 'frames', 0)).map((f) => `${f.depth}:${f.name}:${f.w}`);
		const down = (await api(c, 'frames', 1)).map((f) => `${f.depth}:${f.name}:${f.w}`);
		c.sameSet(up, want.callers, `callers of ${fn}`);
		c.sameSet(down, want.callees, `callees of ${fn}`);
	}
});

test('differential: SVG colours, before/after/delta in the table', async (c) => {
	const D = ['main;a;x 10 30', 'main;b 50 20', 'main;c;d 5 5', 'other 0 10', ''].join('\n');
	const lines = D.split('\n').filter(Boolean).map((l) => {
		const p = l.split(' ');
		return { stack: p[0].split(';'), before: +p[1], after: +p[2] };
	});
	await open(c, file('diff', D));
	/* each frame's delta: its own (exclusive) after - before, coloured on
	 * the largest per-stack |delta| */
	const maxdelta = Math.max(1, ...lines.map((l) => Math.abs(l.after - l.before)));
	for (const f of await api(c, 'frames')) {
		if (f.depth === 0) continue;
		const own = lines.filter((l) => l.stack.length === f.depth && l.stack[f.depth - 1] === f.name);
		const delta = own.reduce((s, l) => s + l.after - l.before, 0);
		c.equal(f.fill, diffFill(delta, maxdelta), `fill of ${f.name}`);
	}
	await api(c, 'view', 'table');
	const rows = await c.page.evaluate(() => [...document.querySelectorAll('#sc-functions tr[data-id]')].map((tr) =>
		[...tr.querySelectorAll('td')].map((td) => td.dataset.value || td.textContent)));
	for (const r of rows) {
		const name = r[0], has = lines.filter((l) => l.stack.includes(name));
		const before = has.reduce((s, l) => s + l.before, 0), after = has.reduce((s, l) => s + l.after, 0);
		c.equal(Number(r[3]), before, `before of ${name}`);
		c.equal(Number(r[4]), after, `after of ${name}`);
		c.equal(Number(r[5]), after - before, `delta of ${name}`);
	}
	/* --negate swaps the colours */
	await open(c, file('diff-neg', D, ['--negate']));
	const x = (await api(c, 'frames')).find((f) => f.name === 'x');
	c.equal(x.fill, diffFill(-20, maxdelta), 'negated fill of x');
});

test('flame chart: input order, only neighbours merge', async (c) => {
	const T = ['main;a 1', 'main;b 2', 'main;a 3', 'main;a 1', 'idle 2', ''].join('\n');
	await open(c, file('chart', T, ['--flamechart']));
	c.equal((await api(c, 'state')).view, 'chart', '--flamechart opens the chart');
	const chart = (await api(c, 'frames')).filter((f) => f.depth === 2).map((f) => `${f.name}@${f.x}+${f.w}`);
	c.equal(JSON.stringify(chart), JSON.stringify(['a@0+1', 'b@1+2', 'a@3+4']), 'chart row 2 in time order');
	await api(c, 'view', 'flame');
	const merged = (await api(c, 'frames')).filter((f) => f.depth === 2).map((f) => `${f.name}+${f.w}`);
	c.sameSet(merged, ['a+5', 'b+2'], 'the flame graph merges');
	/* without --flamechart there is no order to show */
	await open(c, file('main', FOLDED));
	c.equal(await api(c, 'view', 'chart'), false, 'no chart without order');
	c.check(await c.page.isDisabled('#sc-view-chart'), 'chart button disabled');
});

test('URL keeps view, zoom and search', async (c) => {
	const f = file('main', FOLDED);
	await open(c, f);
	await api(c, 'view', 'icicle');
	await api(c, 'zoomTo', 'io');
	await api(c, 'search', 'read|write', { ignoreCase: false });
	const hash = await c.page.evaluate(() => location.hash);
	const before = await api(c, 'state');
	const page2 = await c.page.context().newPage();
	const errors = [];
	page2.on('pageerror', (e) => errors.push(e.message));
	await page2.goto(pathToFileURL(f).href + hash);
	await page2.evaluate(() => window.scorch.ready);
	const after = await page2.evaluate(() => window.scorch.state());
	await page2.close();
	c.equal(errors.length, 0, 'no errors: ' + errors.join(';'));
	c.equal(after.view, 'icicle', 'view');
	c.equal(after.zoom, 'io', 'zoom');
	c.equal(after.search, 'read|write', 'search');
	c.near(after.matched, before.matched, 1e-12, 'same share');
	await open(c, f, '#view=sandwich&fn=write');
	c.equal((await api(c, 'state')).view, 'sandwich', 'sandwich from the URL');
});

test('keyboard: / search, Esc, arrows, Enter, N and Shift-N', async (c) => {
	await open(c, file('main', FOLDED));
	const k = c.page.keyboard;
	await k.press('/');
	c.equal(await c.page.evaluate(() => document.activeElement.id), 'sc-search', '/ focuses the search');
	await k.type('write');
	c.near((await api(c, 'state')).matched, F.matchedCount(LINES, /write/i) / TOTAL, 1e-12, 'typed search');
	await k.press('Escape');
	c.equal((await api(c, 'state')).search, '', 'Esc clears the search');
	await k.press('Control+f');
	c.equal(await c.page.evaluate(() => document.activeElement.id), 'sc-search', 'Ctrl-F focuses the search');
	await k.press('Escape');
	/* flame graph: up goes toward the leaves (widest child), down to the root */
	await k.press('ArrowUp');
	c.equal((await api(c, 'state')).selected, 'main', 'up: widest child of the root');
	await k.press('ArrowUp');
	c.equal((await api(c, 'state')).selected, 'run', 'up again');
	await k.press('ArrowLeft');
	c.equal((await api(c, 'state')).selected, 'rec', 'left: previous frame in the row');
	await k.press('ArrowRight');
	await k.press('Enter');
	c.equal((await api(c, 'state')).zoom, 'run', 'Enter zooms');
	await k.press('ArrowDown');
	c.equal((await api(c, 'state')).selected, 'main', 'down: parent');
	await k.press('Escape');
	c.equal((await api(c, 'state')).zoom, null, 'Esc resets the zoom');
	await api(c, 'search', '^write$');
	await k.press('n');
	const first = await api(c, 'state');
	c.equal(first.zoom, 'write', 'N zooms to a match');
	await k.press('n');
	const second = await api(c, 'state');
	c.check(second.zoom === 'write' && second.zoomShare !== first.zoomShare, 'N: the other write');
	await k.press('Shift+N');
	c.near((await api(c, 'state')).zoomShare, first.zoomShare, 1e-12, 'Shift-N steps back');
});

test('hostile names stay text', async (c) => {
	await open(c, file('hostile', HOSTILE));
	c.equal(await c.page.evaluate(() => window.__pwned), undefined, 'no script ran');
	const lines = F.parseFolded(HOSTILE);
	const got = (await api(c, 'frames')).filter((f) => f.depth > 0).map((f) => f.name);
	c.sameSet(got, F.framePaths(lines).map((p) => p[p.length - 1]), 'names intact');
	await api(c, 'view', 'table');
	const cells = await c.page.evaluate(() => [...document.querySelectorAll('#sc-functions td.name')].map((td) => td.textContent));
	c.sameSet(cells, [...new Set(lines.flatMap((l) => l.stack))], 'table names intact');
	c.equal(await c.page.evaluate(() => document.querySelectorAll('#sc-functions script, #sc-functions img, #sc-functions svg').length), 0, 'no markup from names');
	await api(c, 'view', 'sandwich', HOSTILE_NAMES[0]);
	c.check((await c.page.textContent('#sc-crumbs')).includes(HOSTILE_NAMES[0]), 'crumbs show the name as text');
	const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	c.near(await api(c, 'search', esc(HOSTILE_NAMES[1]), { ignoreCase: false }),
		F.matchedCount(lines, new RegExp(esc(HOSTILE_NAMES[1]))) / F.total(lines), 1e-12, 'search a hostile name');
	await api(c, 'view', 'flame');
	await api(c, 'zoomTo', HOSTILE_NAMES[3]);
	c.equal(await c.page.evaluate(() => window.__pwned), undefined, 'still no script');
	const title = spawnSync(SCORCH, ['flamegraph', '--title', '</title><script>window.__pwned=9</script>', '-o',
		path.join(WORK, 't.html'), path.join(WORK, 'g1.folded')]);
	c.equal(title.status, 0, 'hostile title');
	await open(c, path.join(WORK, 't.html'));
	c.equal(await c.page.evaluate(() => window.__pwned), undefined, 'title stays text');
	c.equal(await c.page.textContent('#sc-title'), '</title><script>window.__pwned=9</script>', 'title shown');
});

test('dark mode, palettes as the SVG', async (c) => {
	await open(c, file('main', FOLDED));
	const light = await c.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
	await api(c, 'dark', true);
	const dark = await c.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
	c.check(light !== dark, `background changes (${light} -> ${dark})`);
	/* frame fills are the SVG's for the same options */
	for (const args of [[], ['--colors', 'java'], ['--hash', '--colors', 'aqua']]) {
		const r = spawnSync(SCORCH, ['flamegraph', ...args, path.join(WORK, 'g1.folded')], { encoding: 'utf8' });
		const svgFill = new Map();
		for (const m of r.stdout.matchAll(/<title>([^<(]+) \([^<]*<\/title><rect [^>]*fill="([^"]+)"/g)) svgFill.set(m[1], m[2]);
		await open(c, file('pal' + args.join(''), FOLDED, args));
		for (const f of await api(c, 'frames'))
			if (svgFill.has(f.name)) c.equal(f.fill, svgFill.get(f.name), `${args.join(' ')} fill of ${f.name}`);
	}
	if (process.env.SCREENSHOT) {
		const d = process.env.SCREENSHOT;
		await open(c, file('main', FOLDED));
		await c.page.screenshot({ path: path.join(d, 'html-light.png') });
		await api(c, 'dark', true);
		await api(c, 'zoomTo', 'run');
		await api(c, 'search', 'write');
		await c.page.screenshot({ path: path.join(d, 'html-zoomed-dark.png') });
	}
});

(async () => {
	if (!SCORCH || !fs.existsSync(SCORCH)) {
		console.log(`not ok - browser/html (no scorch binary at ${SCORCH || '$SCORCH'})`);
		process.exitCode = 1;
		return;
	}
	html(FOLDED);
	cache.main = path.join(WORK, 'g1.html');
	const failed = await runAll(tests);
	fs.rmSync(WORK, { recursive: true, force: true });
	process.exitCode = failed ? 1 : 0;
})().catch((e) => {
	console.log('not ok - browser/html');
	console.log(String(e.stack || e).split('\n').map((l) => '#   ' + l).join('\n'));
	process.exitCode = 1;
});
