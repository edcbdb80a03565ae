'use strict';
/*
 * speedscope output (`scorch flamegraph -o FILE.speedscope.json`) opened in
 * speedscope itself (the npm package's built web app, loaded from file://
 * in headless chromium, the file given to its own "Browse" input). The
 * checks read speedscope's Sandwich table (DOM text: total, self, name per
 * frame) and compare it with totals computed here from the folded input.
 *
 *   node speedscope.js             (tests/browser/run sets SCORCH and TMPDIR)
 *   SCREENSHOT=dir node speedscope.js   also saves dir/speedscope.png
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { pathToFileURL } = require('url');
const { runAll } = require('./lib/harness');
const F = require('./lib/folded');

const WORK = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'speedscope-'));
const SCORCH = process.env.SCORCH;
const APP = path.join(__dirname, 'node_modules/speedscope/dist/release/index.html');

/* Hostile names: markup, quotes, a backslash, UTF-8, a JSON escape look-alike;
 * "rec" calls itself (speedscope counts it once per stack in totals). */
const FOLDED = [
	'proc;main;compute;kernel_a 30',
	'proc;main;compute;kernel_b 15',
	'proc;main;compute 5',
	'proc;main;<script>alert(1)</script> 4',
	'proc;main;say "hi" \\ \\u0041 7',
	'proc;main;caf\u00e9 \u2603 3',
	'proc;main;rec;rec;rec 6',
	'proc 2',
	'other;x 9',
	''
].join('\n');

/* name -> { total, self }, computed from the folded lines. */
function expectedTable(lines) {
	const t = new Map();
	const get = (n) => t.get(n) || (t.set(n, { total: 0, self: 0 }), t.get(n));
	for (const { stack, count } of lines) {
		for (const n of new Set(stack)) get(n).total += count;
		get(stack[stack.length - 1]).self += count;
	}
	return t;
}

function write(name, folded, args = []) {
	const input = path.join(WORK, name + '.folded');
	const out = path.join(WORK, name + '.speedscope.json');
	fs.writeFileSync(input, folded);
	const r = spawnSync(SCORCH, ['flamegraph', ...args, input, '-o', out], { encoding: 'utf8' });
	if (r.status !== 0) throw new Error(`scorch exited ${r.status}: ${r.stderr}`);
	return out;
}

async function openInSpeedscope(c, file) {
	await c.page.goto(pathToFileURL(APP).href);
	await c.page.setInputFiles('input[type=file]', file);
	await c.page.getByText('Sandwich').first().waitFor();
}

/* The Sandwich table's rows: [{ name, total, self }]. */
async function sandwich(c) {
	await c.page.getByText('Sandwich').first().click();
	await c.page.getByText('Symbol Name').first().waitFor();
	/* the header is drawn before the rows: wait for a row (on a loaded
	 * machine the table was read empty) */
	await c.page.waitForFunction(() =>
		[...document.querySelectorAll('tr')].some((tr) => {
			const td = tr.querySelectorAll('td');
			return td.length >= 3 && td[0].textContent.includes('%');
		}));
	return c.page.evaluate(() => {
		const rows = [];
		for (const tr of document.querySelectorAll('tr')) {
			const td = [...tr.querySelectorAll('td')].map((e) => e.textContent);
			/* Sandwich rows say "N (P%)"; with several profiles the
			 * profile selector is a table too (#, name, total) */
			if (td.length >= 3 && td[0].includes('%')) rows.push({ total: parseFloat(td[0]), self: parseFloat(td[1]), name: td[2] });
		}
		return rows;
	});
}

const tests = [];
function test(name, fn) {
	tests.push({ name: 'speedscope/' + name, fn });
}

