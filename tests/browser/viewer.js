'use strict';
/*
 * Browser tests of the flame-graph viewer: real SVGs (see lib/svgsource.js)
 * loaded from file:// in headless chromium. Every expectation is computed
 * from the folded input with lib/folded.js, not read back from the viewer.
 *
 *   node viewer.js            (tests/browser/run sets SCORCH and TMPDIR)
 *   SCREENSHOT=dir node viewer.js   also saves a zoomed view as dir/zoomed.png
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { runAll } = require('./lib/harness');
const { SvgSource } = require('./lib/svgsource');
const F = require('./lib/folded');

const WORK = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'viewer-'));
const src = new SvgSource(WORK);

/* Total 1000, so a frame's percentage is count/10. "write" is drawn twice
 * (under io and log); "Compute_Fast" differs from "compute" only by case;
 * one name is long enough to need cutting; one uses markup characters. */
const FOLDED = [
	'main;init;load_config 40',
	'main;init;parse_args 10',
	'main;run;compute;kernel_a 300',
	'main;run;compute;kernel_b 150',
	'main;run;compute 50',
	'main;run;io;read 100',
	'main;run;io;write 60',
	'main;run;log;write 20',
	'main;run;std::vector<int>::push_back_and_a_very_long_tail_of_template_arguments 30',
	'main;cleanup 30',
	'idle 170',
	'Worker;Compute_Fast 40',
	''
].join('\n');
const LINES = F.parseFolded(FOLDED);
const TOTAL = F.total(LINES);
const LONG = 'std::vector<int>::push_back_and_a_very_long_tail_of_template_arguments';

const HOSTILE_NAMES = [
	'<script>window.__pwned=1</script>',
	'" onload="window.__pwned=2" x="',
	"' onmouseover='window.__pwned=3",
	']]><script>window.__pwned=4</script>',
	'<svg onload="alert(5)"/>',
	'<img src=x onerror="alert(6)">',
	'&amp &#60 &lt "double" \'single\' (a, b)',
	'javascript:alert(7)',
	'<![CDATA[ x ]]>'
];
const HOSTILE = HOSTILE_NAMES.map((n, i) => `${n};${n}child${i} ${10 + i}`).join('\n') + '\n';

const svgCache = {};
function svg(name, folded, args = []) {
	const key = name + '\0' + args.join('\0');
	if (!svgCache[key]) svgCache[key] = src.make(name, folded, args);
	return svgCache[key];
}
function url(file, query = '') {
	return pathToFileURL(file).href + query;
}

/* Parse a tooltip independently of the viewer. */
function parseTip(t) {
	const m = /^([\s\S]*) \(([\d,]+) [^,]*, ([\d.]+)%(?:; [+-]?[\d.]+%)?\)$/.exec(t);
	return m ? { name: m[1], count: Number(m[2].replace(/,/g, '')), pct: m[3] } : { name: t, count: NaN };
}

async function frames(page) {
	const list = await page.evaluate(() => [...document.getElementById('frames').children].map((g) => {
		const r = g.querySelector('rect'), t = g.querySelector('text'), ti = g.querySelector('title');
		const cs = getComputedStyle(g);
		return {
			tag: g.localName, title: ti ? ti.textContent : '', cls: g.getAttribute('class') || '',
			x: r.getAttribute('x'), w: r.getAttribute('width'), y: r.getAttribute('y'), fill: r.getAttribute('fill'),
			tx: t ? t.getAttribute('x') : null, label: t ? t.textContent : '',
			labelLen: t && t.textContent ? t.getComputedTextLength() : 0,
			display: cs.display, opacity: Number(cs.opacity)
		};
	}));
	list.forEach((f, i) => Object.assign(f, parseTip(f.title), { index: i }));
	return list;
}

function byName(list, name) {
	const f = list.filter((x) => x.name === name);
	if (f.length !== 1) throw new Error(`${f.length} frames named ${name}`);
	return f[0];
}

async function frameEl(page, name) {
	const list = await frames(page);
	return page.locator('#frames > *').nth(byName(list, name).index);
}

async function text(page, id) {
	return page.evaluate((i) => document.getElementById(i).textContent, id);
}

