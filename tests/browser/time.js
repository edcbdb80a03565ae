'use strict';
/*
 * Browser tests of the HTML viewer's time: the heat map, ranges and two
 * ranges compared, on a fresh capture of tests/workloads/phases (phase a
 * spins, phase b spins half the time; each phase prints when it ran, in
 * CLOCK_MONOTONIC ns) recorded with real perf (-k CLOCK_MONOTONIC, so the
 * phases and the samples share a clock; task-clock with a fixed period of
 * 1 ms). Both HTML routes are opened: report on perf.data, and flamegraph
 * on perf script's text. Every expectation comes from perf script's text
 * (parsed here) and the workload's own phase times, never from scorch.
 *
 *   node time.js      (tests/browser/run sets SCORCH, WORKLOADS and TMPDIR)
 *   SCREENSHOT=dir node time.js   also saves dir/time-{range,compare}.png
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { pathToFileURL } = require('url');
const { runAll } = require('./lib/harness');

const WORK = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'time-'));
const SCORCH = process.env.SCORCH;
const PHASES = path.join(process.env.WORKLOADS || 'build/workloads', 'phases');
const PERIOD = 1000000;

function run(cmd, args, opts = {}) {
	const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60000, maxBuffer: 1 << 28, ...opts });
	if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
	if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${(r.stderr || '').slice(0, 400)}`);
	return r.stdout;
}

/* perf script's default text -> samples { t (ns), period, frames (leaf first) }. */
function parseScript(text) {
	const out = [];
	let cur = null;
	for (const line of text.split('\n')) {
		const m = /^\S.*?\s+\d+(?:\/\d+)?\s+(?:\[\d+\]\s+)?(\d+)\.(\d+):\s+(\d+)\s+\S+:\s*$/.exec(line);
		if (m) {
			const frac = (m[2] + '000000000').slice(0, 9);
			cur = { t: BigInt(m[1]) * 1000000000n + BigInt(frac), period: +m[3], frames: [] };
			out.push(cur);
			continue;
		}
		const f = /^\s+[0-9a-f]+\s+(\S+?)(?:\+0x[0-9a-f]+)?\s+\(/.exec(line);
		if (f && cur) cur.frames.push(f[1]);
		if (!line.trim()) cur = null;
	}
	return out;
}

let fixture = null;
function capture() {
	if (fixture) return fixture;
	const data = path.join(WORK, 'phases.data');
	const times = run('perf', ['record', '-q', '-k', 'CLOCK_MONOTONIC', '-e', 'task-clock', '-c', String(PERIOD), '-g',
		'-o', data, '--', PHASES, '2', '1000']);
	const phases = times.trim().split('\n').map((l) => {
		const [k, s, e, cpu] = l.split(' ');
		return { kind: k, start: BigInt(s), end: BigInt(e), cpu: Number(cpu) };
	});
	const text = run('perf', ['script', '-i', data]);
	fs.writeFileSync(path.join(WORK, 'phases.txt'), text);
	const samples = parseScript(text).filter((s) => s.frames.length);
	const first = samples.reduce((a, s) => (s.t < a ? s.t : a), samples[0].t);
	const origin = first - first % 1000000000n;
	run(SCORCH, ['report', '-q', '-o', path.join(WORK, 'report.html'), data]);
	run(SCORCH, ['flamegraph', '-o', path.join(WORK, 'script.html'), path.join(WORK, 'phases.txt')]);
	fixture = { data, phases, samples, first, origin };
	return fixture;
}
const secs = (ns) => Number(ns) / 1e9;
/* API time (seconds from the first sample) of a CLOCK_MONOTONIC time. */
const apiTime = (fx, ns) => secs(ns - fx.first);
const cellOf = (fx, ns) => Number((ns - fx.origin) / 20000000n);

async function open(c, which, hash = '') {
	await c.page.goto(pathToFileURL(path.join(WORK, which + '.html')).href + hash);
	await c.page.evaluate(() => window.scorch.ready);
}
const api = (c, fn, ...args) => c.page.evaluate(([f, a]) => window.scorch[f](...a), [fn, args]);
/* The share of the widest frame named name in the graph drawn. */
async function share(c, name) {
	const fr = await api(c, 'frames');
	const root = fr.find((f) => f.depth === 0).w;
	return fr.filter((f) => f.name === name).reduce((a, f) => a + f.w, 0) / root;
}
function rgb(s) { return s.match(/\d+/g).map(Number); }
/* what a sample counts: report, 1 (perf.data of perf record -c has no
 * periods; report's usage says so), perf script's text, its period */
const weightOf = (w) => (w === 'report' ? 1 : PERIOD);

const tests = [];
const test = (name, fn) => { for (const w of ['report', 'script']) tests.push({ name: `time/${w}/${name}`, fn: (c) => fn(c, w) }); };

test('heat map: every sample in its 20 ms cell', async (c, w) => {
	const fx = capture();
	await open(c, w);
	const h = await api(c, 'heatmap');
	c.check(h && h.rows === 50, 'a heat map of 50 rows');
	const weight = weightOf(w);
	const want = new Map();
	for (const s of fx.samples) {
		const k = cellOf(fx, s.t);
		want.set(k, (want.get(k) || 0) + weight);
	}
	const lastCell = Math.max(...want.keys());
	c.equal(h.seconds, Math.floor(lastCell / 50) + 1, 'columns: seconds spanned');
	let total = 0, wrong = 0;
	for (let col = 0; col < h.seconds; col++)
		for (let row = 0; row < 50; row++) {
			total += h.counts[col][row];
			if (h.counts[col][row] !== (want.get(col * 50 + row) || 0)) wrong++;
		}
	c.equal(wrong, 0, 'cells that differ from perf script\'s times');
	c.equal(total, fx.samples.length * weight, 'total = the samples');
	c.near(h.first, secs(fx.first - fx.origin), 2e-6, 'first sample\'s offset in its second');
});

test('columns follow the phases, as their own CPU times say', async (c, w) => {
	const fx = capture();
	await open(c, w);
	const h = await api(c, 'heatmap');
	/* per phase kind: heat-map counts per cell inside it, and the CPU the
	 * phases measured they got per unit of their wall time */
	const rate = (kind) => {
		let sum = 0, n = 0, cpu = 0, wall = 0;
		for (const p of fx.phases.filter((q) => q.kind === kind)) {
			for (let cell = cellOf(fx, p.start) + 1; cell < cellOf(fx, p.end); cell++) {
				sum += h.counts[Math.floor(cell / 50)][cell % 50];
				n++;
			}
			cpu += p.cpu;
			wall += Number(p.end - p.start);
		}
		return { cells: sum / n, cpu: cpu / wall };
	};
	const a = rate('a'), b = rate('b');
	c.check(a.cpu > 1.3 * b.cpu, `the workload: phase a got more CPU (${a.cpu}) than b (${b.cpu})`);
	const ratio = (a.cells / b.cells) / (a.cpu / b.cpu);
	c.check(ratio > 0.75 && ratio < 1.33, `heat-map cells a/b ${a.cells}/${b.cells} against CPU a/b ${a.cpu}/${b.cpu}`);
});

test('a range over one phase: its function >= 90%, its share of all', async (c, w) => {
	const fx = capture();
	await open(c, w);
	for (const p of fx.phases.slice(0, 2)) {
		const t0 = apiTime(fx, p.start) + 0.05, t1 = apiTime(fx, p.end) - 0.05;
		const got = await api(c, 'range', t0, t1);
		/* independently: the whole cells the range overlaps */
		const c0 = Math.floor((t0 + secs(fx.first - fx.origin)) * 50 + 1e-3);
		const c1 = Math.ceil((t1 + secs(fx.first - fx.origin)) * 50 - 1e-3);
		const inRange = fx.samples.filter((s) => cellOf(fx, s.t) >= c0 && cellOf(fx, s.t) < c1);
		c.near(got, inRange.length / fx.samples.length, 1e-12, `share of range ${p.kind}`);
		const fn = 'phase_' + p.kind;
		const sh = await share(c, fn);
		c.check(sh >= 0.9, `${fn} is ${(100 * sh).toFixed(1)}% of its phase's range`);
		const own = inRange.filter((s) => s.frames.includes(fn)).length / inRange.length;
		c.near(sh, own, 1e-9, `${fn}'s share as perf script says`);
		const st = await api(c, 'state');
		c.check(st.ranges && st.ranges.length === 1, 'state names the range');
		const table = await c.page.evaluate(() => { window.scorch.view('table'); return document.getElementById('sc-functions').textContent; });
		c.check(table.includes(fn), 'the table shows the range');
		/* the sandwich of fn: its callees' root is fn's samples in the range */
		c.check(await api(c, 'view', 'sandwich', fn), 'sandwich view');
		const callees = await api(c, 'frames', 1);
		const inFn = inRange.filter((s) => s.frames.includes(fn)).length;
		c.near(callees.find((f) => f.depth === 0).w / weightOf(w), inFn, 1e-9, `${fn}'s sandwich counts the range's samples`);
		await api(c, 'view', 'flame');
	}
	c.equal(await api(c, 'range', null), 1, 'range(null)');
	c.equal((await api(c, 'state')).ranges, null, 'cleared');
});

test('two ranges compared: grown red, shrunk blue', async (c, w) => {
	const fx = capture();
	await open(c, w);
	const a = fx.phases[0], b = fx.phases[1];
	/* before: phase a alone; after: phases a and b */
	const r = await api(c, 'compare', [apiTime(fx, a.start) + 0.05, apiTime(fx, a.end) - 0.05],
		[apiTime(fx, a.start) + 0.05, apiTime(fx, b.end) - 0.05]);
	c.check(r && r.after > r.before, 'after is the longer range');
	const fr = await api(c, 'frames');
	const fill = (name) => rgb(fr.filter((f) => f.name === name).sort((x, y) => y.w - x.w)[0].fill);
	const [ar, ag, ab] = fill('phase_a'), [br, bg, bb] = fill('phase_b');
	c.check(br === 255 && bg === bb && bg < 200, `phase_b grew: red (${br},${bg},${bb})`);
	c.check(ab === 255 && ar === ag && ar < 255, `phase_a shrank: blue (${ar},${ag},${ab})`);
	c.check((await c.page.textContent('#sc-range')).startsWith('before '), 'the status says before/after');
	await api(c, 'view', 'table');
	const heads = await c.page.$$eval('#sc-functions th', (t) => t.map((x) => x.getAttribute('data-key')));
	c.check(heads.includes('before') && heads.includes('after') && heads.includes('delta'), `table columns ${heads}`);
	if (process.env.SCREENSHOT && w === 'report') {
		await api(c, 'view', 'flame');
		await c.page.screenshot({ path: path.join(process.env.SCREENSHOT, 'time-compare.png') });
	}
});

test('the URL keeps the ranges', async (c, w) => {
	const fx = capture();
	await open(c, w);
	const p = fx.phases[2];
	await api(c, 'compare', [0.2, 0.8], [apiTime(fx, p.start) + 0.1, apiTime(fx, p.end) - 0.1]);
	const hash = await c.page.evaluate(() => location.hash);
	const before = await api(c, 'frames'), st = await api(c, 'state');
	c.check(/[#&]t=/.test(hash), `hash ${hash}`);
	await c.page.goto('about:blank');
	await open(c, w, hash);
	const st2 = await api(c, 'state');
	c.equal(JSON.stringify(st2.ranges), JSON.stringify(st.ranges), 'ranges restored');
	c.equal(JSON.stringify(await api(c, 'frames')), JSON.stringify(before), 'same frames');
});

test('drag on the heat map selects; shift-click ends a range', async (c, w) => {
	capture();
	await open(c, w);
	const box = await c.page.locator('#sc-heat-canvas').boundingBox();
	const y = box.y + 100;
	await c.page.mouse.move(box.x + 30, y);
	await c.page.mouse.down();
	await c.page.mouse.move(box.x + 60, y);
	await c.page.mouse.move(box.x + 90, y);
	await c.page.mouse.up();
	const st = await api(c, 'state');
	c.check(st.ranges && st.ranges.length === 1 && st.ranges[0][1] > st.ranges[0][0], `dragged: ${JSON.stringify(st.ranges)}`);
	await c.page.mouse.click(box.x + 20, y);
	await c.page.keyboard.down('Shift');
	await c.page.mouse.click(box.x + 110, y);
	await c.page.keyboard.up('Shift');
	const st2 = await api(c, 'state');
	c.check(st2.ranges[0][1] - st2.ranges[0][0] > st.ranges[0][1] - st.ranges[0][0], 'shift-click: a longer range');
	if (process.env.SCREENSHOT && w === 'report')
		await c.page.screenshot({ path: path.join(process.env.SCREENSHOT, 'time-range.png') });
});

/* record -o FILE.html: both backends stamp samples (CLOCK_MONOTONIC,
 * mapped to the epoch): every sample in the heat map, column 0 within the
 * wall-clock time of the run, the samples spread over the run's 1.2 s.
 * The BPF backend with frame pointers counts every sample in the kernel
 * (per 20 ms cell, read out while sampling), and so it does for kernel
 * threads with -a. */
for (const args of [['perf'], ['bpf'], ['bpf', '--call-graph', 'fp'], ['bpf', '-a', '--call-graph', 'fp']]) {
	const backend = args.join(' ');
	tests.push({
		name: `time/record --backend ${backend}: the heat map holds every sample, at the time it ran`,
		fn: async (c) => {
			const f = path.join(WORK, `record-${args.join('')}.html`);
			const target = args.includes('-a') ? ['-d', '1.2'] : ['--', PHASES, '1', '600'];
			const before = BigInt(Date.now()) * 1000000n;
			run(SCORCH, ['record', '-q', '--backend', ...args, '-F', '499', '-o', f, ...target]);
			const after = BigInt(Date.now()) * 1000000n;
			await c.page.goto(pathToFileURL(f).href);
			await c.page.evaluate(() => window.scorch.ready);
			const h = await api(c, 'heatmap');
			c.check(h !== null, 'a heat map');
			const total = h.counts.flat().reduce((a, b) => a + b, 0);
			const root = (await api(c, 'frames')).find((x) => x.depth === 0).w;
			c.check(total > 0, 'samples');
			c.equal(total, root, 'heat map total = the graph\'s samples');
			c.check(h.origin !== null, 'the epoch is known');
			/* counted in the kernel, a sample's time is its 20 ms cell's
			 * start: the first cell may begin before scorch did (CI:
			 * 6.8 ms before, with -a) */
			const celled = args[0] === 'bpf' && args.includes('fp');
			const slack = celled ? 20000000n : 1000000n;
			const firstNs = BigInt(h.origin) + BigInt(Math.round(h.first * 1e9));
			c.check(firstNs >= before - slack && firstNs <= after, `first sample at ${firstNs}, run from ${before} to ${after}`);
			const used = [];
			h.counts.forEach((col, s) => col.forEach((n, r) => { if (n) used.push(s * 50 + r); }));
			const span = (Math.max(...used) - Math.min(...used)) / 50;
			c.check(span >= 0.9 && span <= 2, `samples over ${span} s of the 1.2 s run`);
		}
	});
}

/* Hostile process and function names in perf script text with times. */
tests.push({
	name: 'time/hostile names stay data',
	fn: async (c) => {
		/* no quotes, ';' or '(': the script's tidy rewrites those */
		const names = ['<script>window.__pwned=1</script>', '</script><b>x</b><script>', '<img src=x onerror=window.__pwned=3>',
			'&lt&amp<svg/onload=window.__pwned=4>'];
		let text = '';
		for (let i = 0; i < 200; i++) {
			const n = names[i % names.length];
			text += `${n.replace(/\s/g, '_')} 42 ${(1000 + i * 0.013).toFixed(6)}: 1 cpu-clock:\n` +
				`\t    1000 ${n}+0x1 (/bin/x)\n\t    2000 main+0x2 (/bin/x)\n\n`;
		}
		const f = path.join(WORK, 'hostile.txt');
		fs.writeFileSync(f, text);
		run(SCORCH, ['flamegraph', '-o', path.join(WORK, 'hostile.html'), f]);
		await open(c, 'hostile');
		const h = await api(c, 'heatmap');
		c.equal(h.counts.flat().reduce((a, b) => a + b, 0), 200, 'samples in the heat map');
		await api(c, 'range', 0, 1);
		await api(c, 'compare', [0, 1], [1, 2.6]);
		const shown = new Set((await api(c, 'frames')).map((x) => x.name));
		for (const n of names) c.check(shown.has(n), `name kept as text: ${n}`);
		c.equal(await c.page.evaluate(() => window.__pwned), undefined, 'no injected script ran');
		c.equal(await c.page.evaluate(() => document.querySelectorAll('img, svg, script:not([id]) ~ b').length +
			[...document.querySelectorAll('b')].filter((b) => b.textContent === 'x').length), 0, 'no injected markup');
	}
});

runAll(tests).then((failed) => {
	fs.rmSync(WORK, { recursive: true, force: true });
	process.exitCode = failed ? 1 : 0;
});