test('file is imported, every frame listed with its total and self', async (c) => {
	const lines = F.parseFolded(FOLDED);
	const file = write('main', FOLDED);
	const json = JSON.parse(fs.readFileSync(file, 'utf8'));
	c.equal(json.profiles.length, 1, 'one profile');
	c.equal(json.profiles[0].type, 'sampled', 'a sampled profile');
	c.equal(json.profiles[0].samples.length, lines.length, 'one sample per distinct stack');
	c.equal(new Set(json.shared.frames.map((f) => f.name)).size, json.shared.frames.length, 'one frame per name');
	await openInSpeedscope(c, file);
	const rows = await sandwich(c);
	const want = expectedTable(lines);
	c.sameSet(rows.map((r) => r.name), [...want.keys()], 'frame names in the Sandwich table');
	for (const r of rows) {
		c.equal(r.total, want.get(r.name).total, `total of ${r.name}`);
		c.equal(r.self, want.get(r.name).self, `self of ${r.name}`);
	}
	if (process.env.SCREENSHOT) {
		await c.page.getByText('Left Heavy').first().click();
		await c.page.screenshot({ path: path.join(process.env.SCREENSHOT, 'speedscope.png') });
	}
});

test('--include and --reverse shape what speedscope shows', async (c) => {
	const file = write('inc', FOLDED, ['--include', 'compute', '--reverse']);
	await openInSpeedscope(c, file);
	const rows = await sandwich(c);
	const reversed = F.parseFolded(FOLDED)
		.filter((l) => l.stack.includes('compute'))
		.map((l) => ({ stack: [...l.stack].reverse(), count: l.count }));
	const want = expectedTable(reversed);
	c.sameSet(rows.map((r) => r.name), [...want.keys()], 'frame names');
	for (const r of rows) c.equal(r.self, want.get(r.name).self, `self of ${r.name} (the reversed leaf is the root)`);
});

/* Two counts per line (scorch diff's output): "before" and "after" are two
 * profiles over one frame table; speedscope opens "after" (the graph's
 * widths follow it) and its 'p' key shows "before". */
const DIFF = ['proc;main;grew 2 9', 'proc;main;shrank 8 1', 'proc;main;gone 5 0', 'proc;main;new 0 4', 'proc 1 1', ''].join('\n');

test('a differential profile is two profiles, before and after', async (c) => {
	const cols = DIFF.trim().split('\n').map((l) => {
		const f = l.split(' ');
		return { stack: f[0].split(';'), before: Number(f[1]), after: Number(f[2]) };
	});
	const column = (k) => cols.filter((l) => l[k] > 0).map((l) => ({ stack: l.stack, count: l[k] }));
	const file = write('diff', DIFF);
	const json = JSON.parse(fs.readFileSync(file, 'utf8'));
	c.equal(json.profiles.map((p) => p.name).join(','), 'before,after', 'two profiles');
	c.equal(json.activeProfileIndex, 1, '"after" is active');
	await openInSpeedscope(c, file);
	for (const [k, key] of [['after', null], ['before', 'p']]) {
		if (key) await c.page.keyboard.press(key);
		const rows = await sandwich(c);
		const want = expectedTable(column(k));
		c.sameSet(rows.map((r) => r.name), [...want.keys()], `${k}: frame names`);
		for (const r of rows) {
			const w = want.get(r.name);
			c.equal(r.total, w && w.total, `${k}: total of ${r.name}`);
			c.equal(r.self, w && w.self, `${k}: self of ${r.name}`);
		}
	}
});

(async () => {
	if (!SCORCH || !fs.existsSync(SCORCH)) {
		console.log(`not ok - browser/speedscope (no scorch binary at ${SCORCH || '$SCORCH'})`);
		process.exitCode = 1;
		return;
	}
	if (!fs.existsSync(APP)) {
		console.log('not ok - browser/speedscope (the speedscope npm package is not installed: scripts/setup installs it)');
		process.exitCode = 1;
		return;
	}
	const failed = await runAll(tests, { timeout: 20000 });
	fs.rmSync(WORK, { recursive: true, force: true });
	process.exitCode = failed ? 1 : 0;
})().catch((e) => {
	console.log('not ok - browser/speedscope');
	console.log(String(e.stack || e).split('\n').map((l) => '#   ' + l).join('\n'));
	process.exitCode = 1;
});