async function open(c, file, query) {
	await c.page.goto(url(file, query));
	await c.page.waitForFunction(() => window.scorchViewer && window.scorchViewer.viewer());
}

async function search(c, term, key = 'Control+f') {
	c.answerPrompt(term);
	await c.page.keyboard.press(key);
	await c.page.waitForFunction((t) => document.getElementById('search').textContent === 'Reset Search' &&
		new URLSearchParams(location.search).get('s') === t, term);
}

/* The names (by path) of the frames under zoom prefix p, of its ancestors,
 * and of the rest. */
function expectedZoom(p) {
	const paths = F.framePaths(LINES);
	const shown = [], parents = ['all'], hidden = [];
	for (const q of paths) {
		const name = q[q.length - 1];
		if (F.hasPrefix(q, p)) shown.push(name);
		else if (F.hasPrefix(p, q)) parents.push(name);
		else hidden.push(name);
	}
	return { shown, parents, hidden };
}

const pct = (a, b) => (100 * a / b).toFixed(2);
const mpct = (a, b) => (a === b ? '100' : (100 * a / b).toFixed(1));

const tests = [];
function test(name, fn, skip) {
	tests.push({ name, fn, skip });
}

test('frames match the folded input', async (c) => {
	await open(c, svg('main', FOLDED));
	const list = await frames(c.page);
	const want = F.framePaths(LINES).map((p) => `${p[p.length - 1]}=${F.countOf(LINES, p)}`);
	want.push(`all=${TOTAL}`);
	c.sameSet(list.map((f) => `${f.name}=${f.count}`), want, 'frame names and counts');
	for (const id of ['title', 'details', 'unzoom', 'search', 'ignorecase', 'matched'])
		c.check(await c.page.evaluate((i) => !!document.getElementById(i), id), `#${id} exists`);
	c.equal(await c.page.evaluate(() => document.documentElement.getAttribute('onload')), 'init(evt)', 'onload');
	c.equal(await c.page.evaluate(() => getComputedStyle(document.getElementById('unzoom')).display), 'none',
		'Reset Zoom hidden before a zoom');
});

test('the SVG embeds the current viewer source', async (c) => {
	const file = svg('main', FOLDED);
	const body = fs.readFileSync(file, 'utf8');
	const viewer = fs.readFileSync(process.env.VIEWER_JS ||
		path.join(__dirname, '..', '..', 'src', 'render', 'viewer', 'flamegraph.js'), 'utf8');
	const m = /<script type="text\/ecmascript">\s*<!\[CDATA\[\s*var scorchConfig = (\{[^\n]*\});\n([\s\S]*?)\s*\]\]>\s*<\/script>/.exec(body);
	c.check(m, 'a CDATA script with the scorchConfig line');
	c.equal(m[2].trim(), viewer.trim(), 'embedded viewer (a stale build?)');
	const cfg = JSON.parse(m[1]);
	c.sameSet(Object.keys(cfg), ['nametype', 'fontsize', 'fontwidth', 'xpad', 'inverted', 'searchcolor', 'countname',
		'factor', 'total', 'differential', 'truncateRight'], 'scorchConfig keys');
	c.equal(cfg.total, TOTAL, 'scorchConfig.total');
	await open(c, file);
});

test('hovering a frame shows its details line', async (c) => {
	await open(c, svg('main', FOLDED));
	await (await frameEl(c.page, 'compute')).hover();
	c.equal(await text(c.page, 'details'), `Function: compute (500 samples, ${pct(500, TOTAL)}%)`, 'details on hover');
	const tip = await (await frameEl(c.page, 'compute')).locator('title').textContent();
	c.equal(tip, `compute (500 samples, ${pct(500, TOTAL)}%)`, 'tooltip');
	await c.page.mouse.move(600, 5);
	c.equal(await text(c.page, 'details'), ' ', 'details cleared on mouseout');
});

test('clicking a frame zooms it', async (c) => {
	await open(c, svg('main', FOLDED));
	const before = await frames(c.page);
	const run = byName(before, 'run');
	await (await frameEl(c.page, 'run')).click();
	const zc = F.countOf(LINES, ['main', 'run']);
	/* the pointer has not left run: its details line is redrawn for the zoom */
	c.equal(await text(c.page, 'details'),
		`Function: run (${zc} samples, ${pct(zc, TOTAL)}% of all, 100.00% of zoomed)`, 'details right after the click');
	const after = await frames(c.page);
	const z = byName(after, 'run');
	c.near(Number(z.x), 10, 0.01, 'zoomed frame x');
	c.near(Number(z.w), 1180, 0.01, 'zoomed frame width');
	const exp = expectedZoom(['main', 'run']);
	c.sameSet(after.filter((f) => f.cls.split(' ').includes('parent')).map((f) => f.name), exp.parents, 'ancestors get class parent');
	c.sameSet(after.filter((f) => f.display === 'none').map((f) => f.name), exp.hidden, 'non-descendants hidden');
	c.sameSet(after.filter((f) => f.display !== 'none' && !f.cls.includes('parent')).map((f) => f.name), exp.shown, 'subtree shown');
	for (const f of after.filter((x) => x.cls.includes('parent'))) {
		c.near(Number(f.w), 1180, 0.01, `ancestor ${f.name} spans the width`);
		c.near(f.opacity, 0.5, 0.01, `ancestor ${f.name} dimmed`);
	}
	for (const f of after.filter((x) => x.display !== 'none' && !x.cls.includes('parent')))
		c.near(Number(f.w), f.count / zc * 1180, 0.5, `${f.name} rescaled`);
	/* both percentages on hover, the zoomed frame itself is 100% of zoomed */
	await (await frameEl(c.page, 'compute')).hover();
	c.equal(await text(c.page, 'details'),
		`Function: compute (500 samples, ${pct(500, TOTAL)}% of all, ${pct(500, zc)}% of zoomed)`, 'details when zoomed');
	await (await frameEl(c.page, 'run')).hover();
	c.equal(await text(c.page, 'details'),
		`Function: run (${zc} samples, ${pct(zc, TOTAL)}% of all, 100.00% of zoomed)`, 'zoomed frame details');
	const q = new URL(c.page.url()).searchParams;
	c.equal(q.get('x'), run.x, 'x parameter is the original x');
	c.equal(q.get('y'), run.y, 'y parameter');
	c.check(await c.page.evaluate(() => getComputedStyle(document.getElementById('unzoom')).display) !== 'none',
		'Reset Zoom shown');
	if (process.env.SCREENSHOT) await c.page.screenshot({ path: path.join(process.env.SCREENSHOT, 'zoomed.png') });
});

test('clicking an ancestor zooms out to it', async (c) => {
	await open(c, svg('main', FOLDED));
	await (await frameEl(c.page, 'compute')).click();
	c.check(byName(await frames(c.page), 'run').cls.includes('parent'), 'run is an ancestor of compute');
	await (await frameEl(c.page, 'run')).click();
	const after = await frames(c.page);
	c.near(Number(byName(after, 'run').w), 1180, 0.01, 'run spans the width');
	c.equal(byName(after, 'run').cls.includes('parent'), false, 'run no longer a parent');
	c.near(Number(byName(after, 'compute').w), 500 / F.countOf(LINES, ['main', 'run']) * 1180, 0.5, 'compute rescaled to run');
	c.equal(byName(after, 'read').display, 'inline', 'siblings of compute visible again');
	/* the root resets the zoom */
	await (await frameEl(c.page, 'all')).click();
	c.equal((await frames(c.page)).filter((f) => f.cls).length, 0, 'clicking all unzooms');
	c.equal(new URL(c.page.url()).searchParams.get('x'), null, 'x parameter removed');
});

test('Reset Zoom restores the original geometry', async (c) => {
	await open(c, svg('main', FOLDED));
	const before = await frames(c.page);
	await (await frameEl(c.page, 'kernel_b')).click();
	await c.page.click('#unzoom');
	const after = await frames(c.page);
	const geo = (l) => l.map((f) => [f.title, f.x, f.w, f.y, f.tx, f.label, f.cls, f.fill].join('|'));
	c.sameSet(geo(after), geo(before), 'geometry, labels and classes after reset');
	c.equal(await c.page.evaluate(() => getComputedStyle(document.getElementById('unzoom')).display), 'none',
		'Reset Zoom hidden again');
	c.equal(new URL(c.page.url()).search, '', 'no parameters left');
});

test('search highlights the matching frames and the matched share', async (c) => {
	await open(c, svg('main', FOLDED));
	const before = await frames(c.page);
	const color = await c.page.evaluate(() => scorchConfig.searchcolor);
	/* run contains compute: their samples count once */
	const re = /^(run|compute)$/;
	await search(c, re.source);
	c.check(/regular expression/i.test(c.dialogs[0].message), 'prompt explains the syntax');
	let list = await frames(c.page);
	const want = F.framePaths(LINES).filter((p) => re.test(p[p.length - 1])).map((p) => p[p.length - 1]);
	c.sameSet(list.filter((f) => f.fill === color).map((f) => f.name), want, 'highlighted frames');
	c.equal(await text(c.page, 'matched'), `Matched: ${mpct(F.matchedCount(LINES, re), TOTAL)}%`, 'matched share');
	/* the button resets; F3 opens the prompt too */
	await c.page.click('#search');
	list = await frames(c.page);
	c.sameSet(list.map((f) => f.fill), before.map((f) => f.fill), 'fills restored after reset');
	c.equal(await text(c.page, 'search'), 'Search', 'button label back');
	await search(c, 'write', 'F3');
	list = await frames(c.page);
	c.equal(list.filter((f) => f.fill === color).length, 2, 'write is drawn twice');
	c.equal(await text(c.page, 'matched'), `Matched: ${mpct(F.matchedCount(LINES, /write/), TOTAL)}%`, 'matched share of write');
	/* a cancelled prompt keeps the search */
	c.answerPrompt(null);
	const seen = c.dialogs.length;
	await c.page.keyboard.press('Control+f');
	for (let i = 0; i < 200 && c.dialogs.length === seen; i++) await c.page.waitForTimeout(10);
	c.equal(c.dialogs[c.dialogs.length - 1].defaultValue, 'write', 'prompt offers the current term');
	c.equal((await frames(c.page)).filter((f) => f.fill === color).length, 2, 'cancel keeps the search');
	await c.page.keyboard.press('Escape');
	list = await frames(c.page);
	c.sameSet(list.map((f) => f.fill), before.map((f) => f.fill), 'Escape clears the search');
	c.equal(await text(c.page, 'matched'), ' ', 'matched cleared');
	c.equal(new URL(c.page.url()).searchParams.get('s'), null, 's parameter removed');
});

test('search while zoomed gives shares of all and of the zoomed frame', async (c) => {
	await open(c, svg('main', FOLDED));
	await (await frameEl(c.page, 'run')).click();
	const zc = F.countOf(LINES, ['main', 'run']);
	await search(c, 'write');
	c.equal(await text(c.page, 'matched'),
		`Matched: ${mpct(F.matchedCount(LINES, /write/), TOTAL)}% of all, ${mpct(F.matchedCount(LINES, /write/, ['main', 'run']), zc)}% of zoomed`,
		'matched shares');
	/* an ancestor that matches covers the whole zoomed frame */
	c.answerPrompt('^main$');
	await c.page.keyboard.press('Control+f');
	await c.page.waitForFunction(() => /main/.test(new URLSearchParams(location.search).get('s') || ''));
	c.equal(await text(c.page, 'matched'),
		`Matched: ${mpct(F.matchedCount(LINES, /^main$/), TOTAL)}% of all, 100% of zoomed`, 'ancestor match');
	/* zooming elsewhere recomputes */
	await c.page.click('#unzoom');
	c.equal(await text(c.page, 'matched'), `Matched: ${mpct(F.matchedCount(LINES, /^main$/), TOTAL)}%`, 'after reset');
});

test('the case toggle changes the matches', async (c) => {
	await open(c, svg('main', FOLDED));
	const color = await c.page.evaluate(() => scorchConfig.searchcolor);
	await search(c, 'compute');
	const hl = async () => (await frames(c.page)).filter((f) => f.fill === color).map((f) => f.name);
	c.sameSet(await hl(), ['compute'], 'case-sensitive');
	c.equal(await text(c.page, 'matched'), `Matched: ${mpct(F.matchedCount(LINES, /compute/), TOTAL)}%`, 'case-sensitive share');
	await c.page.keyboard.press('Control+i');
	c.sameSet(await hl(), ['compute', 'Compute_Fast'], 'ignoring case');
	c.equal(await text(c.page, 'matched'), `Matched: ${mpct(F.matchedCount(LINES, /compute/i), TOTAL)}%`, 'ignoring-case share');
	c.check((await c.page.getAttribute('#ignorecase', 'class') || '').includes('show'), 'ic button lit');
	c.equal(new URL(c.page.url()).searchParams.get('i'), '1', 'i parameter');
	await c.page.click('#ignorecase');
	c.sameSet(await hl(), ['compute'], 'case-sensitive again');
	c.equal(new URL(c.page.url()).searchParams.get('i'), null, 'i parameter removed');
});

test('Shift-click searches every occurrence of a function', async (c) => {
	await open(c, svg('main', FOLDED));
	const color = await c.page.evaluate(() => scorchConfig.searchcolor);
	const list = await frames(c.page);
	const w = list.filter((f) => f.name === 'write');
	c.equal(w.length, 2, 'write drawn twice');
	await c.page.locator('#frames > *').nth(w[1].index).click({ modifiers: ['Shift'] });
	const after = await frames(c.page);
	c.sameSet(after.filter((f) => f.fill === color).map((f) => f.name), ['write', 'write'], 'both highlighted');
	c.equal(await text(c.page, 'matched'), `Matched: ${mpct(F.matchedCount(LINES, /^write$/), TOTAL)}%`, 'share of write');
	c.equal(new URL(c.page.url()).searchParams.get('s'), '^write$', 's parameter');
	c.equal(after.filter((f) => f.cls).length, 0, 'no zoom');
});

test('the details line keeps clear of the matched text', async (c) => {
	const name = 'very_long_function_name_'.repeat(12);
	const folded = `main;${name} 5\nmain;other 5\n`;
	await open(c, svg('longname', folded));
	await search(c, 'other');
	await (await frameEl(c.page, name)).hover();
	const d = await text(c.page, 'details');
	c.check(d.endsWith('..') && `Function: ${name}`.startsWith(d.slice(0, -2)), `details cut: "${d}"`);
	const box = await c.page.evaluate(() => {
		const b = (id) => {
			const r = document.getElementById(id).getBBox();
			return { x: r.x, width: r.width };
		};
		return { details: b('details'), matched: b('matched') };
	});
	c.check(box.details.x + box.details.width < box.matched.x, `no overlap: ${JSON.stringify(box)}`);
});

test('an invalid regex shows an error instead of throwing', async (c) => {
	await open(c, svg('main', FOLDED));
	const before = await frames(c.page);
	await search(c, '(unclosed');
	c.check(/^Invalid regex: /.test(await text(c.page, 'matched')), 'error in the matched field');
	c.sameSet((await frames(c.page)).map((f) => f.fill), before.map((f) => f.fill), 'nothing highlighted');
	await c.page.keyboard.press('Escape');
	c.equal(await text(c.page, 'matched'), ' ', 'Escape clears the error');
});

test('URL parameters restore zoom, search and case on load', async (c) => {
	const file = svg('main', FOLDED);
	await open(c, file);
	const run = byName(await frames(c.page), 'run');
	const q = `?x=${encodeURIComponent(run.x)}&y=${encodeURIComponent(run.y)}&s=${encodeURIComponent('COMPUTE|write')}&i=1`;
	await open(c, file, q);
	const list = await frames(c.page);
	c.near(Number(byName(list, 'run').w), 1180, 0.01, 'zoomed on run');
	c.check(byName(list, 'main').cls.includes('parent'), 'main is a parent');
	const zc = F.countOf(LINES, ['main', 'run']), re = /COMPUTE|write/i;
	c.equal(await text(c.page, 'matched'),
		`Matched: ${mpct(F.matchedCount(LINES, re), TOTAL)}% of all, ${mpct(F.matchedCount(LINES, re, ['main', 'run']), zc)}% of zoomed`,
		'search restored, ignoring case');
	c.equal(new URL(c.page.url()).search, q, 'the address is left as given');
	/* a stale address (no frame there, a broken pattern) is harmless */
	await open(c, file, '?x=3.3&y=-7&s=%28&junk=%E0%A4%A');
	c.equal((await frames(c.page)).filter((f) => f.cls).length, 0, 'no zoom for an unknown frame');
	c.check(/^Invalid regex: /.test(await text(c.page, 'matched')), 'broken pattern reported');
	/* a view made by clicking can be reopened from its address */
	await open(c, file);
	await (await frameEl(c.page, 'io')).click();
	await search(c, 'read');
	const shared = c.page.url();
	const want = await frames(c.page);
	await open(c, file);
	await c.page.goto(shared);
	await c.page.waitForFunction(() => window.scorchViewer && window.scorchViewer.viewer());
	const got = await frames(c.page);
	const state = (l) => l.map((f) => [f.title, f.x, f.w, f.cls, f.fill, f.label].join('|'));
	c.sameSet(state(got), state(want), 'shared view reopens identically');
});

test('labels are refitted to the zoomed widths', async (c) => {
	const file = svg('main', FOLDED);
	await open(c, file);
	const truncRight = await c.page.evaluate(() => !!scorchConfig.truncateRight);
	await (await frameEl(c.page, 'run')).click();
	const list = (await frames(c.page)).filter((f) => f.display !== 'none');
	for (const f of list) {
		if (!f.label) continue;
		c.check(f.labelLen <= Number(f.w) - 3 + 0.5, `label of ${f.name} (${f.labelLen.toFixed(1)} px) fits in ${f.w} px`);
		const ok = f.label === f.name || (truncRight ? f.label.endsWith('..') && f.name.startsWith(f.label.slice(0, -2))
			: f.label.startsWith('..') && f.name.endsWith(f.label.slice(2)));
		c.check(ok, `label "${f.label}" is "${f.name}" or a ${truncRight ? 'head' : 'tail'} of it with ..`);
	}
	const long = byName(list, LONG);
	c.check(long.label.length > 4 && long.label !== LONG, `the long name is cut, not dropped: "${long.label}"`);
	c.check(byName(list, 'run').label === 'run' && byName(list, 'all').label === 'all', 'wide frames show the whole name');
});

test('label widths come from the font: canvas metrics equal the SVG text layout', async (c) => {
	await open(c, svg('main', FOLDED));
	const r = await c.page.evaluate(() => {
		const el = document.querySelector('#frames text');
		const fast = scorchViewer.makeMeasure(document, document.documentElement, el, false);
		const slow = scorchViewer.makeMeasure(document, document.documentElement, el, true);
		const words = ['kernel_a', 'std::vector<int>::push_back', 'WWWWWWWW', 'iiiiiiii', 'Function: x (1,234 samples, 12.34%)', '..ab'];
		return words.map((w) => [w, fast(w), slow(w)]);
	});
	for (const [w, fast, slow] of r) c.near(fast, slow, 0.5, `width of "${w}"`);
	c.check(r[2][1] > 2 * r[3][1], 'W is wider than i: real glyph widths, not an average');
});

for (const [opt, right] of [['--truncate-text-right', true], ['--truncate-text-left', false]]) {
	test(`${opt} cuts long names at the ${right ? 'end' : 'start'}`, async (c) => {
		await open(c, svg('main', FOLDED, [opt]));
		c.equal(await c.page.evaluate(() => scorchConfig.truncateRight), right, 'scorchConfig.truncateRight');
		await (await frameEl(c.page, 'run')).click();
		const long = byName(await frames(c.page), LONG);
		c.check(long.label.length > 4, `label kept: "${long.label}"`);
		if (right) c.check(long.label.endsWith('..') && LONG.startsWith(long.label.slice(0, -2)), `head kept: "${long.label}"`);
		else c.check(long.label.startsWith('..') && LONG.endsWith(long.label.slice(2)), `tail kept: "${long.label}"`);
	}, src.supports(opt) ? undefined : `the SVG source lacks ${opt}`);
}

test('icicle layout (--inverted) zooms the same way', async (c) => {
	await open(c, svg('main', FOLDED, ['--inverted']));
	c.equal(await c.page.evaluate(() => scorchConfig.inverted), true, 'scorchConfig.inverted');
	let list = await frames(c.page);
	c.check(Number(byName(list, 'all').y) < Number(byName(list, 'main').y), 'root row on top');
	await (await frameEl(c.page, 'compute')).click();
	list = await frames(c.page);
	const exp = expectedZoom(['main', 'run', 'compute']);
	c.sameSet(list.filter((f) => f.cls.includes('parent')).map((f) => f.name), exp.parents, 'ancestors above are parents');
	c.sameSet(list.filter((f) => f.display === 'none').map((f) => f.name), exp.hidden, 'the rest hidden');
	c.near(Number(byName(list, 'compute').w), 1180, 0.01, 'compute spans the width');
	/* compute's own 50 samples come first: "compute 50" sorts before "compute;kernel_a" */
	c.near(Number(byName(list, 'kernel_a').x), 10 + 50 / 500 * 1180, 0.5, 'kernel_a after compute\'s own samples');
	c.near(Number(byName(list, 'kernel_a').w), 300 / 500 * 1180, 0.5, 'kernel_a rescaled');
	c.near(Number(byName(list, 'kernel_b').x), 10 + 350 / 500 * 1180, 0.5, 'kernel_b after kernel_a');
	await (await frameEl(c.page, 'kernel_a')).hover();
	c.equal(await text(c.page, 'details'),
		`Function: kernel_a (300 samples, ${pct(300, TOTAL)}% of all, ${pct(300, 500)}% of zoomed)`, 'details');
});

test('hostile names stay text: no script runs, no errors', async (c) => {
	const file = svg('hostile', HOSTILE);
	/* a hostile search term in the address, too */
	await open(c, file, '?s=' + encodeURIComponent('<script>alert(8)</script>|]]>'));
	const list = await frames(c.page);
	const total = F.total(F.parseFolded(HOSTILE));
	const want = [];
	HOSTILE_NAMES.forEach((n, i) => want.push(n, `${n}child${i}`));
	c.sameSet(list.filter((f) => f.name !== 'all').map((f) => f.name), want, 'names read back literally');
	for (let i = 0; i < HOSTILE_NAMES.length; i++) {
		const el = page_frame(c, list, HOSTILE_NAMES[i]);
		await el.hover();
		const n = HOSTILE_NAMES[i], cnt = 10 + i;
		c.equal(await text(c.page, 'details'), `Function: ${n} (${cnt} samples, ${pct(cnt, total)}%)`, `details of ${n}`);
		await el.click();
		await page_frame(c, list, `${n}child${i}`).hover();
		c.equal(await text(c.page, 'details'),
			`Function: ${n}child${i} (${cnt} samples, ${pct(cnt, total)}% of all, 100.00% of zoomed)`, `zoomed details of ${n}child${i}`);
		await c.page.click('#unzoom');
	}
	/* Shift-click on a name full of regex and markup characters */
	const odd = HOSTILE_NAMES.findIndex((n) => n.includes('(a, b)'));
	await page_frame(c, list, HOSTILE_NAMES[odd]).click({ modifiers: ['Shift'] });
	c.equal(await text(c.page, 'matched'), `Matched: ${mpct(10 + odd, total)}%`, 'exact search of a hostile name');
	await c.page.keyboard.press('Escape');
	await search(c, '<script>');
	c.equal(await text(c.page, 'matched'), `Matched: ${mpct(F.matchedCount(F.parseFolded(HOSTILE), /<script>/), total)}%`, 'search for markup');
	const pwned = await c.page.evaluate(() => window.__pwned);
	c.equal(pwned, undefined, 'no injected script ran');
	c.equal(c.dialogs.filter((d) => d.type !== 'prompt').length, 0, 'no alert dialog');
	c.equal(await c.page.evaluate(() => document.querySelectorAll('script').length), 1, 'one script element');
	c.equal(await c.page.evaluate(() => document.querySelectorAll('#frames image, #frames img, #frames svg, #frames [onload], #frames [onerror], #frames [onmouseover]').length),
		0, 'no element or handler from names');
});

test('--nameattr links: a plain click follows, Ctrl-click zooms; custom titles are searched', async (c) => {
	const target = path.join(WORK, 'linked.svg');
	fs.writeFileSync(target, '<svg xmlns="http://www.w3.org/2000/svg"><text id="landed" y="20">landed</text></svg>');
	const attrs = path.join(WORK, 'nameattr.tsv');
	fs.writeFileSync(attrs, `compute\thref=${pathToFileURL(target).href}\tclass=linked\n` +
		'idle\ttitle=CPU idle loop (custom tooltip)\tid=idle-frame\n');
	const file = svg('main', FOLDED, ['--nameattr', attrs]);
	await open(c, file);
	let list = await frames(c.page);
	c.equal(byName(list, 'compute').tag, 'a', 'a linked frame is an <a>');
	await (await frameEl(c.page, 'compute')).click({ modifiers: ['Control'] });
	list = await frames(c.page);
	c.near(Number(byName(list, 'compute').w), 1180, 0.01, 'Ctrl-click zooms the link');
	c.equal(c.page.url().startsWith(pathToFileURL(file).href), true, 'still on the graph');
	/* a custom tooltip is what the details line and the search see */
	await c.page.click('#unzoom');
	const idle = c.page.locator('#idle-frame');
	await idle.hover();
	c.equal(await text(c.page, 'details'), 'Function: CPU idle loop (custom tooltip)', 'custom tooltip in details');
	await search(c, 'idle loop');
	c.equal(await text(c.page, 'matched'), `Matched: ${mpct(170, TOTAL)}%`, 'share of a frame with a custom tooltip');
	await c.page.keyboard.press('Escape');
	/* a plain click follows the link */
	await (await frameEl(c.page, 'compute')).click();
	await c.page.waitForURL(pathToFileURL(target).href);
	c.equal(await c.page.textContent('#landed'), 'landed', 'link followed');
}, src.supports('--nameattr') ? undefined : 'the fixture has no --nameattr');

test('differential graph: zoomed details keep the delta', async (c) => {
	/* before after: a;b grows by 20, a;c shrinks by 10 */
	const diff = 'a;b 10 30\na;c 40 30\nd 5 5\n';
	const lines = diff.trim().split('\n').map((l) => l.split(' '));
	const total2 = lines.reduce((s, l) => s + Number(l[2]), 0);
	await open(c, svg('diff', diff));
	c.equal(await c.page.evaluate(() => scorchConfig.differential), true, 'scorchConfig.differential');
	await (await frameEl(c.page, 'a')).click();
	await (await frameEl(c.page, 'b')).hover();
	c.equal(await text(c.page, 'details'),
		`Function: b (30 samples, ${pct(30, total2)}% of all, ${pct(30, 60)}% of zoomed; +${pct(20, total2)}%)`, 'growth');
	await (await frameEl(c.page, 'c')).hover();
	c.equal(await text(c.page, 'details'),
		`Function: c (30 samples, ${pct(30, total2)}% of all, ${pct(30, 60)}% of zoomed; -${pct(10, total2)}%)`, 'reduction');
}, src.real ? undefined : 'the fixture draws no differential graphs');

test('--countname and --factor carry into the zoomed details', async (c) => {
	await open(c, svg('main', FOLDED, ['--countname', 'ms', '--factor', '10']));
	await (await frameEl(c.page, 'run')).click();
	await (await frameEl(c.page, 'compute')).hover();
	const zc = F.countOf(LINES, ['main', 'run']);
	c.equal(await text(c.page, 'details'),
		`Function: compute (5,000 ms, ${pct(500, TOTAL)}% of all, ${pct(500, zc)}% of zoomed)`, 'details');
	await search(c, 'write');
	c.equal(await text(c.page, 'matched'),
		`Matched: ${mpct(F.matchedCount(LINES, /write/), TOTAL)}% of all, ${mpct(F.matchedCount(LINES, /write/, ['main', 'run']), zc)}% of zoomed`,
		'matched shares do not depend on the factor');
}, src.real ? undefined : 'the fixture has no --countname/--factor');

function page_frame(c, list, name) {
	return c.page.locator('#frames > *').nth(byName(list, name).index);
}

(async () => {
	console.log(`# browser tests on ${src.describe()}`);
	const failed = await runAll(tests);
	fs.rmSync(WORK, { recursive: true, force: true });
	process.exitCode = failed ? 1 : 0;
})().catch((e) => {
	console.log('not ok - browser/harness');
	console.log(String(e.stack || e).split('\n').map((l) => '#   ' + l).join('\n'));
	process.exitCode = 1;
});
